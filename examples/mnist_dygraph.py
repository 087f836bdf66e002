"""Train the MNIST model eagerly (dygraph mode), save it, reload it and test it.

    python examples/mnist_dygraph.py            # the subset bundled with the package
    python examples/mnist_dygraph.py --full     # full MNIST from --data-dir or $MNIST_DIR

The model and the training loop are in ``mnist_model.py`` next to this file. After training
the script saves the parameters with ``core.save``, loads them into a fresh model with
``set_dict`` and reports that model's test accuracy.
"""
import argparse
import os
import sys
import tempfile
import time

from mnist_model import MNIST, evaluate, train

import core
from core.dataset import mnist


def main(argv=None):
    ap = argparse.ArgumentParser(description="Eager MNIST training")
    ap.add_argument("--full", action="store_true",
                    help="use the full MNIST files (from --data-dir or $MNIST_DIR)")
    ap.add_argument("--data-dir", default=None, help="directory with the MNIST idx files")
    ap.add_argument("--epochs", type=int, default=None,
                    help="passes over the training data (default 2 on the subset, 1 on --full)")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--save-dir", default=None,
                    help="where to save the model (default: a temporary directory)")
    args = ap.parse_args(argv)

    data_dir = None
    if args.full:
        data_dir = args.data_dir or os.environ.get("MNIST_DIR")
        if not data_dir:
            ap.error("--full needs --data-dir or the MNIST_DIR environment variable")
    elif args.data_dir:
        ap.error("--data-dir is used with --full")
    epochs = args.epochs or (1 if args.full else 2)

    start = time.perf_counter()
    model, losses = train(epochs=epochs, batch_size=args.batch_size, data_dir=data_dir,
                          log_every=20)
    trained = time.perf_counter() - start
    print(f"trained {len(losses)} steps in {trained:.1f} s; final loss {losses[-1]:.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        save_dir = args.save_dir or tmp
        os.makedirs(save_dir, exist_ok=True)
        path = os.path.join(save_dir, "mnist_dygraph")
        core.save(model.state_dict(), path)
        params, _ = core.load(path)
        with core.dygraph.guard():
            fresh = MNIST()
            fresh.set_dict(params)
            fresh.eval()
        accuracy = evaluate(fresh, mnist.test(data_dir))
    total = time.perf_counter() - start
    print(f"test accuracy of the reloaded model: {accuracy:.4f} ({total:.1f} s in all)")
    return accuracy


if __name__ == "__main__":
    sys.exit(0 if main() > 0.9 else 1)

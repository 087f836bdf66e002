"""Train the MNIST model as a static Program: the same ``MNIST`` Layer class as the eager
example, built once into a Program (``layers.data`` feeds, parameters initialised by the startup
program, Adam appended by ``optimizer.minimize``) and run by the Executor.

    python examples/mnist_static.py            # the subset bundled with the package
    python examples/mnist_static.py --epochs 3
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mnist_model import MNIST, batches

import core
from core import layers, static
from core.dataset import mnist
from core.mode import static_mode_guard


def build(learning_rate=1e-3):
    """``(main, startup, test_program, img, label, prediction, avg_loss, accuracy)``."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = layers.data("img", [1, 28, 28], "float32")
        label = layers.data("label", [1], "int64")
        model = MNIST()
        prediction, acc = model(img, label)
        avg_loss = layers.mean(layers.cross_entropy(prediction, label))
        test_program = main.clone(for_test=True)
        core.optimizer.AdamOptimizer(learning_rate=learning_rate).minimize(avg_loss)
    return main, startup, test_program, img, label, prediction, avg_loss, acc


def train(epochs=2, batch_size=64, seed=90, log_every=20, log=print):
    """Train on the bundled subset; returns ``(executor, scope, test_program, prediction,
    losses)``."""
    core.seed(seed)
    main, startup, test_program, _img, _label, prediction, avg_loss, _ = build()
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    exe.run(startup, scope=scope)
    reader = core.reader.shuffle(mnist.train(), buf_size=60000, seed=seed)
    losses = []
    for epoch in range(epochs):
        for images, labels in batches(reader, batch_size, drop_last=True):
            loss, = exe.run(main, feed={"img": images, "label": labels}, fetch_list=[avg_loss],
                            scope=scope)
            losses.append(float(loss))
            if log_every and len(losses) % log_every == 0:
                log(f"epoch {epoch} step {len(losses)}: loss {losses[-1]:.4f}")
    return exe, scope, test_program, prediction, losses


def evaluate(exe, scope, test_program, prediction, batch_size=500):
    correct = total = 0
    for images, labels in batches(mnist.test(), batch_size):
        probs, = exe.run(test_program, feed={"img": images}, fetch_list=[prediction.name],
                         scope=scope)
        correct += int((probs.argmax(axis=1) == labels[:, 0]).sum())
        total += len(labels)
    return correct / max(total, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Static-program MNIST training")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args(argv)
    start = time.perf_counter()
    exe, scope, test_program, prediction, losses = train(args.epochs, args.batch_size)
    print(f"trained {len(losses)} steps in {time.perf_counter() - start:.1f} s; final loss "
          f"{losses[-1]:.4f}")
    acc = evaluate(exe, scope, test_program, prediction)
    print(f"test accuracy {acc:.4f}")
    return acc


if __name__ == "__main__":
    main()

"""Train the MNIST model through its translated static program, save it, reload it, test it.

    python examples/mnist_declarative.py                 # the subset bundled with the package
    python examples/mnist_declarative.py --epochs 2 --save-dir ./mnist_dy2stat

The model is the seed's ``MNIST`` (``mnist_model.py``) with ``@declarative`` on ``forward``,
including its ``if label is not None:`` branch that also returns the accuracy. Training runs
eagerly around the declarative call: the loss, ``backward()`` and the Adam update are eager
code, the forward is one cached static Program whose gradient flows back to the Layer's
parameters. Then the script

1. compares the declarative forward with the same Layer run eagerly (translator disabled);
2. saves the inference program with ``ProgramTranslator().save_inference_model(dir,
   fetch=[0])`` (the program of the most recent call: the image-only one) and, as in the
   seed, the labelled program with ``fetch=[0, 1]`` (prediction and accuracy);
3. reloads both with ``core.io.load_inference_model``, runs them with ``core.Executor`` and
   reports the test accuracy of the reloaded model.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import core
from core.dataset import mnist
from translator import ProgramTranslator, declarative

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mnist_model


class MNIST(mnist_model.MNIST):
    """The seed's MNIST with a declarative ``forward``."""

    @declarative
    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = core.layers.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        if label is not None:
            acc = core.layers.accuracy(input=x, label=label)
            return x, acc
        return x


def train(model, epochs=1, batch_size=64, learning_rate=1e-3, max_steps=None, seed=90,
          log_every=0, log=print):
    """Train ``model`` with Adam on the training reader (fixed shuffle for ``seed``);
    returns the loss per step. Works the same for a declarative and an eager model."""
    optimizer = core.optimizer.AdamOptimizer(learning_rate=learning_rate,
                                             parameter_list=model.parameters())
    reader = core.reader.shuffle(mnist.train(), buf_size=60000, seed=seed)
    losses = []
    model.train()
    for epoch in range(epochs):
        for images, labels in mnist_model.batches(reader, batch_size, drop_last=True):
            losses.append(mnist_model.train_step(model, optimizer, images, labels))
            if log_every and len(losses) % log_every == 0:
                log(f"epoch {epoch} step {len(losses)}: loss {losses[-1]:.4f}")
            if max_steps is not None and len(losses) >= max_steps:
                return losses
    return losses


def run_saved(dirname, images, labels=None):
    """Run a saved inference model on ``images`` (and ``labels`` when it feeds them)."""
    exe = core.Executor(core.CPUPlace())
    program, feed_names, fetch_targets = core.io.load_inference_model(dirname, exe)
    feed = {feed_names[0]: images}
    if len(feed_names) > 1:
        feed[feed_names[1]] = labels
    return exe.run(program, feed=feed, fetch_list=fetch_targets)


def main(argv=None):
    ap = argparse.ArgumentParser(description="MNIST trained through @declarative")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--save-dir", default=None, help="default: a temporary directory")
    args = ap.parse_args(argv)

    start = time.perf_counter()
    core.seed(90)
    model = MNIST()
    losses = train(model, args.epochs, args.batch_size, max_steps=args.max_steps, log_every=20)
    print(f"trained {len(losses)} steps through the translated program in "
          f"{time.perf_counter() - start:.1f} s; final loss {losses[-1]:.4f}; "
          f"{model.forward.translations} program(s) translated")

    model.eval()
    test_images, test_labels = next(mnist_model.batches(mnist.test(), 1000))
    img = core.to_variable(test_images)
    with core.no_grad():
        static_pred = model(img).numpy()
        ProgramTranslator().enable(False)
        eager_pred = model(img).numpy()
        ProgramTranslator().enable(True)
    print(f"eager vs declarative: max |difference| {np.abs(static_pred - eager_pred).max():.2e}")

    with tempfile.TemporaryDirectory() as tmp:
        root = args.save_dir or tmp
        infer_dir, seed_dir = os.path.join(root, "mnist_infer"), os.path.join(root, "mnist_dy2stat")
        with core.no_grad():
            model(img)  # the most recent call decides which program is saved
        ProgramTranslator().save_inference_model(infer_dir, fetch=[0])
        with core.no_grad():
            model(img, core.to_variable(test_labels))
        ProgramTranslator().save_inference_model(seed_dir, fetch=[0, 1])
        (loaded_pred,) = run_saved(infer_dir, test_images)
        pred2, acc2 = run_saved(seed_dir, test_images, test_labels)
    agree = max(np.abs(loaded_pred - static_pred).max(), np.abs(pred2 - static_pred).max())
    accuracy = float((loaded_pred.argmax(axis=1) == test_labels[:, 0]).mean())
    print(f"reloaded inference model vs declarative: max |difference| {agree:.2e}")
    print(f"test accuracy of the reloaded model: {accuracy:.4f} (saved accuracy op: "
          f"{float(np.asarray(acc2).reshape(-1)[0]):.4f}); {time.perf_counter() - start:.1f} s")
    return accuracy


if __name__ == "__main__":
    sys.exit(0 if main() > 0.9 else 1)

"""The seed's MNIST with a declarative forward: trains exactly like the eager model, and its
saved inference program reloads and runs with the Executor."""
import os
import sys

import numpy as np
import pytest

import core
from translator import ProgramTranslator

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                                "examples")))
import mnist_declarative
import mnist_model

from .model_checks import loss_curves, saved_model_run, train_losses


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def _batches(n, batch_size=16):
    reader = core.reader.shuffle(core.dataset.mnist.train(), buf_size=1000, seed=3)
    out = []
    for images, labels in mnist_model.batches(reader, batch_size, drop_last=True):
        out.append((images, labels))
        if len(out) == n:
            return out
    return out


def _optimizer(model):
    return core.optimizer.AdamOptimizer(learning_rate=1e-3, parameter_list=model.parameters())


def _train_step(model, opt, batch):
    images, labels = batch
    return mnist_model.train_step(model, opt, images, labels)


@pytest.mark.slow
def test_twenty_declarative_steps_match_eager_training():
    batches = _batches(20)
    core.seed(7)
    eager = mnist_model.MNIST()
    core.seed(7)
    static = mnist_declarative.MNIST()
    for a, b in zip(eager.parameters(), static.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    eager_losses, static_losses = loss_curves(eager, static, _optimizer, batches, _train_step)
    assert static.forward.translations == 1
    np.testing.assert_allclose(static_losses, eager_losses, rtol=2e-4, atol=2e-5)
    assert static_losses[-1] < static_losses[0]
    for a, b in zip(eager.parameters(), static.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-3, atol=1e-4)


def test_save_inference_model_reloads_and_matches_the_declarative_output(tmp_path):
    core.seed(1)
    model = mnist_declarative.MNIST()
    model.eval()
    images, labels = _batches(1, batch_size=8)[0]
    img, label = core.to_variable(images), core.to_variable(labels)
    with core.no_grad():
        pred, acc = model(img, label)
    pt = ProgramTranslator()
    pt.save_inference_model(str(tmp_path / "mnist_dy2stat"), fetch=[0, 1])  # the seed's call
    with core.no_grad():
        only_pred = model(img)  # a cache hit is a "most recent call" too
    infer = saved_model_run(tmp_path / "infer", [images], feed=[0], fetch=[0])
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path / "mnist_dy2stat"), exe)
    assert len(feeds) == 2 and len(fetches) == 2
    got_pred, got_acc = exe.run(program, feed={feeds[0]: images, feeds[1]: labels},
                                fetch_list=fetches)
    np.testing.assert_allclose(got_pred, pred.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_acc, acc.numpy(), rtol=1e-6)
    assert infer.feeds == ["inputs"]
    np.testing.assert_allclose(infer.outputs[0], only_pred.numpy(), rtol=1e-5, atol=1e-7)


def test_saved_model_holds_the_current_parameters(tmp_path):
    core.seed(2)
    model = mnist_declarative.MNIST()
    images, labels = _batches(2, batch_size=8)[1]
    # one update after the program was cached
    train_losses(model, _optimizer, [(images, labels)], _train_step, use_translator=True)
    with core.no_grad():
        want = model(core.to_variable(images), core.to_variable(labels))[0].numpy()
    saved = saved_model_run(tmp_path / "m", [images], fetch=[0])
    np.testing.assert_allclose(saved.outputs[0], want, rtol=1e-5, atol=1e-7)

"""The eager MNIST example: a shortened training run through its importable functions, and
(slow) the whole script, which must reach over 90% test accuracy after save and reload."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import core
from core.dataset import mnist
from examples import mnist_model

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_model_structure_matches_the_paddle_seed():
    with core.unique_name.guard():
        model = mnist_model.MNIST()
    shapes = {k: v.shape for k, v in model.state_dict().items()}
    assert shapes == {
        "_simple_img_conv_pool_1._conv2d.weight": [20, 1, 5, 5],
        "_simple_img_conv_pool_1._conv2d.bias": [20],
        "_simple_img_conv_pool_2._conv2d.weight": [50, 20, 5, 5],
        "_simple_img_conv_pool_2._conv2d.bias": [50],
        "_fc.weight": [800, 10], "_fc.bias": [10]}
    x = core.to_tensor(np.zeros((3, 1, 28, 28), np.float32))
    label = core.to_tensor(np.zeros((3, 1), np.int64))
    prediction, acc = model(x, label)
    assert prediction.shape == [3, 10] and acc.shape == [1]
    np.testing.assert_allclose(prediction.numpy().sum(axis=1), np.ones(3), rtol=1e-5)


def test_short_training_run_decreases_the_loss():
    logged = []
    model, losses = mnist_model.train(epochs=1, batch_size=32, max_steps=16, log_every=8,
                                      log=logged.append)
    assert len(losses) == 16 and len(logged) == 2
    assert np.isfinite(losses).all()
    assert np.mean(losses[-4:]) < np.mean(losses[:4]) - 0.3
    accuracy = mnist_model.evaluate(model, core.reader.firstn(mnist.test(), 200))
    assert not model.training
    assert accuracy > 0.3  # far above chance after 16 steps


def test_same_seed_gives_the_same_run():
    _, a = mnist_model.train(batch_size=16, max_steps=3, seed=5)
    _, b = mnist_model.train(batch_size=16, max_steps=3, seed=5)
    assert a == b


@pytest.mark.slow
def test_full_example_script_reaches_90_percent(tmp_path):
    env = dict(os.environ)
    env.pop("MNIST_DIR", None)
    proc = subprocess.run([sys.executable, os.path.join("examples", "mnist_dygraph.py"),
                           "--save-dir", str(tmp_path)], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    accuracy = float(re.search(r"test accuracy of the reloaded model: ([0-9.]+)",
                               proc.stdout).group(1))
    assert accuracy > 0.9
    assert os.path.exists(tmp_path / "mnist_dygraph.pdparams")

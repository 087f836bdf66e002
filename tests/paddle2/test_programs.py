"""PaddlePaddle 2.x tutorial programs (tests/paddle2/programs) run with `import dy2static as
paddle`: each in a fresh interpreter with DY2STATIC_FULL_GRAPH=1 (no silent eager fallback); it
must exit 0, print no NaN, and the numbers of its last line (``RESULT ...``) must be sane."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")

_X = np.array([[1.1, 2.2], [3.3, 4.4]])
_Y = np.array([[5.5, 6.6], [7.7, 8.8]])


def close(a, b, tol=1e-6):
    return abs(a - b) <= tol * max(1.0, abs(b))


def decreased(first, last, factor=1.0):
    return last < first * factor


#: program -> check of the numbers on its RESULT line
CHECKS = {
    "tensor_basics": lambda r: close(r[0], (_X + _Y).sum()) and close(r[1], (_X @ _Y).sum()),
    "tensor_creation": lambda r: r == [60.0, 6.0],
    "tensor_manipulation": lambda r: r == [56.0, 5.0],
    "dataset_custom": lambda r: r == [4.0, 4.0],
    "dataset_mnist_transforms": lambda r: r == [5000.0, 1.0],
    "model_sequential": lambda r: r == [407050.0, 10.0],
    "model_subclass": lambda r: r == [4.0, 10.0],
    "train_basic_loop": lambda r: decreased(r[0], r[1], 0.8) and r[2] > 0.3,
    "train_hapi_model": lambda r: r[0] < 2.0 and r[1] > 0.5,
    "save_load_params": lambda r: r == [0.0, 3.0],
    "jit_save_load": lambda r: r[0] < 1e-6 and r[1] == 2.0,
    "to_static_basic": lambda r: r[0] < 1e-6 and r[1] == -4.0,
    "to_static_control_flow": lambda r: r == [6.0, 6.0],
    "to_static_debug": lambda r: r == [4.0],
    "to_static_input_spec": lambda r: r[1] < 1e-6,
    "linear_regression": lambda r: decreased(r[0], r[1], 0.1) and r[2] < 0.5,
    "lenet_classification": lambda r: decreased(r[0], r[1], 0.8) and r[2] > 0.3 and r[3] < 1e-5,
    "cifar_cnn": lambda r: decreased(r[0], r[1]) and r[2] > 0.3,
    "resnet_block": lambda r: 1.0 < r[0] < 5.0 and r[1] < 1e-4,
    "imdb_bow": lambda r: decreased(r[0], r[1], 0.9) and r[2] > 0.8,
    "sentiment_lstm": lambda r: r[0] < 0.5 and r[1] > 0.8,
    "ngram_embedding": lambda r: decreased(r[0], r[1], 0.5),
    "lr_scheduler": lambda r: close(r[0], 0.5) and close(r[1], 0.5 * 0.8 ** 3) and
    close(r[2], 0.4) and close(r[3], 0.025),
    "autograd": lambda r: close(r[0], 1 / math.sqrt(30), 1e-5) and close(r[1], 6 / math.sqrt(30),
                                                                          1e-5),
    "static_mode": lambda r: decreased(r[0], r[1], 0.5),
    "hapi_callbacks": lambda r: r[0] == r[1] and r[0] > 0.6 and r[2] < 1.0,
    "metric_accuracy": lambda r: close(r[0], 0.75) and close(r[1], 0.5),
    "gradient_clip": lambda r: all(close(v, 1.0, 1e-5) for v in r) and len(r) == 3,
    "to_static_cases": lambda r: r[0] < 1e-6 and r[1:4] == [2.5, 15.0, 3.0] and r[4] < 1e-5,
    "layer_and_model": lambda r: r == [0.0, 6.0, 1.0],
    "dcgan_face": lambda r: r[0] > 0 and r[1] > 0 and r[2] == 2.0 and r[3] < 1e-5 and
    r[4] < 1e-5 and 0.0 < r[5] <= 1.0,
    "pix2pix_cityscapes": lambda r: r[0] > 0 and r[1] > 0 and r[2] == 2.0 and r[3] < 1e-5 and
    0.0 < r[4] <= 1.0,
    "super_resolution_sub_pixel": lambda r: decreased(r[0], r[1], 0.5) and r[2:4] == [30.0, 30.0]
    and r[4] < 1e-5,
    "image_denoising_jit": lambda r: r[0] < 0.7 and decreased(r[1], r[2]) and r[3] == 4.0 and
    r[4] < 1e-5 and r[5] < 1e-5,
}

#: other lines a program must print
EXPECT = {
    "to_static_input_spec": ["translations: 1"],
    "to_static_debug": ["convert_ifelse", "eager: [2.]"],
    "train_hapi_model": ["Epoch 2/2", "Eval samples: 256", "Predict samples: 256"],
    "hapi_callbacks": ["best_model.pdparams", "final.pdparams", "lr after training: 0.01"],
    "model_sequential": ["Total params: 407,050"],
    "to_static_control_flow": ["[2. 2. 6.]", "[1]"],
    "super_resolution_sub_pixel": ["Epoch 2/2", "Predict samples: 4", "Total params: 59,657"],
    "image_denoising_jit": ["Total params: 74,497", "predicts: [16, 1, 28, 28]"],
}

SLOW = {"train_basic_loop", "train_hapi_model", "lenet_classification", "cifar_cnn",
        "sentiment_lstm", "resnet_block", "dcgan_face", "image_denoising_jit"}


def _programs():
    names = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in names]


def test_every_program_has_a_check():
    names = {f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py")}
    assert names == set(CHECKS), sorted(names ^ set(CHECKS))
    assert len(names) >= 25


def test_programs_change_only_the_imports():
    for f in sorted(os.listdir(PROGRAMS)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(PROGRAMS, f)) as fh:
            text = fh.read()
        assert "import dy2static as paddle" in text, f
        assert not re.search(r"^\s*(import paddle|from paddle)\b", text, re.M), f
        assert not re.search(r"^\s*(import|from) (core|translator)\b", text, re.M), f


@pytest.mark.parametrize("name", _programs())
def test_program_runs(name, tmp_path):
    env = dict(os.environ, DY2STATIC_FULL_GRAPH="1", PYTHONPATH=ROOT)
    env.pop("MNIST_DIR", None)
    proc = subprocess.run([sys.executable, os.path.join(PROGRAMS, name + ".py")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    assert not re.search(r"\bnan\b", out, re.I), out[-3000:]
    lines = [ln for ln in out.splitlines() if ln.startswith("RESULT")]
    assert lines, out[-3000:]
    numbers = [float(v) for v in lines[-1].split()[1:]]
    assert all(math.isfinite(v) for v in numbers), lines[-1]
    assert CHECKS[name](numbers), f"{name}: {lines[-1]}"
    for text in EXPECT.get(name, []):
        assert text in out, f"{name}: expected {text!r} in\n{out[-3000:]}"

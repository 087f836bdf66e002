"""``import dy2static as paddle``: the namespace re-exports core and translator (the same
objects, no copies), module paths import as in PaddlePaddle, and the 2.x-only names work."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

import core
import dy2static as paddle
import translator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("module", [
    "dy2static.nn", "dy2static.nn.functional", "dy2static.nn.initializer", "dy2static.jit",
    "dy2static.static", "dy2static.static.nn", "dy2static.io", "dy2static.optimizer",
    "dy2static.optimizer.lr", "dy2static.metric", "dy2static.distributed", "dy2static.vision",
    "dy2static.vision.transforms", "dy2static.vision.datasets", "dy2static.vision.models",
    "dy2static.device", "dy2static.framework", "dy2static.callbacks", "dy2static.hapi",
])
def test_module_paths_import(module):
    mod = importlib.import_module(module)
    for name in getattr(mod, "__all__", []):
        assert hasattr(mod, name), f"{module}.{name}"


def test_from_imports_as_in_paddle():
    from dy2static.nn import Conv2D, Linear  # noqa: F401
    from dy2static.static import InputSpec
    from dy2static.vision.transforms import Compose, Normalize, Resize, ToTensor  # noqa: F401
    import dy2static.nn.functional as F
    assert InputSpec is translator.InputSpec
    assert F.relu is core.nn.functional.relu


def test_reexports_are_the_same_objects():
    # NOTE: Conv2D, Linear, Embedding, LayerNorm, Dropout are subclasses with the 2.x positional
    # order (tests/paddle2/test_nn_2x_signatures.py)
    assert issubclass(paddle.nn.Linear, core.nn.Linear) and paddle.nn.Linear is not core.nn.Linear
    assert paddle.nn.Conv1D is core.nn.Conv1D and paddle.nn.BatchNorm2D is core.nn.BatchNorm2D
    assert paddle.nn.Layer is core.nn.Layer
    assert paddle.optimizer.Adam is core.optimizer.Adam
    assert paddle.optimizer.lr.StepDecay is core.lr.StepDecay
    assert paddle.io.DataLoader is core.io.DataLoader
    assert paddle.metric.Accuracy is core.metric.Accuracy
    assert paddle.static.Executor is core.static.Executor
    assert paddle.distributed.init_parallel_env is core.distributed.init_parallel_env
    assert paddle.jit.TracedLayer is translator.TracedLayer
    assert paddle.jit.not_to_static is translator.not_to_static
    assert paddle.matmul is core.matmul and paddle.concat is core.concat
    assert paddle.to_tensor is core.to_tensor and paddle.Tensor is core.Tensor


def test_core_does_not_import_the_top_package():
    code = ("import sys, core, translator; "
            "assert 'dy2static' not in sys.modules, 'core or translator imported dy2static'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_top_level_names():
    for name in ["randn", "rand", "randint", "concat", "stack", "split", "gather", "scatter",
                 "topk", "sort", "argsort", "cumsum", "masked_select", "where", "clip", "add",
                 "subtract", "multiply", "divide", "pow", "equal", "less_than", "logical_and",
                 "logical_or", "logical_not", "logical_xor", "argmax", "norm", "dist", "t",
                 "save", "load", "set_device", "get_device", "summary", "Model", "seed",
                 "no_grad", "enable_static", "disable_static", "in_dynamic_mode", "ParamAttr"]:
        assert callable(getattr(paddle, name)), name
    assert paddle.__version__.startswith("2.")
    assert paddle.float32 == np.float32 and paddle.int64 == np.int64


def test_concat_takes_the_2x_keyword():
    x = paddle.ones([2, 2])
    assert paddle.concat(x=[x, x], axis=1).shape == [2, 4]


def test_set_device_and_get_device():
    assert paddle.get_device() == "cpu"
    place = paddle.set_device("cpu")
    assert isinstance(place, core.CPUPlace)
    assert paddle.device.get_device() == "cpu"
    with pytest.raises(ValueError, match="'cpu', 'gpu'"):
        paddle.set_device("tpu")
    with pytest.raises(TypeError, match="str"):
        paddle.set_device(3)
    if not core.is_compiled_with_cuda():
        with pytest.raises(ValueError, match="CUDA"):
            paddle.set_device("gpu:0")


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_set_device_gpu():
    try:
        paddle.set_device("gpu:0")
        assert paddle.get_device() == "gpu:0"
        assert paddle.ones([2]).place == core.CUDAPlace(0)
    finally:
        paddle.set_device("cpu")


def test_initializer_2x_names():
    init = paddle.nn.initializer
    for cls in (init.XavierUniform, init.XavierNormal, init.KaimingUniform, init.KaimingNormal):
        layer = paddle.nn.Linear(64, 32, weight_attr=paddle.ParamAttr(initializer=cls()))
        w = layer.weight.numpy()
        assert w.shape == (64, 32) and 0 < w.std() < 1
    normal = paddle.nn.Linear(200, 100, weight_attr=paddle.ParamAttr(
        initializer=init.Normal(mean=1.0, std=0.1)))
    assert abs(normal.weight.numpy().mean() - 1.0) < 0.02
    assigned = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(
        initializer=init.Assign(np.eye(2, dtype="float32"))))
    np.testing.assert_array_equal(assigned.weight.numpy(), np.eye(2))
    assert init.Constant is core.initializer.Constant


def test_static_nn_fc_2x_arguments():
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 3], "float32")
            out = paddle.static.nn.fc(x=x, size=2, activation="relu",
                                      weight_attr=paddle.ParamAttr(
                                          initializer=paddle.nn.initializer.Constant(1.0)),
                                      bias_attr=paddle.ParamAttr(
                                          initializer=paddle.nn.initializer.Constant(-1.0)))
    finally:
        paddle.disable_static()
    exe = paddle.static.Executor()
    exe.run(startup)
    got, = exe.run(main, feed={"x": np.array([[1, 2, 3], [-1, -1, -1]], "float32")},
                   fetch_list=[out])
    np.testing.assert_allclose(got, [[5, 5], [0, 0]])


def test_jit_switches():
    calls = []

    @paddle.jit.to_static
    def f(x):
        calls.append(core.in_dynamic_mode())
        return x * 2

    f(paddle.ones([2]))
    paddle.jit.enable_to_static(False)
    try:
        f(paddle.ones([2]))
    finally:
        paddle.jit.enable_to_static(True)
    assert calls == [False, True]  # translated (static while tracing), then eager
    with pytest.raises(TypeError, match="bool"):
        paddle.jit.enable_to_static(1)
    paddle.jit.set_verbosity(2)
    paddle.jit.set_code_level(100)
    import logging
    assert logging.getLogger("translator").level == logging.INFO
    paddle.jit.set_verbosity(0)
    paddle.jit.set_code_level(-1)
    assert logging.getLogger("translator").level == logging.WARNING


def test_composed_functions_export_to_onnx(tmp_path):
    pytest.importorskip("onnxruntime")
    import onnxruntime as ort

    from dy2static.static import InputSpec

    def f(x):
        values, _ = paddle.topk(x, 2, axis=0, largest=False)
        return paddle.cumsum(paddle.sort(x, axis=1), axis=1) + paddle.norm(x) + \
            paddle.sum(values) + paddle.t(x) * 0

    x = np.random.RandomState(0).rand(3, 3).astype("float32")
    path = translator.onnx.export(f, str(tmp_path / "f.onnx"),
                                  input_spec=[InputSpec([3, 3], "float32", "x")])
    got, = ort.InferenceSession(path).run(None, {"x": x})
    np.testing.assert_allclose(got, f(paddle.to_tensor(x)).numpy(), rtol=1e-5)

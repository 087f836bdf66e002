"""core.save / core.load: Layer and optimizer state dicts, the .pdparams / .pdopt rule,
missing and damaged files, and restoring a Layer with set_dict."""
import os

import numpy as np
import pytest

import core
from core import io
from core.serialization import ModelFormatError


def _tensor(value, dtype="float32"):
    return core.to_tensor(np.asarray(value, dtype=dtype))


def test_exported_at_top_level():
    assert core.save is io.save and core.load is io.load


def test_layer_state_dict_round_trip(tmp_path):
    layer = core.nn.Linear(4, 3)
    state = layer.state_dict()
    written = core.save(state, str(tmp_path / "model"))
    assert written == str(tmp_path / "model.pdparams")
    params, opt = core.load(str(tmp_path / "model"))
    assert opt is None
    assert list(params) == list(state)
    for k, v in state.items():
        assert isinstance(params[k], np.ndarray)
        assert params[k].dtype == v.dtype and params[k].tobytes() == v.numpy().tobytes()


def test_set_dict_after_load_restores_outputs(tmp_path):
    core.seed(1)
    a, b = core.nn.Linear(5, 2), core.nn.Linear(5, 2)
    x = _tensor(np.random.default_rng(0).standard_normal((3, 5)))
    assert not np.array_equal(a(x).numpy(), b(x).numpy())
    core.save(a.state_dict(), str(tmp_path / "lin"))
    params, _ = core.load(str(tmp_path / "lin"))
    b.set_dict(params)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_set_dict_wrong_shape_names_the_parameter(tmp_path):
    core.save(core.nn.Linear(5, 2).state_dict(), str(tmp_path / "lin"))
    params, _ = core.load(str(tmp_path / "lin"))
    with pytest.raises(ValueError, match=r"shape \[4, 2\].*shape \[5, 2\]"):
        core.nn.Linear(4, 2).set_dict(params)


def test_optimizer_like_dict_goes_to_pdopt(tmp_path):
    state = {"linear_0.w_0_moment1_0": _tensor(np.ones((2, 2))),
             "linear_0.w_0_beta1_pow_acc_0": _tensor([0.9]),
             "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.05, "name": "step"}}
    written = core.save(state, str(tmp_path / "opt"))
    assert written.endswith(".pdopt")
    params, opt = core.load(str(tmp_path / "opt"))
    assert params is None
    assert opt["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.05, "name": "step"}
    np.testing.assert_array_equal(opt["linear_0.w_0_moment1_0"], np.ones((2, 2), np.float32))


def test_real_optimizer_state_round_trip(tmp_path):
    layer = core.nn.Linear(3, 2)
    opt = core.optimizer.Adam(learning_rate=0.1, parameter_list=layer.parameters())
    loss = layer(_tensor(np.ones((4, 3)))).mean()
    loss.backward()
    opt.minimize(loss)
    core.save(layer.state_dict(), str(tmp_path / "ckpt"))
    core.save(opt.state_dict(), str(tmp_path / "ckpt"))
    params, opt_state = core.load(str(tmp_path / "ckpt"))
    assert set(params) == set(layer.state_dict())
    assert set(opt_state) == set(opt.state_dict()) and opt_state
    for k, v in opt.state_dict().items():
        np.testing.assert_array_equal(opt_state[k], np.asarray(v))
    fresh = core.optimizer.Adam(learning_rate=0.1, parameter_list=layer.parameters())
    fresh.set_dict(opt_state)


@pytest.mark.parametrize("state,expected", [
    ({}, ".pdopt"),  # PaddlePaddle 1.8: a dict without parameters is an optimizer's
    ({"step": 3, "w": np.ones(2)}, ".pdopt"),
    ({"LR_Scheduler.last_epoch": np.array(2)}, ".pdopt"),
    ({"w": np.ones(2), "b": np.zeros(1)}, ".pdparams"),  # e.g. re-saving what load returned
])
def test_kind_inference_rule(tmp_path, state, expected):
    assert core.save(state, str(tmp_path / "s")).endswith(expected)


def test_kind_hint_and_suffix(tmp_path):
    assert core.save({"w": np.ones(2)}, str(tmp_path / "a"), kind="optimizer").endswith(".pdopt")
    assert core.save({}, str(tmp_path / "b.pdparams")) == str(tmp_path / "b.pdparams")
    params, opt = core.load(str(tmp_path / "b.pdparams"))
    assert params == {} and opt is None
    with pytest.raises(ValueError, match="kind must be"):
        core.save({}, str(tmp_path / "c"), kind="weights")


def test_both_files_and_nested_dirs(tmp_path):
    prefix = str(tmp_path / "deep" / "er" / "ckpt")
    core.save({"w": _tensor([1.0, 2.0])}, prefix, kind="params")
    core.save({"acc": np.arange(3), "nested": {"a": [1, 2.5, None]}}, prefix)
    params, opt = core.load(prefix)
    np.testing.assert_array_equal(params["w"], np.array([1.0, 2.0], np.float32))
    assert opt["nested"] == {"a": [1, 2.5, None]} and opt["acc"].dtype == np.int64


def test_missing_files_name_both_paths(tmp_path):
    prefix = str(tmp_path / "nothing")
    with pytest.raises(FileNotFoundError) as e:
        core.load(prefix)
    assert prefix + ".pdparams" in str(e.value) and prefix + ".pdopt" in str(e.value)


def test_damaged_and_swapped_files(tmp_path):
    prefix = str(tmp_path / "m")
    core.save({"w": _tensor(np.arange(6.0))}, prefix, kind="params")
    with open(prefix + ".pdparams", "rb") as f:
        data = bytearray(f.read())
    data[len(data) // 3] ^= 0x55
    with open(prefix + ".pdparams", "wb") as f:
        f.write(bytes(data))
    with pytest.raises(ModelFormatError, match=r"m.pdparams"):
        core.load(prefix)
    core.save({"w": _tensor(np.arange(6.0))}, prefix, kind="optimizer")
    os.replace(prefix + ".pdopt", prefix + ".pdparams")
    with pytest.raises(ModelFormatError, match="'pdopt' data, expected 'pdparams'"):
        core.load(prefix)


def test_bad_arguments(tmp_path):
    with pytest.raises(TypeError, match="state_dict must be a dict"):
        core.save([1, 2], str(tmp_path / "x"))
    with pytest.raises(ValueError, match="prefix"):
        core.save({}, str(tmp_path) + os.sep)


def test_saving_leaves_no_temporary_files(tmp_path):
    for _ in range(3):
        core.save(core.nn.Linear(2, 2).state_dict(), str(tmp_path / "m"))
    assert os.listdir(tmp_path) == ["m.pdparams"]


def test_static_layer_state_dict_reads_the_scope(tmp_path):
    main, startup = core.Program(), core.Program()
    core.enable_static()
    try:
        with core.program_guard(main, startup), core.unique_name.guard():
            layer = core.nn.Linear(3, 2)
            layer(core.static.data("x", [-1, 3], "float32"))
    finally:
        core.disable_static()
    state = layer.state_dict()
    with pytest.raises(ValueError, match="has no value in the global scope"):
        core.save(state, str(tmp_path / "static"))
    scope = core.Scope()
    with core.scope_guard(scope):
        core.Executor(core.CPUPlace()).run(startup)
        core.save(state, str(tmp_path / "static"))
    params, _ = core.load(str(tmp_path / "static"))
    assert set(params) == set(state)
    for k, v in state.items():
        assert params[k].tobytes() == np.asarray(scope.find_var(v.name).get_tensor()).tobytes()


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_gpu_tensors_are_saved_from_the_device(tmp_path):
    value = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = core.to_tensor(value, place=core.CUDAPlace(0))
    core.save({"w": t}, str(tmp_path / "gpu"), kind="params")
    params, _ = core.load(str(tmp_path / "gpu"))
    assert isinstance(params["w"], np.ndarray) and params["w"].tobytes() == value.tobytes()

"""The global eager/static switch (``core.mode`` and its aliases) and places (``core.backend``):
eager by default, each alias flips the mode, ``dygraph.guard`` restores mode and place even
when its block raises, and CPU arrays are numpy while a missing GPU is a clear error."""
import numpy as np
import pytest

import core
from core import backend


@pytest.fixture(autouse=True)
def restore_mode():
    yield
    core.disable_static()
    backend.set_default_place(core.CPUPlace())


def test_eager_is_the_default_and_each_alias_switches():
    assert core.in_dynamic_mode() and core.dygraph.enabled() and core.imperative.enabled()
    core.enable_static()
    assert not core.in_dynamic_mode()
    core.disable_static()
    assert core.in_dynamic_mode()
    core.disable_imperative()
    assert not core.in_dynamic_mode() and not core.dygraph.enabled()
    core.enable_imperative()
    assert core.in_dynamic_mode()
    core.dygraph.disable_dygraph()
    assert not core.in_dynamic_mode()
    core.dygraph.enable_dygraph()
    assert core.in_dynamic_mode()


def test_guard_gives_eager_mode_and_restores_the_previous_one_on_error():
    core.enable_static()
    with core.dygraph.guard(core.CPUPlace()):
        assert core.in_dynamic_mode()
        x = core.to_tensor([1.0, 2.0])
        assert isinstance(x.numpy(), np.ndarray) and x.place == core.CPUPlace()
    assert not core.in_dynamic_mode()
    with pytest.raises(KeyError):
        with core.dygraph.guard():
            assert core.in_dynamic_mode()
            raise KeyError("inside the guard")
    assert not core.in_dynamic_mode()
    assert core.imperative.guard is core.dygraph.guard


def test_places_and_array_modules():
    assert backend.get_array_module(core.CPUPlace()) is np
    assert backend.get_array_module(None) is np
    assert core.CUDAPlace(1) == core.CUDAPlace(1) and core.CUDAPlace(0) != core.CUDAPlace(1)
    assert core.CPUPlace() != core.CUDAPlace(0)
    assert isinstance(core.is_compiled_with_cuda(), bool)
    assert backend.array_module_of(np.ones(2)) is np and backend.array_module_of(3.0) is np
    with pytest.raises(TypeError, match="CPUPlace"):
        backend.set_default_place("gpu")


@pytest.mark.skipif(core.is_compiled_with_cuda(), reason="checks the error without a GPU")
def test_cuda_place_without_a_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match=r"CUDAPlace\(0\).*no CUDA device.*CPUPlace"):
        backend.get_array_module(core.CUDAPlace(0))
    with pytest.raises(RuntimeError, match="no CUDA device"):
        core.to_tensor([1.0], place=core.CUDAPlace(0))
    with pytest.raises(RuntimeError, match="no CUDA device"):
        with core.dygraph.guard(core.CUDAPlace(0)):
            pass
    assert core.in_dynamic_mode() and backend.default_place() == core.CPUPlace()


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_cuda_place_gives_cupy_arrays_and_the_same_autograd():
    import cupy

    a = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    with core.dygraph.guard(core.CUDAPlace(0)):
        x = core.to_tensor(a, stop_gradient=False)
        assert isinstance(x._data, cupy.ndarray) and x.place == core.CUDAPlace(0)
        y = (core.layers.relu(x) * x).sum()
        y.backward()
        np.testing.assert_allclose(x.gradient(), np.where(a > 0, 2 * a, 0), rtol=1e-6)
        assert isinstance(x.gradient(), np.ndarray)
    assert backend.default_place() == core.CPUPlace()

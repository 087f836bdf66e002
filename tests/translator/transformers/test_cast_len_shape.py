"""int/float/bool casts, len and x.shape: Python values, eager tensors, static Variables."""
import numpy as np
import pytest

import core

from ..conftest import both, convert, run_static


def casts(x):
    return int(x), float(x), bool(x), len([x, x])


def shape_and_len(x):
    return x.shape, len(x)


@pytest.mark.parametrize("x", [0, 2.5, True])
@pytest.mark.parametrize("passes", [None, ("cast",)])
def test_python_casts(x, passes):
    assert both(casts, x, passes=passes) == (casts(x),) * 2


def test_eager_tensor_shape_and_len():
    x = core.to_tensor(np.zeros([3, 4], dtype="float32"))
    assert both(shape_and_len, x) == (([3, 4], 3),) * 2
    assert convert(casts)(core.to_tensor(np.array([2.0], dtype="float32")))[:3] == (2, 2.0, True)


def test_numpy_shape_unchanged():
    a = np.zeros([2, 5])
    assert convert(shape_and_len, ("shape",))(a) == ((2, 5), 2)


def test_static_cast_gives_a_cast_op():
    def f(x):
        return int(x), float(x), bool(x)

    (i, fl, b), _ = run_static(f, [np.array([2.7], dtype="float32")])
    # one-element tensors become 0-d values, as the Python numbers eager mode gives
    assert i.dtype == np.int64 and i.shape == () and i.tolist() == 2
    assert fl.dtype == np.float32 and fl.shape == ()
    assert b.dtype == np.bool_ and b.shape == () and b.tolist() is True


def test_static_shape_with_unknown_dim():
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 4], "float32")
            shape = convert(shape_and_len)(x)[0]
            n = convert(lambda_free_len)(x)
        finally:
            core.disable_static()
    assert shape[1] == 4 and hasattr(shape[0], "block")
    assert hasattr(n, "block")
    exe = core.Executor(core.CPUPlace())
    out = exe.run(main, feed={"x": np.zeros([3, 4], dtype="float32")}, fetch_list=[shape[0], n])
    assert int(out[0]) == 3 and int(out[1]) == 3


def lambda_free_len(x):
    return len(x)

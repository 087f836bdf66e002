"""Dynamic shapes (API.md "Dynamic shapes"): shape and position lists holding 1-element int
tensors, or given as a whole int tensor, in eager mode and in a static Program (where they
become tensor inputs of the op and unknown dims infer as -1); clear errors for bad entries."""
import numpy as np
import pytest

import core
from core import layers as L

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0


def _build(x, n, m):
    """n: a 1-element int tensor (value 2); m: a 2-element int tensor (values 3, 2)."""
    return [
        L.fill_constant([n, 2], "float32", 1.5),
        L.zeros(m, "int64"),
        L.ones([m[1:2], n], "float32"),
        core.full([n], 4.0, "float32"),
        L.reshape(x, [n, -1]),
        L.reshape(x, L.shape(x)[::-1]),
        L.slice(x, [1, 2], [n - 1, 1], [m[0:1], 3]),
        L.slice(x, [2], n - 3, m[1:]),
        L.expand(x[:, :1, :2], [1, n, n]),
        L.tile(x[0, 0], [n]),
        L.tile(x[0], m),
        L.uniform_random([n, 3], seed=3),
        L.gaussian_random(m, seed=4),
    ]


WANT_STATIC_SHAPES = [[-1, 2], [-1, -1], [-1, -1], [-1], [-1, -1], [-1, -1, -1], [-1, -1, 2],
                      [-1, 3, -1], [-1, -1, -1], [-1], [-1, -1], [-1, 3], [-1, -1]]


def _eager(n_value=2, m_value=(3, 2)):
    n = core.to_tensor(np.array([n_value], np.int64))
    m = core.to_tensor(np.array(m_value, np.int32))
    return [o.numpy() for o in _build(core.to_tensor(X), n, m)]


def _static():
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            x = core.static.data("x", [-1, 3, 4], "float32")
            n = core.static.data("n", [1], "int64")
            m = core.static.data("m", [2], "int32")
            outs = _build(x, n, m)
    finally:
        core.disable_static()
    return main, outs


def test_eager_values():
    got = _eager()
    want = [np.full((2, 2), 1.5, np.float32), np.zeros((3, 2), np.int64),
            np.ones((2, 2), np.float32), np.full(2, 4.0, np.float32), X.reshape(2, 12),
            X.reshape(4, 3, 2), X[:, 1:3, 1:3], X[:, :, -1:2], np.tile(X[:, :1, :2], (1, 2, 2)),
            np.tile(X[0, 0], 2), np.tile(X[0], (3, 2))]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    assert got[11].shape == (2, 3) and got[12].shape == (3, 2)


@pytest.mark.parametrize("n_value,m_value", [(2, (3, 2)), (1, (2, 4))])
def test_static_program_equals_eager_for_several_values(n_value, m_value):
    main, outs = _static()
    assert [list(o.shape) for o in outs] == WANT_STATIC_SHAPES
    types = {op.type for op in main.global_block().ops}
    assert {"fill_constant_tensor", "reshape_tensor", "slice_tensor", "tile_tensor",
            "uniform_random_tensor", "gaussian_random_tensor"} <= types
    exe = core.static.Executor(core.CPUPlace())
    got = exe.run(main, feed={"x": X, "n": np.array([n_value], np.int64),
                              "m": np.array(m_value, np.int32)}, fetch_list=outs)
    for g, w in zip(got, _eager(n_value, m_value)):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_static_python_ints_keep_the_plain_ops_and_known_shapes():
    main = core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, core.static.Program()):
            x = core.static.data("x", [2, 3, 4], "float32")
            a = L.fill_constant([2, 3], "float32", 1.0)
            b = L.slice(x, [1], [0], [2])
            c = L.tile(x, [1, 2, 1])
    finally:
        core.disable_static()
    assert (a.shape, b.shape, c.shape) == ([2, 3], [2, 2, 4], [2, 6, 4])
    assert {op.type for op in main.global_block().ops} == {"fill_constant", "slice", "tile"}


def test_gradients_through_tensor_bounds_and_repeats():
    def run(static):
        main, startup = core.static.Program(), core.static.Program()
        if static:
            core.enable_static()
        try:
            with core.static.program_guard(main, startup):
                if static:
                    x = core.static.data("x", [2, 3, 4], "float32")
                    n = core.static.data("n", [1], "int64")
                    x.stop_gradient = False
                else:
                    x = core.to_tensor(X, stop_gradient=False)
                    n = core.to_tensor(np.array([2], np.int64))
                y = L.slice(x * 1.0, [2], [n - 1], [n + 1])
                z = L.tile(y, [1, n, 1])
                loss = L.reduce_sum(z * z)
                if static:
                    (gx,) = core.static.gradients([loss], [x])
        finally:
            core.disable_static()
        if not static:
            loss.backward()
            return x.gradient()
        exe = core.static.Executor(core.CPUPlace())
        return exe.run(main, feed={"x": X, "n": np.array([2], np.int64)}, fetch_list=[gx])[0]

    eager, static = run(False), run(True)
    want = np.zeros_like(X)
    want[:, :, 1:3] = 4 * X[:, :, 1:3]  # each element appears twice in z
    np.testing.assert_allclose(eager, want, rtol=1e-6)
    np.testing.assert_allclose(static, want, rtol=1e-6)


def test_errors_name_the_argument():
    x = core.to_tensor(X)
    with pytest.raises(TypeError, match=r"fill_constant\(\): argument 'shape\[1\]' must be an "
                                        r"int or a 1-element int tensor, got a float32 tensor"):
        L.fill_constant([2, core.to_tensor(np.array([2.0], np.float32))], "float32", 1.0)
    with pytest.raises(TypeError, match=r"reshape\(\): argument 'shape\[0\]' .* shape \[2\]"):
        L.reshape(x, [core.to_tensor(np.array([2, 3])), -1])
    with pytest.raises(TypeError, match=r"zeros|fill_constant"):
        L.zeros(core.to_tensor(np.array([2.0, 3.0], np.float32)), "float32")
    with pytest.raises(TypeError, match=r"slice\(\): argument 'starts' must hold ints"):
        L.slice(x, [1], [1.5], [2])
    with pytest.raises(ValueError, match="non-negative"):
        L.ones([core.to_tensor(np.array([-1]))], "float32")
    main = core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, core.static.Program()):
            xs = core.static.data("x", [2, 3, 4], "float32")
            f = core.static.data("f", [1], "float32")
            many = core.static.data("many", [-1], "int64")
            with pytest.raises(TypeError, match=r"expand\(\): argument 'expand_times\[1\]' must "
                                                r"be an int or a 1-element int tensor, got a "
                                                r"float32 tensor of shape \[1\]"):
                L.expand(xs, [1, f, 1])
            with pytest.raises(ValueError, match=r"uniform_random\(\): argument 'shape' is a "
                                                 r"Variable of shape \[-1\]: its length must "
                                                 r"be known"):
                L.uniform_random(many)
            with pytest.raises(ValueError, match=r"expand\(\): argument 'expand_times' must "
                                                 r"be 3 positive ints"):
                L.expand(xs, [1, core.static.data("k", [1], "int64")])
    finally:
        core.disable_static()


def test_run_time_values_are_checked():
    main = core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, core.static.Program()):
            n = core.static.data("n", [1], "int64")
            a = L.fill_constant([n, 2], "float32", 1.0)
    finally:
        core.disable_static()
    exe = core.static.Executor(core.CPUPlace())
    with pytest.raises(Exception, match=r"non-negative dims"):
        exe.run(main, feed={"n": np.array([-3], np.int64)}, fetch_list=[a])

"""``x[index] = value`` on eager tensors and static Variables: values, gradients to the old
value and to ``value``, eager equal to a static Program, ops recorded before the assignment,
and errors."""
import numpy as np
import pytest

import core
from core import layers

r = np.random.default_rng(11)
X = r.standard_normal((4, 3)).astype(np.float32)
V = r.standard_normal((3,)).astype(np.float32)


def _model(x, v, idx):
    """x is rebound by three assignments; the loss also reads a value made before them."""
    before = x * 2.0
    x[1] = v * 3.0
    x[2:, 1:] = v[:2] + 1.0
    x[idx] = x[0] * v
    return layers.reduce_sum(x * x) + layers.reduce_sum(before * v), x, before


def _eager():
    x = core.to_tensor(X, stop_gradient=False)
    v = core.to_tensor(V, stop_gradient=False)
    h = x * 1.0  # a non-leaf: assigning into a leaf that needs a gradient is an error
    loss, out, before = _model(h, v, core.to_tensor(np.array([3], np.int64)))
    loss.backward()
    return loss.numpy(), out.numpy(), before.numpy(), x.gradient(), v.gradient()


def _reference():
    x, v = X.astype(np.float64), V.astype(np.float64)

    def f(x, v):
        h = x.copy()
        before = h * 2.0
        h[1] = v * 3.0
        h[2:, 1:] = v[:2] + 1.0
        h[[3]] = h[0] * v
        return (h * h).sum() + (before * v).sum()

    def num_grad(fn, a):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            e = np.zeros_like(a)
            e[i] = 1e-6
            g[i] = (fn(a + e) - fn(a - e)) / 2e-6
        return g

    return f(x, v), num_grad(lambda a: f(a, v), x), num_grad(lambda a: f(x, a), v)


def test_eager_values_and_gradients():
    loss, out, before, gx, gv = _eager()
    want_loss, want_gx, want_gv = _reference()
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
    np.testing.assert_allclose(before, X * 2.0, rtol=1e-6)  # values made before keep theirs
    np.testing.assert_allclose(out[1], V * 3.0, rtol=1e-6)
    np.testing.assert_allclose(gx, want_gx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gv, want_gv, rtol=1e-4, atol=1e-4)


def test_static_program_equals_eager():
    loss_e, out_e, before_e, gx_e, gv_e = _eager()
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            x = core.static.data("x", [4, 3], "float32")
            v = core.static.data("v", [3], "float32")
            idx = core.static.data("idx", [1], "int64")
            x.stop_gradient = v.stop_gradient = False
            h = x * 1.0
            loss, out, before = _model(h, v, idx)
            assert out is h and out.name != "x" and tuple(out.shape) == (4, 3)
            gx, gv = core.static.gradients([loss], [x, v])
        exe = core.static.Executor(core.CPUPlace())
        got = exe.run(main, feed={"x": X, "v": V, "idx": np.array([3], np.int64)},
                      fetch_list=[loss, out, before, gx, gv])
    finally:
        core.disable_static()
    for g, w in zip(got, [loss_e, out_e, before_e, gx_e, gv_e]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_aliases_see_the_new_value_earlier_results_keep_theirs():
    x = core.to_tensor(np.zeros((2, 2), np.float32))
    alias = x
    y = x + 1.0
    x[0, 0] = 5
    assert alias.numpy()[0, 0] == 5.0 and y.numpy()[0, 0] == 1.0


def test_value_built_from_the_same_tensor_and_repeated_assignment_gradients():
    w = core.to_tensor(np.array([1.0, 2.0, 3.0], np.float32), stop_gradient=False)
    x = w * 1.0
    for i in range(2):
        x[i + 1] = x[i] * 2.0  # the value reads the object being assigned into
    (x * core.to_tensor(np.array([1.0, 10.0, 100.0], np.float32))).sum().backward()
    # x = [w0, 2 w0, 4 w0]: d/dw0 = 1 + 20 + 400, the overwritten w1, w2 get nothing
    np.testing.assert_allclose(w.gradient(), [421.0, 0.0, 0.0])


def test_bool_mask_and_value_of_other_dtype():
    x = core.to_tensor(np.arange(6, dtype=np.int64).reshape(2, 3))
    x[x > 2] = 0
    x[:, 0] = core.to_tensor(np.array([7.9, 8.2], np.float32))  # cast to x's dtype, as numpy
    np.testing.assert_array_equal(x.numpy(), [[7, 1, 2], [8, 0, 0]])
    assert x.numpy().dtype == np.int64


def test_no_grad_assigns_into_a_parameter():
    lin = core.nn.Linear(2, 2)
    with core.no_grad():
        lin.weight[0] = 0.0
    assert not np.any(lin.weight.numpy()[0]) and not lin.weight.stop_gradient
    lin(core.to_tensor(np.ones((1, 2), np.float32))).sum().backward()
    assert lin.weight.gradient() is not None


def test_tensor_array_item_assignment_is_a_list_item_assignment():
    """``arr[i] = v`` on a static tensor array writes an existing item (negative: from the
    end); an item past the end fails at run time, as a list's IndexError."""
    main = core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, core.static.Program()):
            arr = layers.create_array("float32")
            for k in range(3):
                layers.array_write(layers.fill_constant([2], "float32", k), k, array=arr)
            arr[1] = layers.fill_constant([2], "float32", 10.0)
            arr[-1] = layers.fill_constant([2], "float32", 20.0)
            out = layers.stack([layers.array_read(arr, k) for k in range(3)])
        wrong = core.static.Program()
        with core.static.program_guard(wrong, core.static.Program()):
            bad = layers.create_array("float32")
            layers.array_write(layers.fill_constant([2], "float32", 0.0), 0, array=bad)
            bad[1] = layers.fill_constant([2], "float32", 1.0)
        exe = core.Executor(core.CPUPlace())
        got = exe.run(main, fetch_list=[out])[0]
        np.testing.assert_array_equal(got, [[0, 0], [10, 10], [20, 20]])
    finally:
        core.disable_static()
    with pytest.raises(Exception, match="out of range"):
        exe.run(wrong, fetch_list=[bad])


def test_errors():
    leaf = core.to_tensor(np.zeros(3, np.float32), stop_gradient=False)
    with pytest.raises(RuntimeError, match="leaf that needs a gradient"):
        leaf[0] = 1.0
    x = core.to_tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="out of range for axis 0 with size 2"):
        x[2] = 1.0
    with pytest.raises(ValueError, match=r"value of shape \[2\] cannot be assigned to the "
                                         r"selection of shape \[3\]"):
        x[0] = np.ones(2, np.float32)
    with pytest.raises(TypeError, match="setitem: an index tensor must hold ints or bools"):
        x[np.array([0.5])] = 1.0
    main = core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, core.static.Program()):
            p = layers.create_parameter([2, 3], "float32")
            with pytest.raises(TypeError, match="is persistable"):
                p[0] = 1.0
            arr = layers.create_array("float32")
            with pytest.raises(TypeError, match="takes one int or int Tensor index"):
                arr[0:1] = layers.fill_constant([2], "float32", 1.0)
            d = core.static.data("d", [-1, 3], "float32")
            with pytest.raises(ValueError, match="cannot be assigned"):
                d[0] = np.ones(4, np.float32)
    finally:
        core.disable_static()

"""Eager Tensor semantics: operators and numpy-2 promotion, Python protocol methods, tensor
methods, stop_gradient and the tape (backward, accumulation, retain_graph, no_grad)."""
import operator

import numpy as np
import pytest

import core
from core.ops import registry


def t(a, need_grad=False, dtype=None):
    return core.to_tensor(a, dtype=dtype, stop_gradient=not need_grad)


def same(tensor, want):
    want = np.asarray(want)
    got = tensor.numpy()
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def needs_op(name):
    """Skip while op ``name`` is not registered yet (another family lands it)."""
    try:
        registry.get_op(name)
    except KeyError:
        pytest.skip(f"op '{name}' is not registered yet")


A = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
B = np.array([[2.0, 1.5, -1.0], [0.5, 4.0, 2.5]], np.float32)

BINOPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow]


# -- operators --------------------------------------------------------------------------------

@pytest.mark.parametrize("op", BINOPS, ids=lambda o: o.__name__)
def test_binary_operators_tensor_tensor(op):
    a, b = (np.abs(A), B) if op is operator.pow else (A, B)
    same(op(t(a), t(b)), op(a, b))


@pytest.mark.parametrize("op", BINOPS, ids=lambda o: o.__name__)
def test_binary_operators_with_scalars_both_sides(op):
    a = np.abs(A) + 0.5
    same(op(t(a), 2), op(a, 2))
    same(op(t(a), 1.5), op(a, 1.5))
    same(op(3, t(a)), op(3, a))
    same(op(2.5, t(a)), op(2.5, a))


@pytest.mark.parametrize("op", BINOPS, ids=lambda o: o.__name__)
def test_binary_operators_with_ndarrays_both_sides(op):
    a, b = np.abs(A) + 0.5, np.abs(B) + 0.5
    res = op(t(a), b)
    assert isinstance(res, core.Tensor)
    same(res, op(a, b))
    res = op(b, t(a))
    assert isinstance(res, core.Tensor), "ndarray (op) Tensor must defer to the Tensor"
    same(res, op(b, a))


def test_matmul_operator():
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    same(t(A) @ t(w), A @ w)
    same(t(A) @ w, A @ w)
    res = A @ t(w)
    assert isinstance(res, core.Tensor)
    same(res, A @ w)


def test_unary_minus_abs_and_pos():
    same(-t(A), -A)
    same(-t(np.array([1, -2])), np.array([-1, 2]))
    same(abs(t(A)), np.abs(A))
    x = t(A)
    assert +x is x


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge,
                                operator.eq, operator.ne], ids=lambda o: o.__name__)
def test_comparisons(op):
    same(op(t(A), t(B)), op(A, B))
    same(op(t(A), 1.5), op(A, 1.5))
    same(op(1.5, t(A)), op(1.5, A))
    same(op(t(A), B), op(A, B))
    res = op(B, t(A))  # ndarray on the left defers to the Tensor's reflected comparison
    assert isinstance(res, core.Tensor)
    same(res, op(B, A))


def test_logic_operators_on_bool_tensors():
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    same(t(p) & t(q), p & q)
    same(t(p) | t(q), p | q)
    same(t(p) ^ t(q), p ^ q)
    same(~t(p), ~p)


def test_weak_scalar_promotion():
    assert (t(A) * 2).dtype == np.float32
    assert (2 * t(A)).dtype == np.float32
    assert (t(A) + 1.5).dtype == np.float32
    i = t(np.array([1, 2], np.int64))
    assert (i + 1).dtype == np.int64
    assert (i + 1.5).dtype == np.float64
    assert (i * 2.0).dtype == np.float64
    assert (t(np.array([1, 2], np.int32)) + 1).dtype == np.int32
    assert (i / 2).dtype == np.float64
    assert (t(A) + t(np.ones(3))).dtype == np.float64  # two tensors: strong promotion


def test_augmented_assignment_rebinds():
    x = t(A)
    alias = x
    x += t(B)
    assert x is not alias
    same(alias, A)
    same(x, A + B)
    for op in ("-=", "*=", "/="):
        y = t(A)
        old = y
        y = {"-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv}[op](y, 2.0)
        assert y is not old
        same(old, A)


# -- Python protocols -------------------------------------------------------------------------

def test_scalar_conversions_of_one_element_tensors():
    for shape in [(), (1,), (1, 1), (1, 1, 1)]:
        v = t(np.full(shape, 3, np.int64))
        assert int(v) == 3 and float(v) == 3.0 and bool(v) is True
        assert list(range(v)) == [0, 1, 2]
        assert [10, 20, 30, 40][v] == 40
    assert bool(t([[0.0]])) is False
    assert list(range(t(np.array([4], np.int32)))) == [0, 1, 2, 3]
    assert list(range(t(1), t(np.int64(7)), t(2))) == [1, 3, 5]
    assert t(np.array([2.5], np.float32)).item() == 2.5 and isinstance(t(7).item(), int)
    assert float(t(np.float32(2.5))) == 2.5


def test_bool_of_many_elements_is_an_error():
    with pytest.raises(ValueError, match="exactly one element"):
        bool(t([1, 2]))
    with pytest.raises(ValueError, match="exactly one element"):
        float(t([1.0, 2.0]))
    with pytest.raises(ValueError, match="exactly one element"):
        t([1.0, 2.0]).item()


def test_index_needs_an_integer_tensor():
    with pytest.raises(TypeError, match="cannot be used as an index"):
        range(t([1.5]))


def test_len_array_iter_and_item():
    x = t(A)
    assert len(x) == 2
    with pytest.raises(TypeError, match="len"):
        len(t(1.0))
    arr = np.asarray(x)
    assert arr.dtype == np.float32 and np.array_equal(arr, A)
    assert np.array(x, dtype=np.float64).dtype == np.float64
    assert t(np.array([7])).item() == 7


def test_to_tensor_dtype_defaults():
    assert t(1.0).dtype == np.float32 and t(1.0).shape == []
    assert t([1.0, 2.0]).dtype == np.float32
    assert t(3).dtype == np.int64
    assert t([True]).dtype == np.bool_
    assert t(np.ones(2, np.float64)).dtype == np.float64
    assert t(np.ones(2, np.int32)).dtype == np.int32
    assert t([1, 2], dtype="float64").dtype == np.float64
    src = np.ones(2, np.float32)
    x = t(src)
    src[0] = 5
    assert x.numpy()[0] == 1.0, "to_tensor copies"


def test_to_variable_aliases():
    v = core.to_variable(np.ones((2, 2), np.float64), name="v")
    assert v.dtype == np.float64 and v.name == "v" and v.stop_gradient
    w = core.dygraph.to_variable(np.arange(3))
    assert w.dtype == np.int64
    c = core.to_variable(v)
    assert c._data is not v._data


def test_repr_names_shape_dtype_and_values():
    text = repr(t(np.array([1, 2], np.int32)))
    assert "shape=[2]" in text and "int32" in text and "[1 2]" in text
    assert "stop_gradient=True" in text


# -- methods ----------------------------------------------------------------------------------

def test_reduction_methods():
    x = t(A)
    same(x.sum(), np.asarray(A.sum()))
    assert x.sum().shape == []
    same(x.sum(axis=1), A.sum(1))
    same(x.mean(axis=0, keepdim=True), A.mean(0, keepdims=True))
    same(x.max(), np.asarray(A.max()))
    same(x.min(axis=-1), A.min(-1))


def test_elementwise_methods():
    pos = np.abs(A) + 0.1
    same(t(A).abs(), np.abs(A))
    same(t(A).exp(), np.exp(A))
    same(t(pos).log(), np.log(pos))
    same(t(pos).sqrt(), np.sqrt(pos))
    same(t(A).tanh(), np.tanh(A))
    same(t(A).sigmoid(), (1 / (1 + np.exp(-A))).astype(np.float32))
    same(t(A).relu(), np.maximum(A, 0))
    same(t(A).matmul(t(B), transpose_y=True), A @ B.T)
    same(t(A).cast("int32"), A.astype(np.int32))
    same(t(A).astype(np.float64), A.astype(np.float64))


def test_shape_methods():
    needs_op("reshape")
    same(t(A).reshape([3, 2]), A.reshape(3, 2))
    needs_op("transpose")
    same(t(A).transpose([1, 0]), A.T)
    needs_op("unsqueeze")
    same(t(A).unsqueeze(0), A[None])
    needs_op("squeeze")
    same(t(A[None]).squeeze(), A)
    needs_op("flatten_contiguous_range")
    same(t(np.ones((2, 3, 4), np.float32)).flatten(), np.ones(24, np.float32))
    same(t(np.ones((2, 3, 4), np.float32)).flatten(1), np.ones((2, 12), np.float32))


# -- stop_gradient and the tape ---------------------------------------------------------------

def test_stop_gradient_propagation():
    a, b = t(A), t(B, need_grad=True)
    assert a.stop_gradient and not b.stop_gradient
    assert (a + a).stop_gradient
    assert not (a + b).stop_gradient
    assert (a * 2).exp().stop_gradient
    assert not core.layers.relu(b).stop_gradient
    p = core.Parameter(np.ones(2, np.float32))
    assert p.stop_gradient is False


def test_paddle_stop_gradient_example():
    """Two Linear-like branches; cutting one keeps its weight out of the backward pass."""
    rng = np.random.default_rng(0)
    x1, x2 = t(rng.standard_normal((2, 3)).astype(np.float32)), \
        t(rng.standard_normal((2, 3)).astype(np.float32))
    w1 = core.Parameter(rng.standard_normal((3, 4)).astype(np.float32))
    w2 = core.Parameter(rng.standard_normal((3, 4)).astype(np.float32))
    out1, out2 = x1 @ w1, x2 @ w2
    out1.stop_gradient = True
    loss = (out1 + out2).sum()
    loss.backward()
    assert w1.gradient() is None
    np.testing.assert_array_equal(out1.gradient(), np.zeros((2, 4), np.float32))
    np.testing.assert_allclose(w2.gradient(), x2.numpy().T @ np.ones((2, 4)), rtol=1e-6)


def test_detach():
    x = t(A, need_grad=True)
    y = x * 2
    d = y.detach()
    assert d.stop_gradient and d._node is None
    np.testing.assert_array_equal(d.numpy(), y.numpy())
    (d * x).sum().backward()
    np.testing.assert_allclose(x.gradient(), 2 * A)


def _paddle_seed_branches(cut):
    """The fluid 1.8 ``stop_gradient`` / ``detach`` doc example: three inputs, two Linear
    branches, ``cut(out1)`` applied to the first, concat, backward."""
    rng = np.random.default_rng(1)
    value0 = rng.standard_normal((2, 13)).astype(np.float32)
    value1 = rng.standard_normal((2, 3)).astype(np.float32)
    value2 = rng.standard_normal((2, 5)).astype(np.float32)
    linear = core.nn.Linear(13, 5)
    linear2 = core.nn.Linear(3, 3)
    a, b, c = (core.dygraph.to_variable(v) for v in (value0, value1, value2))
    out1 = cut(linear(a))
    out2 = linear2(b)
    out = core.layers.concat(input=[out1, out2, c], axis=1)
    out.backward()
    return linear, linear2, out1, b


@pytest.mark.parametrize("how", ["stop_gradient", "detach"])
def test_paddle_seed_example_cut_branch_gets_zero_gradient(how):
    def cut(t_):
        if how == "detach":
            return t_.detach()
        t_.stop_gradient = True
        return t_

    linear, linear2, out1, b = _paddle_seed_branches(cut)
    assert linear.weight.gradient() is None and linear.bias.gradient() is None
    np.testing.assert_array_equal(out1.gradient(), np.zeros((2, 5), np.float32))
    np.testing.assert_allclose(linear2.weight.gradient(), b.numpy().T @ np.ones((2, 3)),
                               rtol=1e-6)
    np.testing.assert_array_equal(linear2.bias.gradient(), np.full(3, 2.0, np.float32))


def test_gradient_accumulates_over_two_backward_calls():
    x = t(A, need_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.gradient(), 2 * A + 3, rtol=1e-6)
    fc = core.nn.Linear(3, 2)
    xs = t(A)
    fc(xs).sum().backward()
    once = fc.weight.gradient().copy()
    fc(xs).sum().backward()
    np.testing.assert_allclose(fc.weight.gradient(), 2 * once, rtol=1e-6)


def test_gradient_accumulates_with_retain_graph():
    x = t(A, need_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.gradient(), 2 * A)
    y.backward()
    np.testing.assert_allclose(x.gradient(), 4 * A)


def test_second_backward_through_freed_graph_is_a_clear_error():
    x = t(A, need_grad=True)
    y = (x * 3).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_clear_gradient():
    x = t(A, need_grad=True)
    (x * 2).sum().backward()
    x.clear_gradient()
    np.testing.assert_array_equal(x.gradient(), np.zeros_like(A))
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.gradient(), np.full_like(A, 3))
    x.clear_gradient(set_to_zero=False)
    assert x.gradient() is None


def test_clear_gradient_of_one_input_keeps_the_others():
    x, y = t(A, need_grad=True), t(B, need_grad=True)
    (x + y).backward()
    x.clear_gradient()
    np.testing.assert_array_equal(y.gradient(), np.ones_like(B))


def test_backward_on_non_scalar_seeds_ones():
    x = t(A, need_grad=True)
    (x * 3).backward()
    np.testing.assert_allclose(x.gradient(), np.full_like(A, 3))
    z = t(A, need_grad=True)
    (z * z).backward(t(np.full_like(A, 0.5)))
    np.testing.assert_allclose(z.gradient(), A)


def test_backward_on_stop_gradient_tensor_is_an_error():
    with pytest.raises(RuntimeError, match="stop_gradient"):
        (t(A) * 2).sum().backward()


def test_no_grad_context_manager_and_decorator():
    x = t(A, need_grad=True)
    with core.no_grad():
        y = x * 2 + 1
    assert y.stop_gradient and y._node is None
    assert not (x * 2).stop_gradient, "the previous state comes back"

    @core.no_grad()
    def f(v):
        return v.exp()

    assert f(x).stop_gradient
    assert not x.exp().stop_gradient

    @core.no_grad  # fluid 1.8 spelling: the bare decorator
    def g(v):
        return v * 3

    assert g.__name__ == "g" and g(x).stop_gradient
    assert core.dygraph.no_grad is core.no_grad and core.imperative.no_grad is core.no_grad
    assert not (x * 3).stop_gradient


def test_operators_record_correct_gradients():
    x, y = t(A, need_grad=True), t(B, need_grad=True)
    ((x * y - x / y) ** 2).sum().backward()
    inner = A * B - A / B
    np.testing.assert_allclose(x.gradient(), 2 * inner * (B - 1 / B), rtol=1e-5)
    np.testing.assert_allclose(y.gradient(), 2 * inner * (A + A / B ** 2), rtol=1e-5)
    w = t(np.ones((3, 2), np.float32), need_grad=True)
    (t(A) @ w).sum().backward()
    np.testing.assert_allclose(w.gradient(), A.sum(0)[:, None] * np.ones((3, 2)), rtol=1e-6)
    n = t(A, need_grad=True)
    (-n).sum().backward()
    np.testing.assert_array_equal(n.gradient(), -np.ones_like(A))


def test_unsupported_constants_and_integer_backward_give_clear_errors():
    x = core.to_tensor(np.ones(3, np.float32), stop_gradient=False)
    with pytest.raises(TypeError, match=r"elementwise_mul.*complex"):
        x * 1j
    with pytest.raises(TypeError, match=r"elementwise_add.*input 'Y' got a str"):
        x + "a"
    with pytest.raises(TypeError, match=r"elementwise_add.*complex128"):
        x + np.ones(3, np.complex128)
    n = core.to_tensor(np.arange(3), stop_gradient=False)
    with pytest.raises(TypeError, match=r"backward\(\) needs a floating-point tensor, got int64"):
        (n * 2).backward()


def test_data_of_is_the_backing_array_and_rebind_data_checks_its_argument():
    from core.tensor import data_of, rebind_data

    t = core.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    arr = data_of(t)
    arr[0, 0] = 7.0  # not a copy: the tensor sees it
    assert t.numpy()[0, 0] == 7.0
    new = np.ones((2, 3), "float32")
    rebind_data(t, new)
    assert data_of(t) is new
    with pytest.raises(ValueError, match="float64"):
        rebind_data(t, np.ones((2, 3), "float64"))
    # a plain tensor (a buffer an assign replaced) takes the new shape; a Parameter keeps its
    p = core.Parameter(np.zeros((2, 3), "float32"), name="rebind_p")
    with pytest.raises(ValueError, match=r"float32\[3, 2\].*float32\[2, 3\]"):
        rebind_data(p, np.ones((3, 2), "float32"))
    wider = np.ones((3, 2), "float32")
    rebind_data(t, wider)
    assert data_of(t) is wider and t.shape == [3, 2]

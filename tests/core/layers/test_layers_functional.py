"""The functional API of the math, activation, reduce and creation families (eager mode):
each function's happy path against numpy, and each argument error naming the argument."""
import math

import numpy as np
import pytest

import core
from core import layers as L
from core.ops.activation import erf

r = np.random.default_rng(10)


def t(a, need_grad=False):
    return core.to_tensor(np.asarray(a), stop_gradient=not need_grad)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def close(tensor, want, **kw):
    got = tensor.numpy()
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), **kw)


# -- math -------------------------------------------------------------------------------------

BINARY = [("elementwise_add", np.add), ("elementwise_sub", np.subtract),
          ("elementwise_mul", np.multiply), ("elementwise_div", np.true_divide),
          ("elementwise_max", np.maximum), ("elementwise_min", np.minimum),
          ("elementwise_pow", np.power), ("elementwise_mod", np.mod),
          ("elementwise_floordiv", np.floor_divide)]


@pytest.mark.parametrize("name,fn", BINARY)
def test_elementwise(name, fn):
    x, y = f32(2, 3, lo=0.5, hi=2), f32(2, 3, lo=0.5, hi=2)
    close(getattr(L, name)(t(x), t(y)), fn(x, y), rtol=1e-6)
    close(getattr(L, name)(t(x), 1.5), fn(x, np.float32(1.5)), rtol=1e-6)


def test_pow_of_a_factor():
    # fluid.layers.pow(x, factor): a Python factor keeps x's dtype; a bad one names 'factor'
    x = f32(2, 3, lo=0.5, hi=2)
    out = L.pow(t(x), 2)
    assert out.dtype == np.float32
    close(out, x ** 2, rtol=1e-6)
    close(L.pow(t(x), factor=0.5), np.sqrt(x), rtol=1e-6)
    with pytest.raises(TypeError, match="factor"):
        L.pow(t(x), "2")


def test_elementwise_axis_and_act():
    x, y = f32(2, 3, 4), f32(3)
    close(L.elementwise_add(t(x), t(y), axis=1), x + y[None, :, None], rtol=1e-6)
    close(L.elementwise_sub(t(x), t(y), axis=1, act="relu"),
          np.maximum(x - y[None, :, None], 0), rtol=1e-6)
    close(L.elementwise_mul(t(x), 2.0), x * 2, rtol=1e-6)


def test_elementwise_errors():
    with pytest.raises(TypeError, match=r"elementwise_add\(\).*'x'"):
        L.elementwise_add(np.ones(2), t([1.0]))
    with pytest.raises(TypeError, match=r"elementwise_add\(\).*'y'"):
        L.elementwise_add(t([1.0]), "a")
    with pytest.raises(TypeError, match=r"'axis'"):
        L.elementwise_add(t([1.0]), t([1.0]), axis=1.5)
    with pytest.raises(ValueError, match=r"'act'.*'relu'"):
        L.elementwise_add(t([1.0]), t([1.0]), act="nope")


@pytest.mark.parametrize("call,words", [
    (lambda: t(f32(2, 3)) + t(f32(4, 5)), ["elementwise_add", "[2, 3]", "[4, 5]",
                                           "do not broadcast"]),
    (lambda: L.elementwise_mul(t(f32(2, 3, 4)), t(f32(5)), axis=1),
     ["elementwise_mul", "[2, 3, 4]", "[5]", "axis=1", "do not broadcast"]),
    (lambda: t(f32(2, 3)) < t(f32(3, 2)), ["less_than", "[2, 3]", "[3, 2]"]),
    (lambda: t(f32(2, 3)) @ t(f32(4, 5)), ["matmul", "[2, 3]", "[4, 5]", "3 != 4"]),
    (lambda: L.square_error_cost(t(f32(2, 3)), t(f32(2, 4))), ["[2, 3]", "[2, 4]"]),
])
def test_shape_mismatch_errors_name_the_op_and_both_shapes(call, words):
    with pytest.raises(core.errors.OpError) as e:
        call()
    for w in words:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"
    assert "gufunc" not in str(e.value)  # numpy's own wording is replaced, not appended


@pytest.mark.parametrize("x,y", [((2, 3, 4), (3,)), ((4,), (2, 3, 4))])
def test_an_axis_that_does_not_fit_is_refused_at_the_call(x, y):
    with pytest.raises(ValueError) as e:
        L.elementwise_add(t(f32(*x)), t(f32(*y)), axis=3)
    for w in ["elementwise_add", "axis=3", "[0, 2]", str(list(x)), str(list(y))]:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"


def test_static_inference_rejects_an_axis_that_does_not_fit():
    from core.ops._shapes import ShapeError
    from core.ops.registry import Meta, get_op

    op = get_op("elementwise_add")
    x, y = Meta((2, 3, 4), np.dtype("float32")), Meta((3,), np.dtype("float32"))
    assert op.infer(x, y, axis=1).shape == (2, 3, 4)
    with pytest.raises(ShapeError, match=r"axis=3.*\[0, 2\]"):
        op.infer(x, y, axis=3)


def test_scale():
    x = f32(2, 3)
    close(L.scale(t(x), scale=2.0, bias=1.0), x * 2 + 1, rtol=1e-6)
    close(L.scale(t(x), scale=2.0, bias=1.0, bias_after_scale=False), (x + 1) * 2, rtol=1e-6)
    close(L.scale(t(x), 3.0, act="tanh"), np.tanh(3 * x), rtol=1e-5)
    close(L.scale(t(np.arange(3)), scale=2.0), np.arange(3) * 2)
    with pytest.raises(TypeError, match=r"scale\(\).*'scale'"):
        L.scale(t(x), scale="2")
    with pytest.raises(TypeError, match=r"scale\(\).*'bias_after_scale'"):
        L.scale(t(x), bias_after_scale=1)


UNARY = [("abs", np.abs, None), ("exp", np.exp, None), ("log", np.log, (0.1, 2)),
         ("sqrt", np.sqrt, (0.1, 2)), ("rsqrt", lambda a: 1 / np.sqrt(a), (0.1, 2)),
         ("square", np.square, None), ("sign", np.sign, None), ("floor", np.floor, None),
         ("ceil", np.ceil, None), ("sin", np.sin, None), ("cos", np.cos, None),
         ("round", lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5), None)]


@pytest.mark.parametrize("name,fn,rng", UNARY)
def test_unary(name, fn, rng):
    x = f32(2, 3, lo=-3, hi=3) if rng is None else f32(2, 3, lo=rng[0], hi=rng[1])
    close(getattr(L, name)(t(x)), fn(x).astype(np.float32), rtol=1e-6)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'x'"):
        getattr(L, name)([1.0, 2.0])


def test_round_is_half_away_from_zero():
    close(L.round(t(np.array([-2.5, -0.5, 0.5, 1.5, 2.5]))), np.array([-3.0, -1, 1, 2, 3]))


def test_clip():
    x = f32(2, 3, lo=-2, hi=2)
    close(L.clip(t(x), -0.5, 0.5), np.clip(x, -0.5, 0.5))
    with pytest.raises(ValueError, match=r"clip\(\).*'min'.*'max'"):
        L.clip(t(x), 1.0, -1.0)
    with pytest.raises(TypeError, match=r"clip\(\).*'max'"):
        L.clip(t(x), 0.0, None)


def test_sums():
    a, b = f32(2, 3), f32(2, 3)
    close(L.sums([t(a), t(b), t(a)]), a + b + a, rtol=1e-6)
    out = t(np.zeros((2, 3), np.float32))
    res = L.sums([t(a), t(b)], out=out)
    assert res is out
    close(out, a + b, rtol=1e-6)
    with pytest.raises(ValueError, match=r"sums\(\).*'input'"):
        L.sums([])
    with pytest.raises(TypeError, match=r"sums\(\).*'input\[1\]'"):
        L.sums([t(a), a])


def test_matmul():
    x, y = f32(2, 3, 4), f32(4, 5)
    close(L.matmul(t(x), t(y)), x @ y, rtol=1e-5)
    close(L.matmul(t(x), t(y.T), transpose_y=True, alpha=2.0), 2 * (x @ y), rtol=1e-5)
    close(L.matmul(t(x[0]), t(x[1]), transpose_x=True), x[0].T @ x[1], rtol=1e-5)
    v = f32(4)
    close(L.matmul(t(v), t(v)), np.asarray(v @ v), rtol=1e-5)
    with pytest.raises(ValueError, match=r"matmul\(\).*'x' and 'y'"):
        L.matmul(t(x), t(f32(3, 5)))
    with pytest.raises(TypeError, match=r"matmul\(\).*'transpose_x'"):
        L.matmul(t(x), t(y), transpose_x="yes")
    with pytest.raises(ValueError, match=r"matmul\(\).*'y'.*rank"):
        L.matmul(t(x), t(np.float32(1.0)))


def test_mul():
    x, y = f32(2, 3, 4), f32(12, 5)
    close(L.mul(t(x), t(y)), x.reshape(2, 12) @ y, rtol=1e-5)
    w = f32(4, 2)
    close(L.mul(t(x), t(w), x_num_col_dims=2), (x.reshape(6, 4) @ w).reshape(2, 3, 2),
          rtol=1e-5)
    with pytest.raises(ValueError, match=r"mul\(\).*columns.*rows"):
        L.mul(t(x), t(f32(5, 2)))
    with pytest.raises(ValueError, match=r"mul\(\): argument 'x_num_col_dims'"):
        L.mul(t(x), t(y), x_num_col_dims=3)


def test_cast():
    x = f32(2, 3, lo=-3, hi=3)
    close(L.cast(t(x), "int32"), x.astype(np.int32))
    close(L.cast(t(x), np.float64), x.astype(np.float64))
    with pytest.raises(TypeError, match=r"cast\(\): argument 'dtype'"):
        L.cast(t(x), "complex64")


def test_cast_gradient_is_cast_back():
    x = t(f32(3), need_grad=True)
    L.reduce_sum(L.scale(L.cast(x, "float64"), 3.0)).backward()
    assert x.gradient().dtype == np.float32
    np.testing.assert_allclose(x.gradient(), [3.0, 3.0, 3.0])


def test_isfinite_and_has_nan():
    close(L.isfinite(t([1.0, 2.0])), np.array([True]))
    close(L.isfinite(t([1.0, np.inf])), np.array([False]))
    close(L.has_nan(t([1.0, np.inf])), np.array([False]))
    close(L.has_nan(t([[np.nan], [1.0]])), np.array([True]))
    with pytest.raises(TypeError, match=r"isfinite\(\): argument 'x'"):
        L.isfinite(1.0)


COMPARE = [("less_than", np.less), ("less_equal", np.less_equal),
           ("greater_than", np.greater), ("greater_equal", np.greater_equal),
           ("equal", np.equal), ("not_equal", np.not_equal)]


@pytest.mark.parametrize("name,fn", COMPARE)
def test_compare(name, fn):
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([2.0, 2.0, 2.0], np.float32)
    close(getattr(L, name)(t(x), t(y)), fn(x, y))
    close(getattr(L, name)(t(x), 2.0), fn(x, 2.0))
    cond = t(np.zeros(3, bool))
    assert getattr(L, name)(t(x), t(y), cond=cond) is cond
    close(cond, fn(x, y))
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'cond'"):
        getattr(L, name)(t(x), t(y), cond=[1])


LOGIC = [("logical_and", np.logical_and), ("logical_or", np.logical_or),
         ("logical_xor", np.logical_xor)]


@pytest.mark.parametrize("name,fn", LOGIC)
def test_logical(name, fn):
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    close(getattr(L, name)(t(a), t(b)), fn(a, b))
    out = t(np.zeros(4, bool))
    assert getattr(L, name)(t(a), t(b), out=out) is out
    close(out, fn(a, b))
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'y' has dtype float32"):
        getattr(L, name)(t(a), t(f32(4)))


def test_logical_not():
    a = np.array([True, False])
    close(L.logical_not(t(a)), ~a)
    with pytest.raises(TypeError, match=r"logical_not\(\): argument 'x'"):
        L.logical_not(t([1, 0]))


# -- activation -------------------------------------------------------------------------------

def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


ACTS = [("relu", lambda x: np.maximum(x, 0), {}),
        ("relu6", lambda x: np.clip(x, 0, 2.0), {"threshold": 2.0}),
        ("sigmoid", _np_sigmoid, {}),
        ("tanh", np.tanh, {}),
        ("leaky_relu", lambda x: np.where(x > 0, x, 0.1 * x), {"alpha": 0.1}),
        ("elu", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), {"alpha": 0.5}),
        ("gelu", lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))), {}),
        ("gelu", lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                  (x + 0.044715 * x ** 3))),
         {"approximate": True}),
        ("softplus", lambda x: np.log1p(np.exp(x)), {})]


@pytest.mark.parametrize("name,fn,kw", ACTS)
def test_activation(name, fn, kw):
    x = f32(2, 5, lo=-4, hi=4)
    close(getattr(L, name)(t(x), **kw), fn(x.astype(np.float64)).astype(np.float32),
          rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'x' has dtype int64"):
        getattr(L, name)(t([1, 2]))


@pytest.mark.parametrize("name,arg", [("relu6", "threshold"), ("leaky_relu", "alpha"),
                                      ("elu", "alpha"), ("gelu", "approximate")])
def test_activation_attr_errors(name, arg):
    with pytest.raises(TypeError, match=rf"{name}\(\): argument '{arg}'"):
        getattr(L, name)(t([1.0]), **{arg: "x"})


def test_erf_accuracy():
    xs = np.concatenate([np.linspace(-7, 7, 4001), [0.0, 1e-300, -1e-8, 30.0, -1e5]])
    want = np.array([math.erf(v) for v in xs])
    assert np.max(np.abs(erf(np, xs) - want)) < 5e-15
    pos = np.linspace(0, 26, 2001)
    erfc = np.array([math.erfc(v) for v in pos])
    np.testing.assert_allclose(1 - erf(np, pos)[pos < 0.5], erfc[pos < 0.5], rtol=1e-14)


def test_softmax_and_log_softmax():
    x = f32(2, 3, 4)
    e = np.exp(x - x.max(1, keepdims=True))
    close(L.softmax(t(x), axis=1), (e / e.sum(1, keepdims=True)).astype(np.float32), rtol=1e-5)
    e = np.exp(x - x.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    close(L.softmax(t(x)), sm.astype(np.float32), rtol=1e-5)
    close(L.log_softmax(t(x), axis=-1), np.log(sm).astype(np.float32), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"softmax\(\): argument 'axis'=3 is out of range"):
        L.softmax(t(x), axis=3)
    with pytest.raises(TypeError, match=r"log_softmax\(\): argument 'axis'"):
        L.log_softmax(t(x), axis=1.0)
    with pytest.raises(TypeError, match=r"softmax\(\): argument 'input'"):
        L.softmax(x)


def test_activation_gradients_through_the_tape():
    x = t(f32(2, 3, lo=-2, hi=2), need_grad=True)
    y = L.sigmoid(x)
    L.reduce_sum(y).backward()
    s = y.numpy()
    np.testing.assert_allclose(x.gradient(), s * (1 - s), rtol=1e-5)


# -- reduce -----------------------------------------------------------------------------------

REDUCE = [("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max),
          ("reduce_min", np.min), ("reduce_prod", np.prod)]


@pytest.mark.parametrize("name,fn", REDUCE)
def test_reduce(name, fn):
    x = f32(2, 3, 4, lo=0.5, hi=1.5)
    f = getattr(L, name)
    close(f(t(x)), np.asarray(fn(x)), rtol=1e-5)
    assert f(t(x)).shape == []
    close(f(t(x), dim=1), fn(x, axis=1), rtol=1e-5)
    close(f(t(x), dim=-1, keep_dim=True), fn(x, axis=-1, keepdims=True), rtol=1e-5)
    close(f(t(x), dim=[0, 2]), fn(x, axis=(0, 2)), rtol=1e-5)
    close(f(t(x), dim=[0, 1, 2], keep_dim=True), fn(x, keepdims=True), rtol=1e-5)
    with pytest.raises(ValueError, match=rf"{name}\(\): argument 'dim'=3 is out of range"):
        f(t(x), dim=3)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'dim'"):
        f(t(x), dim=[0.5])
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'keep_dim'"):
        f(t(x), keep_dim="no")
    with pytest.raises(TypeError, match=rf"{name}\(\): argument 'input'"):
        f(x)


def test_reduce_gradients():
    a = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, -1.0]])
    x = t(a, need_grad=True)
    L.reduce_prod(x, dim=1).backward()
    np.testing.assert_allclose(x.gradient(), [[0.0, 2.0, 0.0], [-4.0, -3.0, 12.0]])
    x = t(a, need_grad=True)
    L.reduce_max(x, dim=0).backward()
    np.testing.assert_allclose(x.gradient(), [[0, 0, 1], [1, 1, 0]])
    x = t(a, need_grad=True)
    L.mean(x).backward()
    np.testing.assert_allclose(x.gradient(), np.full((2, 3), 1 / 6))


def test_mean():
    x = f32(2, 3)
    out = L.mean(t(x))
    assert out.shape == []
    close(out, np.asarray(x.mean()), rtol=1e-6)
    with pytest.raises(TypeError, match=r"mean\(\): argument 'x'"):
        L.mean([1.0])


def test_argmax_argmin():
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32)
    close(L.argmax(t(x)), np.array([1, 0, 1]))
    close(L.argmax(t(x), axis=-1), np.array([1, 0]))
    close(L.argmin(t(x), axis=1), np.array([0, 1]))
    with pytest.raises(ValueError, match=r"argmax\(\): argument 'axis'=2 is out of range"):
        L.argmax(t(x), axis=2)
    with pytest.raises(TypeError, match=r"argmin\(\): argument 'axis'"):
        L.argmin(t(x), axis=None)


def test_topk():
    x = np.array([[1.0, 5.0, 2.0, 4.0], [7.0, 0.0, 3.0, 6.0]], np.float32)
    v, i = L.topk(t(x), 2)
    close(v, np.array([[5.0, 4.0], [7.0, 6.0]], np.float32))
    close(i, np.array([[1, 3], [0, 3]]))
    xt = t(x, need_grad=True)
    v, i = L.topk(xt, 2)
    assert i.stop_gradient and not v.stop_gradient
    L.reduce_sum(v * t(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))).backward()
    np.testing.assert_allclose(xt.gradient(), [[0, 1, 0, 2], [3, 0, 0, 4]])
    with pytest.raises(ValueError, match=r"topk\(\): argument 'k'"):
        L.topk(t(x), 5)
    with pytest.raises(TypeError, match=r"topk\(\): argument 'k'"):
        L.topk(t(x), 1.0)


# -- creation ---------------------------------------------------------------------------------

def test_fill_constant_ones_zeros():
    close(L.fill_constant([2, 3], "float32", 1.5), np.full((2, 3), 1.5, np.float32))
    close(L.fill_constant((), "int64", 4), np.array(4))
    close(L.fill_constant([2], np.int32, 4), np.full(2, 4, np.int32))
    close(L.ones([2], "float64"), np.ones(2))
    close(L.zeros([1, 2], "bool"), np.zeros((1, 2), bool))
    out = t(np.zeros(3, np.float32))
    assert L.fill_constant([3], "float32", 2.0, out=out) is out
    close(out, np.full(3, 2.0, np.float32))


def test_fill_constant_of_a_static_value():
    # PaddlePaddle's ValueTensor: the value a one-element Variable holds when the program runs
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            v = core.static.data("fc_value", [1], "int64")
            outs = [L.fill_constant([2, 3], "float32", v), L.fill_constant([], "int32", v * 2)]
            with pytest.raises(ValueError, match="'value' must be a number or a one-element"):
                L.fill_constant([2], "float32", L.fill_constant([2], "int64", 1))
        finally:
            core.disable_static()
    exe = core.Executor(core.CPUPlace())
    a, b = exe.run(main, feed={"fc_value": np.array([3], np.int64)}, fetch_list=outs)
    assert (a.dtype, a.shape, b.dtype, b.shape) == (np.float32, (2, 3), np.int32, ())
    np.testing.assert_array_equal(a, np.full((2, 3), 3.0))
    assert int(b) == 6


@pytest.mark.parametrize("shape,err,match", [
    (3, TypeError, "must be a list of ints"),
    ([2, 1.5], TypeError, "must hold ints"),
    ([2, -1], ValueError, "must hold non-negative"),
    ([True], TypeError, "must hold ints"),
])
def test_fill_constant_shape_errors(shape, err, match):
    with pytest.raises(err, match=rf"fill_constant\(\): argument 'shape' {match}"):
        L.fill_constant(shape, "float32", 1.0)


def test_fill_constant_other_errors():
    with pytest.raises(TypeError, match=r"fill_constant\(\): argument 'dtype'"):
        L.fill_constant([2], "float128", 1.0)
    with pytest.raises(TypeError, match=r"fill_constant\(\): argument 'value'"):
        L.fill_constant([2], "float32", "one")
    with pytest.raises(TypeError, match=r"fill_constant\(\): argument 'out'"):
        L.fill_constant([2], "float32", 1.0, out=np.zeros(2))


def test_ones_like_zeros_like():
    x = t(np.arange(6, dtype=np.int32).reshape(2, 3))
    close(L.ones_like(x), np.ones((2, 3), np.int32))
    close(L.zeros_like(x), np.zeros((2, 3), np.int32))
    out = t(np.full((2, 3), 9, np.int32))
    assert L.zeros_like(x, out=out) is out
    close(out, np.zeros((2, 3), np.int32))
    with pytest.raises(TypeError, match=r"ones_like\(\): argument 'x'"):
        L.ones_like(np.ones(2))


def test_assign():
    a = f32(2, 3)
    close(L.assign(t(a)), a)
    close(L.assign(a.astype(np.float64)), a.astype(np.float64))
    close(L.assign([[1.0, 2.0]]), np.array([[1.0, 2.0]], np.float32))
    close(L.assign(3), np.array(3))
    close(L.assign([True, False]), np.array([True, False]))
    out = t(np.zeros(2, np.float32))
    assert L.assign(np.array([1.0, 2.0], np.float32), output=out) is out
    close(out, np.array([1.0, 2.0], np.float32))


def test_assign_is_a_differentiable_copy():
    x = t(f32(3), need_grad=True)
    y = L.assign(x)
    assert not y.stop_gradient and y._data is not x._data
    L.reduce_sum(L.scale(y, 2.0)).backward()
    np.testing.assert_allclose(x.gradient(), [2.0, 2.0, 2.0])


def test_assign_errors():
    with pytest.raises(TypeError, match=r"assign\(\): argument 'input'"):
        L.assign("text")
    with pytest.raises(TypeError, match=r"assign\(\): argument 'input'"):
        L.assign([[1.0], [2.0, 3.0]])
    with pytest.raises(TypeError, match=r"assign\(\): argument 'input'"):
        L.assign(np.array([1 + 2j]))
    with pytest.raises(TypeError, match=r"assign\(\): argument 'output'"):
        L.assign([1.0], output=[0.0])


def test_range_arange_linspace():
    close(L.range(0, 5, 2, "int32"), np.arange(0, 5, 2, dtype=np.int32))
    close(L.range(1.0, 0.0, -0.25, "float32"), np.arange(1.0, 0.0, -0.25, dtype=np.float32))
    close(L.arange(4), np.arange(4))
    close(L.arange(1, 2, 0.5), np.array([1.0, 1.5], np.float32))
    close(L.arange(2, 5, dtype="float64"), np.arange(2.0, 5.0))
    close(L.arange(t(np.array(3))), np.arange(3))
    close(L.linspace(0, 1, 5), np.linspace(0, 1, 5).astype(np.float32))
    close(L.linspace(-1, 1, 3, "float64"), np.array([-1.0, 0.0, 1.0]))


def test_range_errors():
    with pytest.raises(ValueError, match=r"range\(\): argument 'step'"):
        L.range(0, 5, 0, "int64")
    with pytest.raises(TypeError, match=r"arange\(\): argument 'end'"):
        L.arange(0, "5")
    with pytest.raises(TypeError, match=r"range\(\): argument 'dtype'"):
        L.range(0, 5, 1, "str")
    with pytest.raises(ValueError, match=r"linspace\(\): argument 'num'"):
        L.linspace(0, 1, 0)
    with pytest.raises(TypeError, match=r"linspace\(\): argument 'start'"):
        L.linspace(None, 1, 2)


def test_uniform_random():
    a = L.uniform_random([200, 50], min=-2.0, max=3.0, seed=5)
    assert a.dtype == np.float32 and a.shape == [200, 50]
    v = a.numpy()
    assert v.min() >= -2.0 and v.max() < 3.0
    assert abs(v.mean() - 0.5) < 0.05
    np.testing.assert_array_equal(v, L.uniform_random([200, 50], min=-2.0, max=3.0,
                                                      seed=5).numpy())
    core.seed(42)
    first = L.uniform_random([4], dtype="float64").numpy()
    second = L.uniform_random([4], dtype="float64").numpy()
    assert not np.array_equal(first, second)
    core.seed(42)
    np.testing.assert_array_equal(first, L.uniform_random([4], dtype="float64").numpy())


def test_gaussian_random():
    g = L.gaussian_random([100, 100], mean=1.0, std=2.0, seed=3, dtype="float64")
    assert g.dtype == np.float64
    v = g.numpy()
    assert abs(v.mean() - 1.0) < 0.1 and abs(v.std() - 2.0) < 0.1


@pytest.mark.parametrize("call,match", [
    (lambda: L.uniform_random([2], dtype="int32"), r"uniform_random\(\): argument 'dtype'"),
    (lambda: L.uniform_random([2], min=1.0, max=0.0), r"uniform_random\(\): argument 'min'"),
    (lambda: L.uniform_random([2], seed=1.5), r"uniform_random\(\): argument 'seed'"),
    (lambda: L.uniform_random("2"), r"uniform_random\(\): argument 'shape'"),
    (lambda: L.gaussian_random([2], std=-1.0), r"gaussian_random\(\): argument 'std'"),
    (lambda: L.gaussian_random([2], mean="0"), r"gaussian_random\(\): argument 'mean'"),
    (lambda: L.gaussian_random([2], seed=-1), r"gaussian_random\(\): argument 'seed'"),
])
def test_random_errors(call, match):
    with pytest.raises((TypeError, ValueError), match=match):
        call()


def test_truncated_gaussian_stays_within_two_std():
    from core.dispatch import apply

    v = apply("truncated_gaussian_random", [], {"shape": [100, 100], "dtype": "float32",
                                                 "mean": 1.0, "std": 0.5, "seed": 9}).numpy()
    assert v.dtype == np.float32
    assert v.min() >= 0.0 and v.max() <= 2.0
    assert abs(v.mean() - 1.0) < 0.02


def test_create_parameter_and_global_var_both_modes():
    layers = L
    p = layers.create_parameter([2, 3], "float32", name="cp_eager_w")
    assert isinstance(p, core.Parameter) and p.shape == [2, 3] and not p.stop_gradient
    assert p.name == "cp_eager_w"
    g = layers.create_global_var([2], 1.5, "float32", persistable=True)
    np.testing.assert_array_equal(g.numpy(), [1.5, 1.5])
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            sp = layers.create_parameter([4], "float32", name="cp_static_w",
                                         default_initializer=core.initializer.Constant(2.0))
            sg = layers.create_global_var([3], 7, "int64", persistable=True, name="cp_gv")
        finally:
            core.disable_static()
    assert sp.name in main.global_block().vars and sg.name in main.global_block().vars
    scope = core.Scope()
    exe = core.Executor(core.CPUPlace())
    exe.run(startup, scope=scope)
    np.testing.assert_array_equal(np.asarray(scope.find_var("cp_static_w").get_tensor()), [2.0] * 4)
    np.testing.assert_array_equal(np.asarray(scope.find_var("cp_gv").get_tensor()), [7, 7, 7])
    with pytest.raises(ValueError, match="attr"):
        layers.create_parameter([2], "float32", attr=False)


def test_the_kernel_itself_refuses_an_axis_that_does_not_fit():
    # the op called directly (no layer function in front): eager broadcasting of [4] at
    # axis=5 against [3, 4] would give a [1, 1, 1, 1, 3, 4] result
    from core.dispatch import apply
    from core.errors import OpError

    with pytest.raises(OpError, match=r"axis=5.*\[0, 1\]"):
        apply("elementwise_add", [t(f32(3, 4)), t(f32(4))], {"axis": 5})
    out = apply("elementwise_add", [t(f32(3, 4)), t(f32(3))], {"axis": 0})
    assert out.shape == [3, 4]

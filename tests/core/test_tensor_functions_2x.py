"""The 2.x tensor functions of core.tensor_linalg, core.tensor_manipulation and the elementary
functions (``paddle.log1p``, ``paddle.diagonal``, ``paddle.roll``, ``paddle.unique``, ...):
numpy as the oracle, static equals eager, numeric gradients, the Tensor / Variable method
spelling, converted code, and argument errors."""
import math

import numpy as np
import pytest

import core
import dy2static as paddle
from translator import declarative

RNG = np.random.RandomState(3)
X = RNG.permutation(24).reshape(2, 3, 4).astype("float64") / 7 - 1.5 + 0.013
M = RNG.rand(3, 3) + 3 * np.eye(3)
S = RNG.rand(3, 4)
P = RNG.rand(2, 3) * 0.8 + 0.1  # in (0, 1): every elementary function is smooth there
V3 = RNG.rand(4, 3)
W3 = RNG.rand(4, 3)
SPECIAL = np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]])
TIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0]])


def _i(a):
    return paddle.to_tensor(np.asarray(a, "int64"))


def _erf(a):
    return np.vectorize(math.erf)(a)


# (name, function of tensors, numpy reference, inputs, differentiable)
CASES = [
    ("log1p", paddle.log1p, np.log1p, (P,), True),
    ("expm1", paddle.expm1, np.expm1, (P,), True),
    ("log2", paddle.log2, np.log2, (P,), True),
    ("log10", paddle.log10, np.log10, (P,), True),
    ("sinh", paddle.sinh, np.sinh, (X,), True),
    ("cosh", paddle.cosh, np.cosh, (X,), True),
    ("asin", paddle.asin, np.arcsin, (P,), True),
    ("acos", paddle.acos, np.arccos, (P,), True),
    ("atan", paddle.atan, np.arctan, (X,), True),
    ("erf", paddle.erf, _erf, (X,), True),
    ("isnan", paddle.isnan, np.isnan, (SPECIAL,), False),
    ("isinf", paddle.isinf, np.isinf, (SPECIAL,), False),
    ("diagonal", paddle.diagonal, lambda m: np.diagonal(m).copy(), (M,), True),
    ("diagonal offset axes", lambda x: paddle.diagonal(x, offset=1, axis1=2, axis2=1),
     lambda x: np.diagonal(x, 1, 2, 1).copy(), (X,), True),
    ("diagonal negative offset", lambda s: paddle.diagonal(s, offset=-1),
     lambda s: np.diagonal(s, -1).copy(), (S,), True),
    ("trace", paddle.trace, np.trace, (M,), True),
    ("trace batched", lambda x: paddle.trace(x, offset=1, axis1=1, axis2=2),
     lambda x: np.trace(x, 1, 1, 2), (X,), True),
    ("diag vector", lambda s: paddle.diag(s[0], offset=-1, padding_value=2.0),
     lambda s: np.diag(s[0], -1) + 2.0 * (np.diag(np.ones(4), -1) == 0), (S,), True),
    ("diag matrix", lambda s: paddle.diag(s, offset=1), lambda s: np.diag(s, 1), (S,), True),
    ("kron", paddle.kron, np.kron, (M, S), True),
    ("kron ranks", lambda x, s: paddle.kron(x, s[0]), lambda x, s: np.kron(x, s[0]), (X, S),
     True),
    ("cross", paddle.cross, lambda a, b: np.cross(a, b), (V3, W3), True),
    ("cross axis 0", lambda a, b: paddle.cross(a[:3], b[:3], axis=0),
     lambda a, b: np.cross(a[:3], b[:3], axis=0), (V3, W3), True),
    ("inverse", paddle.inverse, np.linalg.inv, (M,), True),
    ("einsum", lambda a, b: paddle.einsum("ij,jk->ik", a, b), lambda a, b: a @ b, (M, S), True),
    ("einsum implicit", lambda a, b: paddle.einsum("ij,jk", a, b), lambda a, b: a @ b, (M, S),
     True),
    ("amax", lambda t: paddle.amax(t, axis=1), lambda t: t.max(1), (TIES,), True),
    ("amin all keepdim", lambda t: paddle.amin(t, keepdim=True),
     lambda t: t.min(keepdims=True), (TIES,), True),
    ("roll", lambda x: paddle.roll(x, [1, -2], [0, 2]),
     lambda x: np.roll(x, [1, -2], [0, 2]), (X,), True),
    ("roll flat", lambda x: paddle.roll(x, 5), lambda x: np.roll(x, 5), (X,), True),
    ("unbind", lambda x: paddle.unbind(x, axis=1)[2], lambda x: x[:, 2], (X,), True),
    ("meshgrid", lambda s: paddle.meshgrid(s[0], s[1, :2])[1],
     lambda s: np.meshgrid(s[0], s[1, :2], indexing="ij")[1], (S,), True),
    ("reverse", lambda x: paddle.reverse(x, [1]), lambda x: x[:, ::-1], (X,), True),
    ("gather_nd", lambda x: paddle.gather_nd(x, _i([[1, 2], [0, 0]])),
     lambda x: x[[1, 0], [2, 0]], (X,), True),
    ("scatter_nd_add", lambda x, s: paddle.scatter_nd_add(x, _i([[1, 2], [0, 0], [1, 2]]),
                                                          paddle.concat([s[:2], s[1:2]])),
     lambda x, s: _scatter_nd_add_ref(x, [[1, 2], [0, 0], [1, 2]], s[[0, 1, 1]]), (X, S), True),
    ("scatter_nd", lambda s: paddle.scatter_nd(_i([[1], [3], [1]]), s, [5, 4]),
     lambda s: _scatter_nd_add_ref(np.zeros((5, 4)), [[1], [3], [1]], s), (S,), True),
    ("index_sample", lambda s: paddle.index_sample(s, _i([[3, 0], [1, 1], [0, 2]])),
     lambda s: np.take_along_axis(s, np.array([[3, 0], [1, 1], [0, 2]]), 1), (S,), True),
    ("multiplex", lambda s, m: paddle.multiplex([s[:, :3], m], _i([[1], [0], [1]])),
     lambda s, m: np.where(np.array([[1], [0], [1]]) == 1, m, s[:, :3]), (S, M), True),
    ("strided_slice", lambda x: paddle.strided_slice(x, [1, 2], [0, 3], [3, 0], [2, -2]),
     lambda x: x[:, 0:3:2, 3:0:-2], (X,), True),
    ("crop_tensor", lambda x: paddle.crop_tensor(x, [1, -1, 2], [1, 1, 1]),
     lambda x: x[1:2, 1:, 1:3], (X,), True),
    ("clone", lambda x: paddle.clone(x) * 2, lambda x: x * 2, (X,), True),
    ("assign", lambda x: paddle.assign(x) * 3, lambda x: x * 3, (X,), True),
]
IDS = [c[0] for c in CASES]


def _scatter_nd_add_ref(x, index, updates):
    out = x.copy()
    for idx, u in zip(np.array(index), updates):
        out[tuple(idx)] += u
    return out


def _eager(fn, arrays):
    return fn(*[paddle.to_tensor(a) for a in arrays])


@pytest.mark.parametrize("name,fn,ref,arrays,diff", CASES, ids=IDS)
def test_eager_matches_numpy(name, fn, ref, arrays, diff):
    got = _eager(fn, arrays).numpy()
    want = np.asarray(ref(*arrays))
    assert got.dtype == want.dtype
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def _static(fn, arrays, dtype="float64"):
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            ins = [core.static.data(f"in{i}", list(a.shape), dtype)
                   for i, a in enumerate(arrays)]
            out = fn(*ins)
        finally:
            core.disable_static()
    return core.Executor().run(main, feed={f"in{i}": a for i, a in enumerate(arrays)},
                               fetch_list=out if isinstance(out, (list, tuple)) else [out])


@pytest.mark.parametrize("name,fn,ref,arrays,diff", CASES, ids=IDS)
def test_static_matches_eager(name, fn, ref, arrays, diff):
    got, = _static(fn, arrays)
    np.testing.assert_allclose(got, _eager(fn, arrays).numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,fn,ref,arrays,diff", [c for c in CASES if c[4]],
                         ids=[c[0] for c in CASES if c[4]])
def test_numeric_gradient(name, fn, ref, arrays, diff):
    """The gradient of sum(out * w) for a random w, against central differences (amax / amin:
    against Paddle's rule, tied extremes share the gradient evenly)."""
    w = np.random.RandomState(1).rand(*np.shape(ref(*arrays)))
    tensors = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    (fn(*tensors) * paddle.to_tensor(w)).sum().backward()
    if name.startswith(("amax", "amin")):
        return _check_tie_gradient(name, arrays[0], w, tensors[0].gradient())
    eps = 1e-6
    for k, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            numeric[idx] = ((np.asarray(ref(*plus)) * w).sum() -
                            (np.asarray(ref(*minus)) * w).sum()) / (2 * eps)
        np.testing.assert_allclose(tensors[k].gradient(), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: input {k}")


def _check_tie_gradient(name, t, w, got):
    if name == "amax":
        hit = t == t.max(1, keepdims=True)
        want = hit / hit.sum(1, keepdims=True) * w[:, None]
    else:
        hit = t == t.min()
        want = hit / hit.sum() * w.reshape(())
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_amax_value_is_the_exact_extreme_and_max_keeps_its_own_gradient():
    t = paddle.to_tensor(np.full((3,), 0.1), stop_gradient=False)
    out = paddle.amax(t)
    assert out.numpy() == 0.1
    out.backward()
    np.testing.assert_allclose(t.gradient(), [1 / 3] * 3)
    t2 = paddle.to_tensor(np.full((3,), 0.1), stop_gradient=False)
    paddle.max(t2).backward()
    np.testing.assert_allclose(t2.gradient(), [1.0] * 3)
    assert paddle.amax(paddle.to_tensor(np.array([[1, 5], [7, 2]]))).numpy() == 7


def test_elementary_dtypes():
    i = paddle.to_tensor(np.array([1, 2, 3]))
    assert paddle.log1p(i).dtype == np.float64
    f = paddle.to_tensor(np.array([0.5], "float32"))
    for fn in (paddle.log1p, paddle.expm1, paddle.log2, paddle.log10, paddle.erf, paddle.sinh,
               paddle.cosh, paddle.asin, paddle.acos, paddle.atan):
        assert fn(f).dtype == np.float32, fn.__name__
    assert paddle.isnan(f).dtype == np.bool_ and paddle.isinf(i).dtype == np.bool_
    np.testing.assert_allclose(paddle.erf(f).numpy(), [math.erf(0.5)], rtol=1e-6)


def test_unique_eager_and_static():
    data = np.array([[2, 3, 3], [1, 5, 2]])
    out, index, inverse, counts = paddle.unique(paddle.to_tensor(data), return_index=True,
                                                return_inverse=True, return_counts=True)
    want = np.unique(data, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip((out, index, inverse, counts), want):
        np.testing.assert_array_equal(got.numpy(), w.reshape(-1))
    assert index.dtype == np.int64
    rows, counts = paddle.unique(paddle.to_tensor(np.array([[1, 2], [0, 1], [1, 2]])),
                                 return_counts=True, axis=0, dtype="int32")
    np.testing.assert_array_equal(rows.numpy(), [[0, 1], [1, 2]])
    np.testing.assert_array_equal(counts.numpy(), [1, 2])
    assert counts.dtype == np.int32
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [2, 3], "int64")
            u, inv = paddle.unique(x, return_inverse=True)
        finally:
            core.disable_static()
    assert list(u.shape) == [-1] and list(inv.shape) == [6]
    got_u, got_inv = core.Executor().run(main, feed={"x": data}, fetch_list=[u, inv])
    np.testing.assert_array_equal(got_u, want[0])
    np.testing.assert_array_equal(got_inv, want[2].reshape(-1))
    with pytest.raises(TypeError, match="dtype"):
        paddle.unique(paddle.to_tensor(data), dtype="float32")


def test_assign_into_output_eager_and_static():
    out = paddle.to_tensor(np.zeros(2, "float32"))
    res = paddle.assign(paddle.to_tensor(np.ones((2, 3), "float32")), output=out)
    assert res is out and out.shape == [2, 3]
    np.testing.assert_array_equal(out.numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(paddle.assign([[1.5, 2.0]]).numpy(), [[1.5, 2.0]])
    assert paddle.assign(np.arange(3)).dtype == np.int64
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [2], "float32")
            target = main.global_block().create_var(name="target", shape=[2], dtype="float32")
            got_var = paddle.assign(x * 2, output=target)
        finally:
            core.disable_static()
    assert got_var is target
    got, = core.Executor().run(main, feed={"x": np.array([1, 2], "float32")},
                               fetch_list=[target])
    np.testing.assert_array_equal(got, [2, 4])


def test_clone_keeps_the_gradient_path():
    x = paddle.to_tensor(X, stop_gradient=False)
    c = paddle.clone(x)
    assert not c.stop_gradient and c is not x
    (c * 3).sum().backward()
    np.testing.assert_array_equal(x.gradient(), np.full(X.shape, 3.0))


def test_is_tensor_rank_and_tolist():
    x = paddle.to_tensor(X)
    assert paddle.is_tensor(x) and not paddle.is_tensor(X) and not paddle.is_tensor([1])
    r = paddle.rank(x)
    assert r.dtype == np.int32 and r.shape == [] and int(r.numpy()) == 3
    assert x.tolist() == X.tolist() and paddle.tolist(x) == X.tolist()
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            v = core.static.data("v", [2, 3], "float32")
            assert paddle.is_tensor(v)
            with pytest.raises(TypeError, match="tolist"):
                v.tolist()
        finally:
            core.disable_static()


def test_index_sample_with_unknown_batch_in_a_static_program():
    got, = _static(lambda s: paddle.index_sample(s, _i([[3, 0], [1, 1], [0, 2]])), (S,))
    np.testing.assert_array_equal(got, np.take_along_axis(S, np.array([[3, 0], [1, 1], [0, 2]]),
                                                          1))
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            s = core.static.data("s", [-1, 4], "float64")
            idx = core.static.data("idx", [-1, 2], "int64")
            out = paddle.index_sample(s, idx)
        finally:
            core.disable_static()
    index = np.array([[3, 0], [1, 1], [0, 2]])
    got, = core.Executor().run(main, feed={"s": S, "idx": index}, fetch_list=[out])
    np.testing.assert_array_equal(got, np.take_along_axis(S, index, 1))


def test_shard_index():
    ids = np.array([[1], [6], [12], [19]])
    got = paddle.shard_index(paddle.to_tensor(ids), 20, 2, 1).numpy()
    np.testing.assert_array_equal(got.ravel(), [-1, -1, 2, 9])
    got, = _static(lambda t: paddle.shard_index(t, 20, 2, 0, ignore_value=-5), (ids,), "int64")
    np.testing.assert_array_equal(got.ravel(), [1, 6, -5, -5])


METHODS = [
    ("log1p", lambda x: x.abs().log1p(), lambda x: paddle.log1p(x.abs())),
    ("isnan", lambda x: x.isnan(), lambda x: paddle.isnan(x)),
    ("erf", lambda x: x.erf(), lambda x: paddle.erf(x)),
    ("amax", lambda x: x.amax(axis=1), lambda x: paddle.amax(x, 1)),
    ("amin", lambda x: x.amin(), lambda x: paddle.amin(x)),
    ("diagonal", lambda x: x.diagonal(0, 1, 2), lambda x: paddle.diagonal(x, 0, 1, 2)),
    ("trace", lambda x: x[0].trace(), lambda x: paddle.trace(x[0])),
    ("roll", lambda x: x.roll(1, 2), lambda x: paddle.roll(x, 1, 2)),
    ("unbind", lambda x: x.unbind(0)[1], lambda x: paddle.unbind(x)[1]),
    ("clone", lambda x: x.clone(), lambda x: paddle.clone(x)),
    ("kron", lambda x: x[0].kron(x[1]), lambda x: paddle.kron(x[0], x[1])),
    ("reverse", lambda x: x.reverse(0), lambda x: paddle.flip(x, 0)),
    ("gather_nd", lambda x: x.gather_nd(_i([[1]])), lambda x: paddle.gather_nd(x, _i([[1]]))),
]


@pytest.mark.parametrize("name,method,function", METHODS, ids=[m[0] for m in METHODS])
def test_method_equals_function(name, method, function):
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(method(x).numpy(), function(x).numpy())


def test_methods_on_static_variables():
    got = _static(lambda x: [x.log1p(), x.amax(axis=1), x.diagonal(0, 1, 2), x.roll(1, 2),
                             x.clone(), x.unbind(2)[0]], (X + 2,))
    x = paddle.to_tensor(X + 2)
    want = [x.log1p(), x.amax(axis=1), x.diagonal(0, 1, 2), x.roll(1, 2), x.clone(),
            x.unbind(2)[0]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-12)


def test_in_converted_code():
    @declarative
    def f(x, m):
        y = paddle.log1p(paddle.abs(x)) + paddle.roll(x, 1, axis=2)
        if paddle.amax(y) > 0:
            y = y * paddle.trace(m)
        return paddle.erf(y), paddle.kron(m, paddle.inverse(m)), paddle.unique(x > 0)

    got = f(paddle.to_tensor(X), paddle.to_tensor(M))
    y = np.log1p(np.abs(X)) + np.roll(X, 1, axis=2)
    y = y * np.trace(M) if y.max() > 0 else y
    np.testing.assert_allclose(got[0].numpy(), _erf(y), rtol=1e-12)
    np.testing.assert_allclose(got[1].numpy(), np.kron(M, np.linalg.inv(M)), rtol=1e-12)
    np.testing.assert_array_equal(got[2].numpy(), [False, True])


@pytest.mark.parametrize("call,error,match", [
    (lambda: paddle.diagonal(paddle.to_tensor(X), axis1=1, axis2=1), ValueError, "differ"),
    (lambda: paddle.diagonal(paddle.to_tensor(S[0])), ValueError, "rank >= 2"),
    (lambda: paddle.diag(paddle.to_tensor(X)), ValueError, "1-D or 2-D"),
    (lambda: paddle.cross(paddle.to_tensor(S[:2]), paddle.to_tensor(S[:2])), ValueError,
     "size 3"),
    (lambda: paddle.cross(paddle.to_tensor(V3), paddle.to_tensor(M)), ValueError,
     "same shape"),
    (lambda: paddle.inverse(paddle.to_tensor(S)), ValueError, r"\[\.\.\., n, n\]"),
    (lambda: paddle.inverse(paddle.to_tensor(np.eye(2, dtype="int64"))), TypeError, "x"),
    (lambda: paddle.roll(paddle.to_tensor(X), [1, 2], [0]), ValueError, "differ in length"),
    (lambda: paddle.roll(paddle.to_tensor(X), 1.5), TypeError, "shifts"),
    (lambda: paddle.einsum("ij,jk->ik", paddle.to_tensor(M)), ValueError, "2 operands"),
    (lambda: paddle.einsum("...ij->ij", paddle.to_tensor(M)), ValueError, r"\.\.\."),
    (lambda: paddle.einsum("ijk->ij", paddle.to_tensor(M)), ValueError, "3 letters"),
    (lambda: paddle.meshgrid(paddle.to_tensor(M)), ValueError, "1-D"),
    (lambda: paddle.scatter_nd_add(paddle.to_tensor(S), _i([[1]]), paddle.to_tensor(S)),
     ValueError, "updates"),
    (lambda: paddle.index_sample(paddle.to_tensor(S), _i([1, 2])), ValueError, "2-D"),
    (lambda: paddle.multiplex(paddle.to_tensor(S), _i([[0]])), TypeError, "inputs"),
    (lambda: paddle.shard_index(_i([[1]]), 10, 2, 3), ValueError, "shard_id"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_grad_eager_leaves_and_intermediates_without_touching_dot_grad():
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    w = paddle.to_tensor(np.array([0.5, 2.0, -1.0]), stop_gradient=False)
    h = x * x
    y = (h * w).sum()
    gx, gh = paddle.grad(y, [x, h], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), 2 * x.numpy() * w.numpy())
    np.testing.assert_allclose(gh.numpy(), w.numpy())
    assert x.grad is None and w.grad is None and gx.stop_gradient
    # two outputs, one weighted by grad_outputs
    z = (x * 3).sum()
    gx2, = paddle.grad([y, z], x, grad_outputs=[None, paddle.to_tensor(np.array(2.0))],
                       retain_graph=True)
    np.testing.assert_allclose(gx2.numpy(), 2 * x.numpy() * w.numpy() + 6)
    # an input the output does not reach
    free = paddle.to_tensor(np.ones(3), stop_gradient=False)
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad(y, [x, free], retain_graph=True)
    assert paddle.grad(y, [x, free], allow_unused=True, retain_graph=True)[1] is None
    # no_grad_vars cut the path through h
    gx3, = paddle.grad(y, x, no_grad_vars=[h], allow_unused=True, retain_graph=True)
    assert gx3 is None
    # the graph is freed without retain_graph
    paddle.grad(y, w)
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
    with pytest.raises(NotImplementedError, match="create_graph"):
        paddle.grad((x * x).sum(), x, create_graph=True)


def test_grad_static_and_in_converted_code():
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [3], "float64")
            x.stop_gradient = False
            y = paddle.sum(x * x * x)
            gx, = paddle.grad(y, x)
        finally:
            core.disable_static()
    data = np.array([1.0, -2.0, 0.5])
    got, = core.Executor().run(main, feed={"x": data}, fetch_list=[gx])
    np.testing.assert_allclose(got, 3 * data ** 2)

    @declarative
    def f(x):
        y = paddle.sum(paddle.sin(x))
        return paddle.grad(y, x)[0]

    t = paddle.to_tensor(data, stop_gradient=False)
    np.testing.assert_allclose(f(t).numpy(), np.cos(data), rtol=1e-12)


@pytest.fixture
def float64_default():
    assert paddle.get_default_dtype() == "float32"
    paddle.set_default_dtype("float64")
    try:
        yield
    finally:
        paddle.set_default_dtype("float32")


def test_set_default_dtype_changes_what_creation_functions_give(float64_default):
    assert paddle.get_default_dtype() == "float64"
    made = [paddle.zeros([2]), paddle.ones([2]), paddle.full([2], 1.5), paddle.eye(2),
            paddle.rand([2]), paddle.randn([2]), paddle.uniform([2]),
            paddle.to_tensor(1.5), paddle.to_tensor([[1.0, 2.0]])]
    for t in made:
        assert t.dtype == np.float64
    assert paddle.full([2], 3).dtype == np.int64
    assert paddle.to_tensor(np.ones(2, "float32")).dtype == np.float32  # an array keeps its own
    assert paddle.zeros([2], "float32").dtype == np.float32
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            v = paddle.ones([3])
        finally:
            core.disable_static()
    assert v.dtype == np.float64


def test_set_default_dtype_reaches_layer_parameters(float64_default):
    # PaddlePaddle: layers made after set_default_dtype('float64') hold float64 parameters
    layers = [paddle.nn.Linear(3, 2), paddle.nn.Conv2D(3, 4, 3), paddle.nn.BatchNorm2D(4),
              paddle.nn.LayerNorm(4), paddle.nn.Embedding(5, 3), paddle.nn.LSTMCell(3, 4),
              paddle.nn.GRUCell(3, 4), paddle.nn.LSTM(3, 4), core.nn.Embedding([5, 3])]
    for layer in layers:
        assert {p.dtype for p in layer.parameters()} == {np.dtype("float64")}, layer
    out = paddle.nn.Linear(3, 2)(paddle.randn([2, 3]))
    assert out.dtype == np.float64
    # fluid's Linear / Conv2D keep their seed signature's dtype='float32'
    assert core.nn.Linear(3, 2).weight.dtype == np.float32


def test_set_default_dtype_takes_float_types_only():
    for bad in ("int32", "bool", "complex"):
        with pytest.raises(TypeError, match="set_default_dtype"):
            paddle.set_default_dtype(bad)
    assert paddle.get_default_dtype() == "float32"
    paddle.set_default_dtype(np.float16)
    try:
        assert paddle.zeros([1]).dtype == np.float16
    finally:
        paddle.set_default_dtype("float32")

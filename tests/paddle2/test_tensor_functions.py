"""The 2.x tensor functions that compose several ops (core.tensor_search, core.tensor_math,
core.tensor_random, core.tensor_functions): numpy as the oracle, static equals eager, numeric
gradients, the Tensor / Variable method spelling, and argument errors."""
import numpy as np
import pytest

import core
import dy2static as paddle

RNG = np.random.RandomState(0)
# distinct values (no ties), float64 for the finite differences
X = RNG.permutation(24).reshape(2, 3, 4).astype("float64") / 7 - 1.5 + 0.013  # no abs ties
Y = RNG.rand(2, 3, 4) + 0.5
M = RNG.rand(3, 3)

# (name, function of tensors, numpy reference, inputs, differentiable)
CASES = [
    ("concat", lambda x, y: paddle.concat(x=[x, y], axis=1),
     lambda x, y: np.concatenate([x, y], 1), (X, Y), True),
    ("stack", lambda x, y: paddle.stack([x, y], axis=-1), lambda x, y: np.stack([x, y], -1),
     (X, Y), True),
    ("gather axis 1", lambda x: paddle.gather(x, paddle.to_tensor([2, 0]), axis=1),
     lambda x: x[:, [2, 0]], (X,), True),
    ("index_select", lambda x: paddle.index_select(x, paddle.to_tensor([3, 1]), axis=-1),
     lambda x: x[..., [3, 1]], (X,), True),
    ("topk axis 1", lambda x: paddle.topk(x, 2, axis=1)[0],
     lambda x: -np.sort(-x, axis=1)[:, :2], (X,), True),
    ("topk smallest", lambda x: paddle.topk(x, 3, largest=False)[0],
     lambda x: np.sort(x, axis=-1)[..., :3], (X,), True),
    ("topk indices", lambda x: paddle.topk(x, 2, axis=0)[1],
     lambda x: np.argsort(-x, axis=0)[:2], (X,), False),
    ("sort", lambda x: paddle.sort(x, axis=1), lambda x: np.sort(x, axis=1), (X,), True),
    ("sort descending", lambda x: paddle.sort(x, descending=True),
     lambda x: -np.sort(-x, axis=-1), (X,), True),
    ("argsort", lambda x: paddle.argsort(x, axis=0), lambda x: np.argsort(x, axis=0), (X,),
     False),
    ("cumsum", lambda x: paddle.cumsum(x, axis=1), lambda x: np.cumsum(x, 1), (X,), True),
    ("cumsum flat", lambda x: paddle.cumsum(x), lambda x: np.cumsum(x), (X,), True),
    ("norm fro", lambda x: paddle.norm(x), lambda x: np.sqrt((x ** 2).sum()), (X,), True),
    ("norm p1 axis", lambda x: paddle.norm(x, p=1, axis=-1),
     lambda x: np.abs(x).sum(-1), (X,), True),
    ("norm p3 keepdim", lambda x: paddle.norm(x, p=3, axis=1, keepdim=True),
     lambda x: (np.abs(x) ** 3).sum(1, keepdims=True) ** (1 / 3), (X,), True),
    ("norm inf", lambda x: paddle.norm(x, p=float("inf"), axis=0),
     lambda x: np.abs(x).max(0), (X,), True),
    ("dist", lambda x, y: paddle.dist(x, y), lambda x, y: np.sqrt(((x - y) ** 2).sum()),
     (X, Y), True),
    ("dist p1", lambda x, y: paddle.dist(x, y, p=1), lambda x, y: np.abs(x - y).sum(), (X, Y),
     True),
    ("t", lambda m: paddle.t(m), lambda m: m.T, (M,), True),
    ("var", lambda x: paddle.var(x, axis=1), lambda x: x.var(1, ddof=1), (X,), True),
    ("std all", lambda x: paddle.std(x, unbiased=False), lambda x: x.std(), (X,), True),
    ("logsumexp", lambda x: paddle.logsumexp(x, axis=-1),
     lambda x: np.log(np.exp(x).sum(-1)), (X,), True),
    ("logsumexp all", lambda x: paddle.logsumexp(x), lambda x: np.log(np.exp(x).sum()), (X,),
     True),
    ("dot", lambda m, n: paddle.dot(m, n), lambda m, n: (m * n).sum(-1), (M, M.T.copy()), True),
    ("bmm", lambda x, y: paddle.bmm(x, paddle.transpose(y, [0, 2, 1])),
     lambda x, y: x @ y.transpose(0, 2, 1), (X, Y), True),
    ("clip", lambda x: paddle.clip(x, min=-0.5), lambda x: np.maximum(x, -0.5), (X,), True),
    ("clip max", lambda x: paddle.clip(x, max=0.25), lambda x: np.minimum(x, 0.25), (X,), True),
    ("where", lambda x, y: paddle.where(x > 0, x, y), lambda x, y: np.where(x > 0, x, y),
     (X, Y), True),
    ("flip", lambda x: paddle.flip(x, [0, 2]), lambda x: x[::-1, :, ::-1], (X,), True),
    ("tril", lambda m: paddle.tril(m, -1), lambda m: np.tril(m, -1), (M,), True),
    ("triu", lambda x: paddle.triu(x, 1), lambda x: np.triu(x, 1), (X,), True),
    ("expand", lambda m: paddle.expand(m[:1], [2, 3, 3]),
     lambda m: np.broadcast_to(m[:1], (2, 3, 3)), (M,), True),
    ("full_like", lambda x: paddle.full_like(x, 2.5), lambda x: np.full_like(x, 2.5), (X,),
     False),
    ("reciprocal", lambda y: paddle.reciprocal(y), lambda y: 1 / y, (Y,), True),
    ("chunk", lambda x: paddle.chunk(x, 2, axis=2)[1], lambda x: x[..., 2:], (X,), True),
    ("add_n", lambda x, y: paddle.add_n([x, y, x]), lambda x, y: 2 * x + y, (X, Y), True),
    ("numel", lambda x: paddle.numel(x), lambda x: np.array([x.size]), (X,), False),
    ("allclose", lambda x, y: paddle.allclose(x, x + 1e-9), lambda x, y: np.array(True),
     (X, Y), False),
    ("any", lambda x: paddle.any(x > 1.0, axis=1), lambda x: (x > 1.0).any(1), (X,), False),
    ("full tensor value", lambda x: paddle.full([2], paddle.max(x)),
     lambda x: np.full(2, x.max()), (X,), False),
]
IDS = [c[0] for c in CASES]


def _eager(fn, arrays):
    return fn(*[paddle.to_tensor(a) for a in arrays])


@pytest.mark.parametrize("name,fn,ref,arrays,diff", CASES, ids=IDS)
def test_eager_matches_numpy(name, fn, ref, arrays, diff):
    got = _eager(fn, arrays).numpy()
    want = np.asarray(ref(*arrays))
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,fn,ref,arrays,diff", CASES, ids=IDS)
def test_static_matches_eager(name, fn, ref, arrays, diff):
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            ins = [core.static.data(f"in{i}", list(a.shape), "float64")
                   for i, a in enumerate(arrays)]
            out = fn(*ins)
        finally:
            core.disable_static()
    got, = core.Executor().run(main, feed={f"in{i}": a for i, a in enumerate(arrays)},
                               fetch_list=[out])
    np.testing.assert_allclose(got, _eager(fn, arrays).numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,fn,ref,arrays,diff", [c for c in CASES if c[4]],
                         ids=[c[0] for c in CASES if c[4]])
def test_numeric_gradient(name, fn, ref, arrays, diff):
    """The gradient of sum(out * w) for a random w, against central differences."""
    w = np.random.RandomState(1).rand(*np.shape(ref(*arrays)))
    tensors = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    (fn(*tensors) * paddle.to_tensor(w)).sum().backward()
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


METHODS = [
    ("add", lambda x, y: x.add(y), lambda x, y: paddle.add(x, y)),
    ("subtract", lambda x, y: x.subtract(y), lambda x, y: paddle.subtract(x, y)),
    ("multiply", lambda x, y: x.multiply(y), lambda x, y: paddle.multiply(x, y)),
    ("divide", lambda x, y: x.divide(y), lambda x, y: paddle.divide(x, y)),
    ("pow", lambda x, y: y.pow(x), lambda x, y: paddle.pow(y, x)),
    ("maximum", lambda x, y: x.maximum(y), lambda x, y: paddle.maximum(x, y)),
    ("equal", lambda x, y: x.equal(y), lambda x, y: paddle.equal(x, y)),
    ("less_than", lambda x, y: x.less_than(y), lambda x, y: paddle.less_than(x, y)),
    ("greater_equal", lambda x, y: x.greater_equal(y), lambda x, y: paddle.greater_equal(x, y)),
    ("logical_and", lambda x, y: (x > 0).logical_and(y > 1), None),
    ("logical_not", lambda x, y: (x > 0).logical_not(), None),
    ("t", lambda x, y: x[0].t(), lambda x, y: paddle.t(x[0])),
    ("norm", lambda x, y: x.norm(p=2, axis=1), lambda x, y: paddle.norm(x, 2, 1)),
    ("dist", lambda x, y: x.dist(y, p=1), lambda x, y: paddle.dist(x, y, 1)),
    ("argmax", lambda x, y: x.argmax(axis=-1), lambda x, y: paddle.argmax(x, -1)),
    ("argsort", lambda x, y: x.argsort(descending=True), None),
    ("sort", lambda x, y: x.sort(axis=0), lambda x, y: paddle.sort(x, 0)),
    ("cumsum", lambda x, y: x.cumsum(1), lambda x, y: paddle.cumsum(x, 1)),
    ("astype", lambda x, y: x.astype("float32"), lambda x, y: paddle.cast(x, "float32")),
    ("reshape varargs", lambda x, y: x.reshape(4, 6), lambda x, y: paddle.reshape(x, [4, 6])),
    ("transpose varargs", lambda x, y: x.transpose(2, 0, 1),
     lambda x, y: paddle.transpose(x, [2, 0, 1])),
    ("matmul", lambda x, y: x.matmul(y, transpose_y=True),
     lambda x, y: paddle.matmul(x, y, transpose_y=True)),
    ("unsqueeze", lambda x, y: x.unsqueeze([0, 2]), lambda x, y: paddle.unsqueeze(x, [0, 2])),
    ("flatten", lambda x, y: x.flatten(1), lambda x, y: paddle.flatten(x, 1)),
    ("mean axis", lambda x, y: x.mean(axis=1), lambda x, y: paddle.mean(x, axis=1)),
    ("clip", lambda x, y: x.clip(-0.5, 0.5), lambda x, y: paddle.clip(x, -0.5, 0.5)),
    ("topk", lambda x, y: x.topk(2)[0], lambda x, y: paddle.topk(x, 2)[0]),
    ("gather", lambda x, y: x.gather(paddle.to_tensor([1]), axis=2),
     lambda x, y: paddle.gather(x, paddle.to_tensor([1]), axis=2)),
    ("square", lambda x, y: x.square(), lambda x, y: paddle.square(x)),
]


@pytest.mark.parametrize("name,method,function", METHODS, ids=[m[0] for m in METHODS])
def test_method_equals_function(name, method, function):
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    got = method(x, y)
    if function is not None:
        want = function(x, y)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.numpy().shape == tuple(got.shape)


def test_methods_on_static_variables():
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [2, 3, 4], "float64")
            y = core.static.data("y", [2, 3, 4], "float64")
            outs = [x.add(y).abs().pow(y), x.norm(), x[0].t(), x.argmax(axis=1), x.cumsum(2),
                    x.equal(y).logical_not()]
        finally:
            core.disable_static()
    got = core.Executor().run(main, feed={"x": X, "y": Y}, fetch_list=outs)
    tx, ty = paddle.to_tensor(X), paddle.to_tensor(Y)
    want = [tx.add(ty).abs().pow(ty), tx.norm(), tx[0].t(), tx.argmax(axis=1), tx.cumsum(2),
            tx.equal(ty).logical_not()]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-12)


def test_inplace_reshape_eager_keeps_gradient_and_aliases():
    x = paddle.to_tensor(X, stop_gradient=False)
    h = x * 2
    alias = h
    before = h.numpy().copy()
    out = h.reshape_([4, 6])
    assert out is h and alias.shape == [4, 6]
    np.testing.assert_array_equal(h.numpy(), before.reshape(4, 6))
    (h * paddle.to_tensor(np.arange(24.0).reshape(4, 6))).sum().backward()
    np.testing.assert_allclose(x.gradient(), 2 * np.arange(24.0).reshape(2, 3, 4))
    z = paddle.to_tensor(X)
    z.unsqueeze_(0)
    z.squeeze_(0)
    assert z.shape == [2, 3, 4]


def test_inplace_on_a_leaf_that_needs_a_gradient_is_an_error():
    x = paddle.to_tensor(X, stop_gradient=False)
    with pytest.raises(RuntimeError, match="leaf"):
        x.reshape_([24])


def test_inplace_reshape_in_converted_code():
    @paddle.jit.to_static
    def f(x):
        y = x + 1
        y.reshape_([4, -1])
        return y * 2

    x = paddle.to_tensor(X)
    np.testing.assert_allclose(f(x).numpy(), ((X + 1) * 2).reshape(4, 6))
    paddle.jit.enable_to_static(False)
    try:
        np.testing.assert_allclose(f(x).numpy(), ((X + 1) * 2).reshape(4, 6))
    finally:
        paddle.jit.enable_to_static(True)


def test_masked_select_and_nonzero_eager():
    x = paddle.to_tensor(X, stop_gradient=False)
    mask = paddle.to_tensor(X > 0)
    out = paddle.masked_select(x, mask)
    np.testing.assert_array_equal(out.numpy(), X[X > 0])
    out.sum().backward()
    np.testing.assert_array_equal(x.gradient(), (X > 0).astype("float64"))
    np.testing.assert_array_equal(paddle.nonzero(mask).numpy(), np.argwhere(X > 0))
    parts = paddle.where(mask)
    for got, want in zip(parts, np.nonzero(X > 0)):
        np.testing.assert_array_equal(got.numpy()[:, 0], want)


def test_masked_select_in_a_static_program_has_a_data_dependent_length():
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [2, 3], "float32")
            out = paddle.masked_select(x, x > 0)
        finally:
            core.disable_static()
    assert list(out.shape) == [-1]
    data = np.array([[1, -1, 2], [0, 3, -4]], "float32")
    got, = core.static.Executor(core.CPUPlace()).run(main, feed={"x": data}, fetch_list=[out])
    np.testing.assert_array_equal(got, [1, 2, 3])


def test_random_functions():
    paddle.seed(3)
    a = paddle.rand([1000])
    paddle.seed(3)
    assert np.array_equal(paddle.rand([1000]).numpy(), a.numpy())
    assert a.dtype == np.float32 and 0 <= a.numpy().min() and a.numpy().max() < 1
    n = paddle.randn([4000], dtype="float64").numpy()
    assert n.dtype == np.float64 and abs(n.mean()) < 0.1 and abs(n.std() - 1) < 0.1
    r = paddle.randint(-3, 4, shape=[2000]).numpy()
    assert r.dtype == np.int64 and set(np.unique(r)) == set(range(-3, 4))
    assert set(np.unique(paddle.randint(5, shape=[500]).numpy())) == set(range(5))
    assert sorted(paddle.randperm(10).numpy().tolist()) == list(range(10))
    u = paddle.uniform([500], min=2.0, max=3.0).numpy()
    assert 2 <= u.min() and u.max() < 3
    g = paddle.normal(1.0, 0.5, [4000]).numpy()
    assert abs(g.mean() - 1) < 0.1


@pytest.mark.parametrize("call,error,match", [
    (lambda: paddle.randint(5, 5), ValueError, "'high'"),
    (lambda: paddle.randint(0, 5, dtype="float32"), TypeError, "'dtype'"),
    (lambda: paddle.rand([2], dtype="int64"), TypeError, "'dtype'"),
    (lambda: paddle.topk(paddle.to_tensor(X), 0), ValueError, "'k'"),
    (lambda: paddle.sort(paddle.to_tensor(X), axis=3), ValueError, "'axis'"),
    (lambda: paddle.gather(paddle.to_tensor(X), paddle.to_tensor([0]), axis=1.5), TypeError,
     "'axis'"),
    (lambda: paddle.clip(paddle.to_tensor(X), "a"), TypeError, "'min'"),
    (lambda: paddle.clip(paddle.to_tensor(X), 1.0, 0.0), ValueError, "'min'"),
    (lambda: paddle.t(paddle.to_tensor(X)), ValueError, "rank"),
    (lambda: paddle.norm(paddle.to_tensor(X), p="nuc"), ValueError, "'p'"),
    (lambda: paddle.expand(paddle.to_tensor(M), [2, 4]), ValueError, "dimension"),
    (lambda: paddle.where(paddle.to_tensor(X) > 0, paddle.to_tensor(X)), ValueError, "'y'"),
    (lambda: paddle.masked_select(paddle.to_tensor(X), paddle.to_tensor(X)), TypeError, "bool"),
    (lambda: paddle.masked_select(paddle.to_tensor(X), paddle.to_tensor(M > 0)), ValueError,
     "'mask'"),
    (lambda: paddle.nonzero(X), TypeError, "'x'"),
    (lambda: paddle.bmm(paddle.to_tensor(M), paddle.to_tensor(M)), ValueError, "rank 3"),
])
def test_argument_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_core_clip_stays_the_gradient_clipping_module():
    assert hasattr(core.clip, "GradientClipByGlobalNorm")
    assert callable(paddle.clip) and paddle.clip is core.tensor_functions.clip

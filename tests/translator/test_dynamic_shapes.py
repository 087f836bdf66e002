"""Dynamic shapes and ``x[i] = v`` inside ``declarative`` code: each function runs eagerly,
through ``declarative`` on inputs whose int tensors take several values (one cached Program),
and that Program runs on its own through ``core.Executor``; all agree."""
import numpy as np
import pytest

import core
from core import layers as L
from translator import InputSpec, ProgramTranslator, declarative

from .test_semantics import check


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0


def creation_by_tensor(x, n, m):
    a = L.fill_constant([n, 2], "float32", 1.5)
    b = L.zeros(m, "int64")
    c = core.full([m[1:2], n], 2.0, "float32")
    u = L.uniform_random([n, 3], seed=3)
    g = L.gaussian_random(m, seed=4)
    return a, b, c, u, g


def shapes_by_tensor(x, n, m):
    r = L.reshape(x, [n, -1])
    s = L.slice(x, [1, 2], [n - 1, 1], [m[0:1], 3])
    e = L.expand(x[:, :1, :2], [1, n, n])
    t = L.tile(x[0], m)
    batch = L.reshape(x, [L.shape(x)[0], -1])
    return r, s, e, t, batch


def _cases():
    return [(X, np.array([2], np.int64), np.array([3, 2], np.int32)),
            (X, np.array([1], np.int64), np.array([2, 4], np.int32))]


def test_creation_ops_with_tensor_shapes():
    static = check(creation_by_tensor, *_cases(), ops=("fill_constant_tensor",
                                                       "uniform_random_tensor",
                                                       "gaussian_random_tensor"))
    outs = static.get_concrete_program(*[core.to_tensor(a) for a in _cases()[0]]).outputs
    assert [list(o.shape) for o in outs] == [[-1, 2], [-1, -1], [-1, -1], [-1, 3], [-1, -1]]


def test_shape_ops_with_tensor_shapes_and_positions():
    check(shapes_by_tensor, *_cases(), ops=("reshape_tensor", "slice_tensor", "tile_tensor"))


def assign_into(x, v, i):
    y = x * 1.0
    before = y + 0.0
    y[0] = v
    y[1:, 1] = v[0, :1] * 2.0
    y[i] = y[0] + 1.0
    for k in range(2):  # a Python loop: unrolled, each step rebinds y again
        y[k, k] = 0.0
    return y, before


def test_setitem_in_declarative_code():
    v = np.full((3, 4), 9.0, np.float32)
    check(assign_into, (X, v, np.array([1], np.int64)), (X * 2, v, np.array([0], np.int64)),
          ops=("setitem",))


def test_setitem_gradient_through_declarative_equals_eager():
    def loss_of(fn):
        x = core.to_tensor(X, stop_gradient=False)
        v = core.to_tensor(np.full((3, 4), 0.5, np.float32), stop_gradient=False)
        y, before = fn(x, v, core.to_tensor(np.array([1], np.int64)))
        loss = L.reduce_sum(y * y) + L.reduce_sum(before)
        loss.backward()
        return loss.numpy(), x.gradient(), v.gradient()

    eager = loss_of(assign_into)
    converted = loss_of(declarative(assign_into))
    for e, c in zip(eager, converted):
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6)
    assert np.any(eager[1] != 0) and np.any(eager[2] != 0)


def test_float_shape_entry_is_a_clear_error_in_declarative_code():
    def bad(x, f):
        return L.fill_constant([f, 2], "float32", 1.0)

    with pytest.raises(Exception, match=r"fill_constant\(\): argument 'shape\[0\]' must be an "
                                        r"int or a 1-element int tensor, got a float32"):
        declarative(bad)(core.to_tensor(X), core.to_tensor(np.array([2.0], np.float32)))


def test_unknown_batch_dim_from_x_shape_with_input_spec():
    def build(x):
        m = L.ones([x.shape[0], 1], "float32")
        y = L.reshape(x, [x.shape[0], 2, -1])
        z = L.expand(m, [1, x.shape[1]])
        return m, y, z

    static = declarative(build, input_spec=[InputSpec([None, 4], "float32")])
    for batch in (1, 3):
        x = core.to_tensor(np.arange(batch * 4, dtype=np.float32).reshape(batch, 4))
        for e, g in zip(build(x), static(x)):
            np.testing.assert_array_equal(g.numpy(), e.numpy())
    outs = static.get_concrete_program(core.to_tensor(np.ones((2, 4), np.float32))).outputs
    assert [list(o.shape) for o in outs] == [[-1, 1], [-1, 2, -1], [-1, 4]]

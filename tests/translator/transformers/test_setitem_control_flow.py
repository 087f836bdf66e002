"""``x[i] = v`` inside a tensor ``if`` / ``while`` / ``for`` in ``declarative`` code: the name
is carried out of the branch or loop. Each function runs eagerly with the translator off,
through ``declarative`` and as a Program run by ``core.Executor`` (values), and the gradient
to ``x``'s source and to ``v`` agrees between eager and ``declarative``. Python lists and
dicts assigned by index inside those blocks keep their Python meaning."""
import numpy as np
import pytest

import core
from core import layers as L
from translator import ProgramTranslator, declarative

from ..three_way import check_three_ways, run_declarative

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0
V = np.array([1.5, -2.0, 0.5], np.float32)
POS, NEG = np.array([1.0], np.float32), np.array([-1.0], np.float32)


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


@declarative
def if_both(x, v, c):
    y = x * 1.0
    if L.reduce_sum(c) > 0:
        y[0] = v
        y[2, 1:] = v[:2] * 3.0
    else:
        y[1] = v * 2.0
    return y


@declarative
def if_one(x, v, c):
    y = x * 2.0
    before = y + 0.0
    if L.reduce_sum(c) > 0:
        y[3] = v + y[0]
    return y, before


@declarative
def while_rows(x, v, n):
    y = x * 1.0
    i = L.fill_constant([1], "int64", 0)
    while i < n:
        y[i] = v * L.cast(i + 1, "float32")
        i = i + 1
    return y


@declarative
def for_over_tensor(x, v):
    y = x * 0.0
    k = 0
    for row in x:
        y[k] = row * v
        k = k + 1
    return y


def _n(k):
    return np.array([k], np.int64)


def test_if_both_branches():
    check_three_ways(if_both, (X, V, POS), (X, V, NEG))


def test_if_one_branch():
    check_three_ways(if_one, (X, V, POS), (X, V, NEG))


def test_while_writes_row_i_each_trip():
    check_three_ways(while_rows, (X, V, _n(0)), (X, V, _n(1)), (X, V, _n(3)))
    got = run_declarative(while_rows, (X, V, _n(3))).numpy()
    np.testing.assert_allclose(got[:3], np.stack([V, 2 * V, 3 * V]))
    np.testing.assert_allclose(got[3], X[3])


def test_for_over_tensor():
    check_three_ways(for_over_tensor, (X, V))
    np.testing.assert_allclose(run_declarative(for_over_tensor, (X, V)).numpy(), X * V)


def test_converted_code_rebinds_the_name():
    code = if_both.code
    assert "convert_setitem(y" in code and "'y'" in code


def _grads(fn, *extra):
    x = core.to_tensor(X, stop_gradient=False)
    v = core.to_tensor(V, stop_gradient=False)
    out = fn(x, v, *[core.to_tensor(e) for e in extra])
    out = out[0] if isinstance(out, tuple) else out
    loss = L.reduce_sum(out * out)
    loss.backward()
    return loss.numpy(), x.gradient(), v.gradient()


@pytest.mark.parametrize("fn, extra", [
    (if_both, (POS,)), (if_both, (NEG,)), (if_one, (POS,)), (if_one, (NEG,)),
    (while_rows, (_n(0),)), (while_rows, (_n(1),)), (while_rows, (_n(3),)),
    (for_over_tensor, ()),
])
def test_gradients_equal_eager(fn, extra):
    ProgramTranslator().enable(False)
    try:
        eager = _grads(fn, *extra)
    finally:
        ProgramTranslator().enable(True)
    converted = _grads(fn, *extra)
    # a path that never reads v gives it no gradient eagerly, zeros from the Program
    shapes = [(), X.shape, V.shape]
    for e, c, shape in zip(eager, converted, shapes):
        e = np.zeros(shape, np.float32) if e is None else e
        c = np.zeros(shape, np.float32) if c is None else c
        np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6)
    assert np.any(eager[1] != 0)


@declarative
def containers(x, c, n):
    out = [x * 0.0, x * 0.0]
    d = {"a": x * 0.0}
    if L.reduce_sum(c) > 0:
        out[0] = x + 1.0
        d["a"] = x * 2.0
    else:
        out[1] = x - 1.0
    i = L.fill_constant([1], "int64", 0)
    while i < n:
        d["a"] = d["a"] + 1.0
        i = i + 1
    return out, d


def test_python_lists_and_dicts_keep_their_meaning():
    check_three_ways(containers, (X, POS, _n(0)), (X, NEG, _n(2)))


def test_helper_assigns_into_python_objects_in_place():
    from translator import convert_ops

    items, table = [1, 2], {"a": 1}
    assert convert_ops.convert_setitem(items, 1, 7) is items and items == [1, 7]
    assert convert_ops.convert_setitem(table, "b", 3) is table and table == {"a": 1, "b": 3}
    t = core.to_tensor(X)
    alias = t
    assert convert_ops.convert_setitem(t, 0, 0.0) is t
    np.testing.assert_array_equal(alias.numpy()[0], np.zeros(3, np.float32))


def test_free_name_is_not_rebound():
    table = {}

    @declarative
    def write(x):
        table["k"] = x + 1.0
        return x

    write(core.to_tensor(X))
    assert "convert_setitem" not in write.code and "k" in table

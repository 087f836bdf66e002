"""Corners of tensor control flow in ``declarative`` code, each checked eagerly with the
translator off, through ``declarative`` and as a Program run by ``core.Executor``, in a
function and in a ``Layer.forward``, on inputs taking every path and 0 / 1 / several trips:

* ``x[i] op= v`` (augmented assignment to an item of a tensor) inside a tensor ``if`` /
  ``while`` / ``for`` rebinds ``x``, as ``x[i] = v`` does, so the construct carries it out.
"""
import numpy as np
import pytest

import core
from core import layers as L
from translator import ProgramTranslator, declarative

from .test_fidelity import both_forms, i64
from .three_way import run_declarative

X = np.arange(12, dtype=np.float32).reshape(4, 3) / 4.0
V = np.array([1.5, -2.0, 0.5], np.float32)
POS, NEG = np.array([1.0], np.float32), np.array([-1.0], np.float32)


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


# -- x[i] op= v -----------------------------------------------------------------------------------
def aug_if(x, v, c):
    y = x * 1.0
    if L.reduce_sum(c) > 0:
        y[0] += v
        y[1:3, 1] *= 2.0
    else:
        y[2] -= v * 0.5
    return y


def aug_while(x, v, n):
    y = x * 1.0
    i = L.fill_constant([1], "int64", 0)
    while i < n:
        y[i] += v
        y[0] *= 1.5
        i = i + 1
    return y


def aug_for(x, v, n):
    y = x * 1.0
    for k in range(n):
        y[k] += v * 2.0
        y[3, 0:2] /= 2.0
    return y


def test_augmented_item_assignment_in_tensor_if():
    both_forms(aug_if, (X, V, POS), (X, V, NEG))


@pytest.mark.parametrize("fn", [aug_while, aug_for])
def test_augmented_item_assignment_in_tensor_loops(fn):
    both_forms(fn, (X, V, i64([0])), (X, V, i64([1])), (X, V, i64([3])))


def test_augmented_item_assignment_values_and_gradient():
    got = run_declarative(declarative(aug_while), (X, V, i64([2]))).numpy()
    expected = X.copy()
    expected[0] += V
    expected[0] *= 1.5
    expected[1] += V
    expected[0] *= 1.5
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    v = core.to_tensor(V, stop_gradient=False)
    out = declarative(aug_if)(core.to_tensor(X), v, core.to_tensor(POS))
    L.reduce_sum(out).backward()
    np.testing.assert_allclose(v.gradient(), np.ones(3, np.float32))


def test_augmented_item_assignment_keeps_python_containers():
    @declarative
    def counts(x, c):
        seen = [0, 0]
        table = {"n": 1}
        if L.reduce_sum(c) > 0:
            y = x + 1.0
        else:
            y = x - 1.0
        seen[1] += 2
        table["n"] *= 3
        return y, seen, table

    both_forms(counts.dygraph_function, (X, POS), (X, NEG))
    assert "convert_setitem_aug" not in counts.code

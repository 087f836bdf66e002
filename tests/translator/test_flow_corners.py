"""Corners of tensor control flow in ``declarative`` code, each checked eagerly with the
translator off, through ``declarative`` and as a Program run by ``core.Executor``, in a
function and in a ``Layer.forward``, on inputs taking every path and 0 / 1 / several trips:

* ``x[i] op= v`` (augmented assignment to an item of a tensor) inside a tensor ``if`` /
  ``while`` / ``for`` rebinds ``x``, as ``x[i] = v`` does, so the construct carries it out.
* Python numbers chosen at run time by a tensor ``if`` (or conditional expression) and then
  combined become tensors of the dtype eager promotion gives (``1`` or ``2.5``: float32, still
  weak beside a float32 tensor); other Python values that differ between the paths raise,
  naming the line.
* An attribute or item (``self.h``, ``box.d["k"]``) with no value before a tensor ``if`` /
  loop that sets it on some paths only: a run that takes a path leaving it unset and then
  reads it fails (``AssertionError`` naming the assigning and the reading line), as eager
  code fails with ``AttributeError`` / ``KeyError``; a run that sets it gives its value.
"""
import inspect

import numpy as np
import pytest

import core
from core import layers as L
from translator import ProgramTranslator, declarative

from .test_fidelity import both_forms, i64
from .transformers.test_setitem_control_flow import NEG, POS, V, X
from .three_way import assert_same, run_declarative, run_eager, run_program


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


# -- Python values chosen by a tensor condition ----------------------------------------------------
def chosen_ints(x, c):
    if L.reduce_sum(c) > 0:
        n, m = 1, 4
    else:
        n, m = 3, 7
    k = 2 if L.reduce_sum(c) > 0 else 5
    return x * (n + m), n + m * k, n // m


def chosen_mixed(x, c):
    if L.reduce_sum(c) > 0:
        n, flag = 1, True
    else:
        n, flag = 2.5, False
    k = 3 if L.reduce_sum(c) < 0 else 0.5
    return x * (n + k), n * k + flag, flag + 2


def chosen_in_loop(x, n):
    s = x * 0.0
    i = 0
    while i < n:
        k = 1 if L.reduce_sum(s) > 2.0 else 2.5
        if L.reduce_sum(s) > 4.0:
            j = 2
        else:
            j = 0.5
        s = s + x * (k + j)
        i += 1
    return s


@pytest.mark.parametrize("fn", [chosen_ints, chosen_mixed])
def test_python_numbers_chosen_by_a_tensor_if_combine_as_eager(fn):
    both_forms(fn, (X, POS), (X, NEG))


def test_python_numbers_chosen_in_a_tensor_loop():
    both_forms(chosen_in_loop, (X, i64([0])), (X, i64([1])), (X, i64([4])))


def test_an_int_and_a_float_choice_keeps_the_fraction():
    out, combined, _ = run_declarative(declarative(chosen_mixed), (X, NEG))
    np.testing.assert_allclose(out.numpy(), X * 5.5)
    assert out.numpy().dtype == np.float32
    np.testing.assert_allclose(np.asarray(combined.numpy()), 7.5)


def test_other_python_values_chosen_at_run_time_raise_naming_the_line():
    @declarative
    def modes(x, c):
        if L.reduce_sum(c) > 0:
            mode = "sum"
        else:
            mode = "mean"
        return x, mode

    @declarative
    def modes_expr(x, c):
        mode = "sum" if L.reduce_sum(c) > 0 else "mean"
        return x, mode

    line = modes.dygraph_function.__code__.co_firstlineno + 2
    with pytest.raises(TypeError, match=rf"'mode' is 'sum' after the true branch but 'mean'.*"
                                        rf"test_flow_corners.py:{line}"):
        modes(core.to_tensor(X), core.to_tensor(POS))
    line = modes_expr.dygraph_function.__code__.co_firstlineno + 2
    with pytest.raises(TypeError, match=rf"test_flow_corners.py:{line}\) gives 'sum' on one side "
                                        "and 'mean' on the other"):
        modes_expr(core.to_tensor(X), core.to_tensor(POS))


# -- attributes / items set on some paths only -----------------------------------------------------
class Box:
    """A plain object whose attributes a declarative function sets."""

    def __init__(self):
        self.d = {}


def attr_if(x, c):
    box = Box()
    if L.reduce_sum(c) > 0:
        box.h = x * 2.0
        box.d["k"] = x - 1.0
    y = x + 1.0
    return y + box.h, box.d["k"]


def attr_loop(x, n):
    box = Box()
    i = 0
    while i < n:
        box.h = x * (i + 1.0)
        i += 1
    return x + box.h


class OnePathAttr(core.nn.Layer):
    """``self.h`` / ``self.d["k"]`` set by one branch of a tensor if or by a tensor loop."""

    def __init__(self, loop):
        super().__init__()
        self.loop, self.d = loop, {}

    @declarative
    def forward(self, x, c):
        if self.loop:
            for k in range(c):
                self.h = x * (k + 1.0)
        else:
            if L.reduce_sum(c) > 0:
                self.h = x * 2.0
            else:
                self.d["k"] = x * 3.0
        return x + self.h


def _fresh_three_ways(make, *cases):
    """Each case three ways, each run on a fresh object (a run that sets the attribute would
    leave it set for the next)."""
    for args in cases:
        expected = run_eager(make(), args)
        assert_same(expected, run_declarative(make(), args), "declarative")
        assert_same(expected, run_program(make(), args), "program")


def test_one_path_attribute_in_a_function():
    _fresh_three_ways(lambda: declarative(attr_if), (X, POS), (X, NEG))
    _fresh_three_ways(lambda: declarative(attr_loop), (X, i64([0])), (X, i64([1])),
                      (X, i64([3])))


def test_one_path_attribute_in_layer_forward():
    _fresh_three_ways(lambda: OnePathAttr(False), (X, POS), (X, NEG))
    _fresh_three_ways(lambda: OnePathAttr(True), (X, i64([0])), (X, i64([1])), (X, i64([3])))


def test_reading_an_unset_attribute_names_the_assigning_and_reading_lines():
    got = run_declarative(OnePathAttr(False), (X, NEG))
    assert isinstance(got, AssertionError), got
    lines, first = inspect.getsourcelines(OnePathAttr.forward.dygraph_function)
    assigned = first + next(k for k, t in enumerate(lines) if "self.h = x * 2.0" in t)
    read = first + next(k for k, t in enumerate(lines) if "return x + self.h" in t)
    message = str(got)
    assert "attribute 'self.h' is read (" in message and f"test_flow_corners.py:{read})" \
        in message, message
    assert f"assigned at {__file__}:{assigned} only on some paths" in message, message
    got = run_declarative(declarative(attr_if), (X, NEG))
    assert isinstance(got, AssertionError) and "'box.h' is read" in str(got), got

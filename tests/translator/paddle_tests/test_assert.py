"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_assert.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``).
Paddle's inputs (``[False]``, ``[True]``, ``[0]``, ``[1]``, Python ``True`` / ``False``): the
converted call raises ``AssertionError`` where the eager one does (a tensor's assert as an
Assert op when the Program runs) and returns None where it passes; a tensor of several
elements is ambiguous as eagerly."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from translator import declarative

from ._port import check


@paddle.jit.to_static
def dyfunc_assert_variable(x):
    x_v = fluid.dygraph.to_variable(x)
    assert x_v


@declarative
def dyfunc_assert_non_variable(x=True):
    assert x


@pytest.mark.parametrize("x", [np.array([False]), np.array([True]), np.array([0]),
                               np.array([1]), np.array([2.5], "float32"),
                               np.array([0.0], "float32"), np.array([[1]], "int32")],
                         ids=lambda x: f"{x.dtype}{x.tolist()}")
def test_assert_variable(x):
    check(dyfunc_assert_variable, (x,))


def test_assert_variable_of_several_elements():
    check(dyfunc_assert_variable, (np.array([1, 1]),))


@pytest.mark.parametrize("x", [False, True, 0, 3, None, [], [0]], ids=repr)
def test_assert_non_variable(x):
    check(dyfunc_assert_non_variable, (x,))

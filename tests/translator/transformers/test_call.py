"""Calls: user functions and methods are converted recursively; library code is not."""
import numpy as np
import pytest

import core
from translator.convert import is_converted, not_to_static
from translator.convert_ops import convert_call, convert_range

from ..conftest import both, convert, run_static


def helper(x):
    if x > 0:
        return x * 2
    return -x


@not_to_static
def untouched(x):
    return x


class Model:
    def scale(self, x):
        return helper(x) + 1

    def forward(self, x):
        return self.scale(x)


class Child(Model):
    def scale(self, x):
        return super().scale(x) * 10


def caller(x):
    return helper(x) + abs(x) + untouched(x)


def test_convert_call_dispatch():
    assert is_converted(convert_call(helper))
    assert convert_call(untouched) is untouched
    assert convert_call(np.sum) is np.sum
    assert convert_call(core.to_tensor) is core.to_tensor
    assert convert_call(range) is convert_range
    assert convert_call(Model) is Model


@pytest.mark.parametrize("x", [3, -3])
@pytest.mark.parametrize("passes", [None, ("call",)])
def test_recursive_conversion(x, passes):
    assert both(caller, x, passes=passes) == (caller(x),) * 2


@pytest.mark.parametrize("x", [2, -2])
def test_methods_and_zero_argument_super(x):
    child = Child()
    assert convert(child.scale)(x) == child.scale(x)
    assert convert(child.forward)(x) == child.forward(x)


def test_static_function_objects_are_unwrapped():
    class FakeStaticFunction:
        dygraph_function = staticmethod(helper)

    assert convert_call(FakeStaticFunction())(4) == 8


@pytest.mark.parametrize("value", [[1.0], [-2.0]])
def test_static_nested_call_builds_its_cond(value):
    def f(x):
        return helper(x.sum())

    x = np.array(value, dtype="float32")
    out, _ = run_static(f, [x])
    np.testing.assert_allclose(out, helper(x.sum()))

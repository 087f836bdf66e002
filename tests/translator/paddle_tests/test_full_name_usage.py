"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_full_name_usage.py (2.x releases): functions as written (``paddle.fluid`` -> ``core``,
``fluid.dygraph.declarative`` -> ``translator.declarative``). Paddle's input (ones: the true
branch) and one taking the false branch, eagerly, converted and as an Executor Program; a
declarative function calling another; ``ProgramTranslator`` is one object however it is
imported. Paddle raises NotImplementedError for a ``classmethod`` over a declarative
function; Python 3.11 binds the class as the first argument, and so does the converted call
here (the port follows Python)."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle
import translator
from translator import ProgramTranslator, declarative, program_translator

from ._port import check


@declarative
def dygraph_decorated_func(x):
    x = fluid.dygraph.to_variable(x)
    if paddle.mean(x) > 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


@declarative
def jit_decorated_func(x):
    x = fluid.dygraph.to_variable(x)
    if paddle.mean(x) > 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


@declarative
def decorated_call_decorated(x):
    return jit_decorated_func(x)


class DoubleDecorated(object):

    @classmethod
    @declarative
    def double_decorated_func1(self, x):
        return dygraph_decorated_func(x)

    @classmethod
    @declarative
    def double_decorated_func2(self, x):
        return jit_decorated_func(x)


X = np.ones([1, 2]).astype("float32")
ANSWER = np.zeros([1, 2]).astype("float32")


@pytest.mark.parametrize("fn", [dygraph_decorated_func, jit_decorated_func,
                                decorated_call_decorated], ids=lambda f: f.__name__)
def test_run_success(fn):
    np.testing.assert_allclose(fn(X).numpy(), ANSWER, rtol=1e-05)
    check(fn, (X,), (-X,), (X - 1,))


@pytest.mark.parametrize("name", ["double_decorated_func1", "double_decorated_func2"])
def test_classmethod_over_declarative(name):
    eager = getattr(DoubleDecorated(), name)
    ProgramTranslator().enable(False)
    try:
        expected = eager(fluid.to_tensor(-X)).numpy()
    finally:
        ProgramTranslator().enable(True)
    np.testing.assert_allclose(expected, -X + 1)
    np.testing.assert_allclose(getattr(DoubleDecorated(), name)(-X).numpy(), expected)
    np.testing.assert_allclose(getattr(DoubleDecorated, name)(X).numpy(), ANSWER)


def test_diff_pkg_same_cls():
    assert ProgramTranslator() is translator.ProgramTranslator()
    assert ProgramTranslator() is program_translator.ProgramTranslator()
    assert ProgramTranslator() is paddle.jit.ProgramTranslator()

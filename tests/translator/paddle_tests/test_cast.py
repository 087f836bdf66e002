"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_cast.py
(2.x releases): bodies as written (``paddle.fluid`` -> ``core``, ``paddle.fluid.dygraph``'s
``declarative`` -> ``translator.declarative``); the functions lose their ``test_`` prefix
(pytest would collect them). PaddlePaddle casts a tensor of many elements element by element
(``bool(x)`` of a [16, 32] tensor is a bool [16, 32]); here, as in eager Python, only a
one-element tensor converts, to the Python number (a 0-d tensor in the program), and more
elements raise as eagerly. Paddle's inputs and one-element ones."""
import numpy as np
import pytest

import core as fluid
from translator import declarative

from ._port import check, f32


@declarative
def bool_cast(x):
    x = fluid.dygraph.to_variable(x)
    x = bool(x)
    return x


@declarative
def int_cast(x):
    x = fluid.dygraph.to_variable(x)
    x = int(x)
    return x


@declarative
def float_cast(x):
    x = fluid.dygraph.to_variable(x)
    x = float(x)
    return x


@declarative
def not_var_cast(x):
    x = int(x)
    return x


@declarative
def mix_cast(x):
    x = fluid.dygraph.to_variable(x)
    x = int(x)
    x = float(x)
    x = bool(x)
    x = float(x)
    return x


def binomial(n, *shape, dtype="float32", seed=2020):
    return np.random.RandomState(seed).binomial(n, 0.3, size=shape).astype(dtype)


def normal(*shape, seed=2020):
    return np.random.RandomState(seed).normal(loc=6, scale=10, size=shape).astype("float32")


ONE_ELEMENT = [(f32(1, low=-3.0, high=-2.0),), (f32(1, 1, low=0.2, high=0.9),),
               (np.zeros(1, "float32"),), (np.array([7.9], "float32"),),
               (np.array([-7.9], "float32"),), (np.ones([1], "bool"),), (np.zeros([], "bool"),),
               (np.array([-3], "int32"),), (np.array([5], "int64"),), (normal(1),)]


@pytest.mark.parametrize("fn", [bool_cast, int_cast, float_cast, mix_cast],
                         ids=lambda fn: fn.__name__)
def test_casts_of_one_element_tensors(fn):
    check(fn, *ONE_ELEMENT)


@pytest.mark.parametrize("fn, x", [
    (bool_cast, binomial(4, 16, 32)), (int_cast, normal(3)), (float_cast, binomial(2, 8, 16,
                                                                                 dtype="bool")),
    (mix_cast, normal(8, 32)), (int_cast, np.zeros([0], "float32")),
], ids=["bool", "int", "float", "mix", "int_of_empty"])
def test_casts_of_many_elements_raise_as_eagerly(fn, x):
    check(fn, (x,))


def test_cast_of_a_python_number():
    check(not_var_cast, (3.14,), (-2.5,), (True,), ("12",))

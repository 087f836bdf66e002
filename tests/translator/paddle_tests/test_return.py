"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_return.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``,
``paddle.jit.to_static`` -> ``dy2static.jit.to_static``); the functions lose their ``test_``
prefix (pytest would collect them). Paddle's input is ``np.ones(1)``; negatives take the
other paths."""
import pytest

import core as fluid
import dy2static as paddle
from dy2static.jit import to_static

from ._port import check, f32, i32
from .test_ifelse import dyfunc_with_if_else


@to_static
def return_base(x):
    x = fluid.dygraph.to_variable(x)
    return x


@to_static
def inside_func_base(x):
    x = fluid.dygraph.to_variable(x)

    def inner_func(x):
        return x

    return inner_func(x)


@to_static
def return_if(x):
    x = fluid.dygraph.to_variable(x)
    if x < 0:
        x -= 1
        return -x
    x += 3
    return x


@to_static
def return_if_else(x):
    x = fluid.dygraph.to_variable(x)
    if x > 0:
        x += 10086
        return x
        x -= 3  # useless statement to test our code can handle it.
    else:
        x += 6666
        return x
        x -= 8888  # useless statement to test our code can handle it.


@to_static
def return_in_while(x):
    x = fluid.dygraph.to_variable(x)
    i = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            x += 110
            return x
        x += i
    return x


@to_static
def return_in_for(x):
    x = fluid.dygraph.to_variable(x)
    for i in range(10):
        if i <= 4:
            x += 1
            continue
        else:
            return x + 10086
    return x - 1


@to_static
def recursive_return(x):
    x = fluid.dygraph.to_variable(x)
    return dyfunc_with_if_else(x)


@to_static
def return_different_length_if_body(x):
    x = fluid.dygraph.to_variable(x)
    y = x + 1
    if x > 0:
        # x = to_variable(np.ones(1)) so it will return here
        return x, y
    else:
        return x


@to_static
def return_different_length_else(x):
    x = fluid.dygraph.to_variable(x)
    y = x + 1
    if x < 0:
        return x, y
    else:
        # x = to_variable(np.ones(1)) so it will return here
        return x


@to_static
def no_return(x):
    x = fluid.dygraph.to_variable(x)
    y = x + 1


@to_static
def return_none(x):
    x = fluid.dygraph.to_variable(x)
    y = x + 1
    if x > 0:
        # x = to_variable(np.ones(1)) so it will return here
        return None
    else:
        return x, y


@to_static
def return_no_variable(x):
    x = fluid.dygraph.to_variable(x)
    y = x + 1
    if x < 0:
        return x, y
    else:
        # x = to_variable(np.ones(1)) so it will return here
        return


@to_static
def return_list_one_value(x):
    x = fluid.dygraph.to_variable(x)
    x += 1
    return [x]


@to_static
def return_list_many_values(x):
    x = fluid.dygraph.to_variable(x)
    x += 1
    y = x * 2
    z = x * x
    return [x, y, z]


@to_static
def return_tuple_one_value(x):
    x = fluid.dygraph.to_variable(x)
    x += 1
    return (x,)


@to_static
def return_tuple_many_values(x):
    x = fluid.dygraph.to_variable(x)
    x += 1
    y = x * 2
    z = x * x
    return (x, y, z)


def inner_func(x):
    a = 2
    if a < 0:
        y = x + 1
        return y
    y = x * 2
    return y


@to_static
def return_without_paddle_cond(x):
    # y shape is [10]
    y = paddle.ones([10])

    # the shape of inner_func(y) should be [10], not [1]
    y = inner_func(y)
    y = paddle.reshape(y, [2, 5])
    return y


def two_value(x):
    return x * 2, x + 1


def diff_return_hepler(x):
    if False:
        y = x + 1
        z = x - 1
        return y, z
    else:
        return two_value(x)


@to_static
def diff_return(x):
    x = paddle.to_tensor(x)
    y, z = diff_return_hepler(x)
    if y.shape[0] > 1:
        y = y + 1
    return y, z


@to_static
def return_if_else_2(x):
    rr = 0
    if True:
        rr = 1
        return 1
    else:
        a = 0


@to_static
def return_in_while_2(x):
    while True:
        a = 12
        return 12
    return 10


@to_static
def return_in_for_2(x):
    a = 12
    for i in range(10):
        return 12
    return 10


@to_static
def return_nested(x):
    def func():
        rr = 0
        if True:
            rr = 1
            return 1
            rr = 2
        else:
            a = 0
            return 4
        return 3

    return func()


INPUTS = [(i32(1),), (i32(-1),), (i32(-7),)]


@pytest.mark.parametrize("fn", [
    return_base, inside_func_base, return_if, return_if_else, return_in_while, return_in_for,
    no_return, return_list_one_value, return_list_many_values, return_tuple_one_value,
    return_tuple_many_values, return_without_paddle_cond, return_if_else_2, return_in_while_2,
    return_in_for_2, return_nested,
], ids=lambda fn: fn.__name__)
def test_returns(fn):
    check(fn, *INPUTS)


def test_return_of_a_function_with_tensor_ifs():
    check(recursive_return, (f32(1),), (f32(1, low=5.0, high=9.0),))


def test_return_from_a_python_if_in_a_called_function():
    check(diff_return, (f32(3),), (f32(1),))


@pytest.mark.parametrize("fn", [
    return_different_length_if_body, return_different_length_else, return_none,
    return_no_variable,
], ids=lambda fn: fn.__name__)
def test_paths_returning_different_structures(fn):
    # PaddlePaddle refuses these ("Your if/else have different number of return value");
    # here the call returns what the path taken returned, as eagerly
    check(fn, *INPUTS)

"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_break_continue.py (2.x releases):
bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``); the functions
lose their ``test_`` prefix (pytest would collect them). Paddle's inputs (zeros) and others
that change the trip counts."""
import pytest

import core as fluid
import dy2static as paddle

from ._port import check, converted_error, f32, i32, i64


def continue_in_for(x):
    x = fluid.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
            x += 10086
        x += i
    return x


def continue_in_for_at_end(x):
    x = fluid.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            continue
    return x


def continue_in_while(x):
    x = fluid.dygraph.to_variable(x)
    i = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            continue
            x += 10086
        x += i
    return x


def break_in_for(x):
    x = fluid.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            break
            x += 10086
        x += i
    return x


def break_in_for_at_end(x):
    x = fluid.dygraph.to_variable(x)
    for i in range(10):
        x += 1
        if i > 5:
            break
    return x


def break_in_while(x):
    x = fluid.dygraph.to_variable(x)
    i = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        i += 1
        if i > 5:
            break
            x += 10086
        x += i
    return x


def break_continue_in_for(x):
    x = fluid.dygraph.to_variable(x)

    for i in range(1, 10, 1):
        if i <= 4:
            x += 1
            continue
        else:
            x += 10010
            break
        x += 10086

    a = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    b = fluid.layers.fill_constant(shape=[1], dtype='int32', value=3)
    # b = 10
    # TODO: add Raise Error and suggestion for usage:
    #   Py for contains break/continue depends on control-flow.
    for i in range(b):
        if a <= 4:
            x += 1
            a += 1
            continue
        else:
            x += 10010
            break
        x += 10086

    return x


def for_in_else(x):
    x = fluid.dygraph.to_variable(x)

    # Case 1:
    if False:
        pass
    else:
        for i in range(0, 10):
            if i > 5:
                x += 1
                break
            x += i

    # Case 2:
    if False:
        pass
    else:
        for i in range(0, 10):
            x += 1
            break
            x += i
    return x


def while_loop_class_var(x):
    class Foo:
        def __init__(self):
            self.a = 3
            self.b = 4
            self.c = 5

    foo = Foo()
    i = fluid.dygraph.to_variable(x)
    while i < 10:
        foo.b = fluid.layers.zeros(shape=[1], dtype='float32')
        foo.c = foo.b + foo.a
        i += 1
        if foo.c < 0:
            continue
        if foo.c > 6:
            break
    return foo.c


def optim_break_in_for(x):
    x = paddle.to_tensor(x)
    for i in range(10):
        if x.sum() > 5:
            break
            x += 10086
        x += i
        if i < 3:
            x = x * 2
    return x


def optim_break_in_while(x):
    x = paddle.to_tensor(x)
    i = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    while i < 10:
        if i > 5:
            break
            x += 10086
        x += i
        i += 1
    return x


@pytest.mark.parametrize("fn", [
    continue_in_for, continue_in_for_at_end, continue_in_while, break_in_for,
    break_in_for_at_end, break_in_while, break_continue_in_for, for_in_else,
    optim_break_in_while,
], ids=lambda fn: fn.__name__)
def test_break_continue(fn):
    # Paddle's input: np.zeros(1) int64; also int32 (the while counters' dtype)
    check(fn, (i64(0),), (i32(3),))
    if fn not in (continue_in_while, break_in_while, optim_break_in_while):
        check(fn, (f32(2),))


@pytest.mark.parametrize("fn", [continue_in_while, break_in_while, optim_break_in_while],
                         ids=lambda fn: fn.__name__)
def test_loop_variable_whose_dtype_the_body_changes(fn):
    # float32 x += int32 i is float64 (numpy promotion; PaddlePaddle keeps float32): after
    # the loop x is float32 or float64 by the trip count, which no static loop can give.
    # The converted call says so, naming x and the loop's line
    error = converted_error(fn, f32(2))
    assert isinstance(error, TypeError) and "variable 'x' is float32" in str(error)
    assert "float64 after its body" in str(error) and "test_break_continue.py" in str(error)


def test_while_loop_class_var():
    check(while_loop_class_var, (i64(0),), (i64(9),), (i64(10),))


def test_break_on_a_tensor_in_a_python_range():
    # PaddlePaddle refuses it ("python while pred change from bool to variable"); here the
    # loop becomes a while_loop: no trip breaks, the first breaks, a later one breaks
    check(optim_break_in_for, (f32(10, 16),), (f32(3, low=-1.0, high=0.0),),
          (f32(2, low=0.0, high=0.1),))

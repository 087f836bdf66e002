"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_loop.py
(2.x releases): its loop functions, bodies as written (``paddle`` -> ``dy2static``,
``paddle.fluid`` -> ``core``, ``paddle.static.nn.control_flow`` -> ``core.layers``), each
on several trip counts, zero included. The NameVisitor tests (Paddle-internal analysis) are
not ported."""
import pytest

import core as fluid
import dy2static as paddle
from core import layers as control_flow

from ._port import check, i32, i64


def while_loop_dyfunc(x):
    i = fluid.dygraph.to_variable(x)
    while x < 10:
        i = i + x
        x = x + 1
    return i


def while_loop_dyfunc_without_tensor(x):
    a = 1
    # There are no tensors in the while condition, which means it's a plain while in python,
    # so it wont't be transformed to `while_loop` op.
    while not a > 4 and a > 0:
        x = x + 1
        a = a + 1

    return x


def while_loop_dyfun_with_conflict_var(x):
    i = fluid.dygraph.to_variable(x)

    def relu(y):
        # 'y' is not visible outside the scope.
        return fluid.layers.relu(y)

    while x < 10:
        # If a tmp variable is created which has same name
        # with a argument in function, it should not be
        # included in the loop_vars.
        add_fn = lambda x, y: x + y
        i = add_fn(i, x)
        x = x + 1
    return i


def while_loop_dyfunc_with_none(x):
    i = (
        fluid.dygraph.to_variable(x)
        if x is not None
        else fluid.dygraph.to_variable(x + 1)
    )
    # Use `to_variable` so that static analysis can analyze the type of X is Tensor
    x = fluid.dygraph.to_variable(
        x
    )  # TODO(liym27): Delete it if the type of parameter x can be resolved
    flag = 1
    while x < 10:
        i = i + x if flag is not None else x + i
        x = x + 1
    return i


def for_loop_dyfunc(max_len):
    for i in range(max_len):
        ret = fluid.layers.zeros(shape=[1], dtype='float32')
        control_flow.increment(ret, value=2.0, in_place=True)
    return ret


def for_loop_dyfunc2(max_len):
    # Test case: a variable is used and created in loop, but used before created
    x = fluid.layers.fill_constant(shape=[1, 2], dtype="int32", value=1)

    for i in range(max_len):
        if i > 1:
            s = a
        a = 1
        q, _ = x.shape  # test var x.shape only used but not created in loop

    ret = fluid.layers.fill_constant(shape=[1], dtype="int32", value=s + q)
    return ret


def for_loop_dyfunc3(max_len):
    ret = fluid.layers.zeros(shape=[1], dtype='float32')
    for i in range(1, 10, 2):
        control_flow.increment(ret, value=2.0, in_place=True)
    return ret


def for_loop_dyfunc4(max_len):
    ret = fluid.layers.zeros(shape=[1], dtype='float32')
    for i in range(10, 1, -2):
        control_flow.increment(ret, value=2.0, in_place=True)
    return ret


def for_loop_dyfunc_not_support(max_len):
    ret = fluid.layers.zeros(shape=[1], dtype='float32')
    a = -2
    for i in range(10, 1, a):
        control_flow.increment(ret, value=2.0, in_place=True)
    return ret


def for_break_single_return(max_len):
    x = 0
    for i in range(3):
        if i == 2:
            break
        x += 1
    return x


def while_loop_bool_op(x):
    i = fluid.dygraph.to_variable(x)

    while x <= -1 or x < -3 or (x < -7 or x < -5) or (x >= 0 and x < 10):
        i = i + x
        x = x + 1
    return i


def while_loop_bool_op2(x):
    i = fluid.dygraph.to_variable(x)
    a = 1

    # In the while condition, there are both Paddle Variable and non-Variable.
    while x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        i = i + x
        x = x + 1
        a = a + 1
    return i


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
    return foo.c


def loop_var_contains_property(x):
    a = paddle.zeros(shape=[1], dtype='float32')
    i = paddle.to_tensor(x)
    s = i.shape
    while i < 10 and s[0] >= 1:
        a += i.shape[0]
        i += 1
    return a


def for_loop_class_var(max_len):
    class Foo:
        def __init__(self):
            self.a = 3
            self.b = 4
            self.c = 5

    foo = Foo()

    # Use `to_variable` so that static analysis can analyze the type of X is Tensor
    max_len = fluid.layers.fill_constant(
        shape=[1], value=max_len, dtype="int32"
    )

    for i in range(max_len):
        foo.b = fluid.layers.zeros(shape=[1], dtype='float32')
        foo.c = foo.b + foo.a
    return foo.c


def var_create_in_for_loop(max_len):
    for i in range(max_len):
        ret = fluid.layers.zeros(shape=[3, 4, 5], dtype='float64')
    return ret


def nested_for_loop_dyfunc():
    two = fluid.layers.fill_constant(shape=[1], value=2, dtype="int32")
    three = fluid.layers.fill_constant(shape=[1], value=3, dtype="int32")
    for j in range(two):
        for i in range(10):
            a = 2 + j

    for i in range(three):
        b = fluid.layers.zeros(shape=[1], dtype='float32')

    return b


def for_loop_dufunc_with_listcomp(array):
    a = 1
    for j in range(array):
        res = [x + a for x in array]
        res = [i for i in array]
        x = 1
    b = [i for i in array]
    print(x)
    return res


# Paddle runs these with x = np.zeros(1, int32); also 9 (one trip), 10 (none) and negatives
WHILE_INPUTS = [(i32(0),), (i32(9),), (i32(10),), (i32(-4),), (i32(-9),)]


@pytest.mark.parametrize("fn", [
    while_loop_dyfunc, while_loop_dyfunc_without_tensor, while_loop_dyfun_with_conflict_var,
    while_loop_dyfunc_with_none, while_loop_bool_op, while_loop_bool_op2,
    loop_var_contains_property,
], ids=lambda fn: fn.__name__)
def test_while_loops(fn):
    check(fn, *WHILE_INPUTS)


def test_while_loop_writing_object_attributes():
    # foo.c is bound only by the loop: zero trips leave foo.c the Python 5
    check(while_loop_class_var, (i32(0),), (i32(9),), (i32(10),))


@pytest.mark.parametrize("fn", [
    for_loop_dyfunc, for_loop_dyfunc3, for_loop_dyfunc4, for_loop_class_var,
    var_create_in_for_loop, for_break_single_return,
], ids=lambda fn: fn.__name__)
def test_for_loops_over_python_and_tensor_counts(fn):
    # Paddle passes max_len 100; a tensor count converts the loop to a while_loop
    check(fn, (100,), (1,), (i32(3),), (i64(1),))


def test_for_loop_counts_of_zero_leave_loop_names_unbound():
    # ret is made only in the loop: zero trips raise UnboundLocalError eagerly
    for fn in (for_loop_dyfunc, var_create_in_for_loop):
        check(fn, (0,), (i32(0),))
    check(for_loop_class_var, (0,))  # foo.c stays the Python 5


def test_name_used_before_created_in_loop():
    # ``s = a`` from the third trip on: fewer than three trips leave s unbound
    check(for_loop_dyfunc2, (100,), (3,), (2,), (i32(3),), (i32(5),), (i32(2),))


def test_range_with_a_negative_step_from_a_name():
    check(for_loop_dyfunc_not_support, (100,))


def test_nested_for_over_tensor_counts():
    check(nested_for_loop_dyfunc, ())


def test_for_over_a_tensor_with_list_comprehensions():
    # ``range(array)`` of a one-element tensor and comprehensions over its elements
    check(for_loop_dufunc_with_listcomp, (i64(3),), (i64(1),))

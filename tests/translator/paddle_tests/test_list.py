"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_list.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``);
the functions lose their ``test_`` prefix (pytest would collect them). Paddle's input is
``np.random.random(3).astype('int32')`` (zeros) with ``iter_num = 3``; positive inputs take
the other branches and iteration counts go down to zero."""
import pytest

import core as fluid
import dy2static as paddle

from ._port import check, f32, i32


# Situation 1: Test list append
def list_append_without_control_flow(x):
    # Python list will not be transformed.
    x = fluid.dygraph.to_variable(x)
    a = []
    # It's a plain python control flow which won't be transformed
    if 2 > 1:
        a.append(x)
    return a


def list_append_in_if(x):
    x = fluid.dygraph.to_variable(x)
    a = []
    if x.numpy()[0] > 0:
        a.append(x)
    else:
        a.append(
            fluid.layers.fill_constant(shape=[1, 2], value=9, dtype="int64"))
    # TODO(Aurelius84): Currently, run_program_op doesn't support output LoDTensorArray.
    return a[0]


def list_append_in_for_loop(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    # Use `fill_constant` so that static analysis can analyze the type of iter_num is Tensor
    iter_num = fluid.layers.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )  # TODO(liym27): Delete it if the type of parameter iter_num can be resolved
    a = []
    for i in range(iter_num):
        a.append(x)
    return a[0]


def list_append_in_for_subscript(x):
    x = fluid.dygraph.to_variable(x)
    iter_num = paddle.shape(x)[0]
    a = []
    for i in range(iter_num):
        x = x + 1
        a.append(x)
    out = paddle.concat(a)
    return out[0]


def list_append_in_while_loop_subscript(x):
    x = fluid.dygraph.to_variable(x)
    iter_num = paddle.shape(x)[0]
    a = []
    i = 0
    while i < iter_num:
        x = x + 1
        a.append(x)
        i += 1
    out = paddle.concat(a)
    return out[0]


def list_append_in_for_loop_with_concat(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    a = []
    # Use `fill_constant` so that static analysis can analyze the type of iter_num is Tensor
    iter_num = fluid.layers.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )  # TODO(liym27): Delete it if the type of parameter iter_num can be resolved
    for i in range(iter_num):
        a.append(x)
    a = fluid.layers.concat(a, axis=0)
    return a


def list_append_in_while_loop(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    iter_num = fluid.layers.fill_constant(shape=[1],
                                          value=iter_num,
                                          dtype="int32")
    a = []
    i = 0
    while i < iter_num:
        a.append(x)
        i += 1
    return a[0]


def list_append_in_while_loop_with_stack(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    iter_num = fluid.layers.fill_constant(shape=[1],
                                          value=iter_num,
                                          dtype="int32")
    a = []
    i = 0
    while i < iter_num.numpy()[0]:
        a.append(x)
        i += 1
    out = fluid.layers.stack(a, axis=1)
    return out


# Situation 2: Test list pop
def list_pop_without_control_flow_1(x):
    x = fluid.dygraph.to_variable(x)
    a = []
    if 2 > 1:
        a.append(x)
    a.pop()
    return a


def list_pop_without_control_flow_2(x):
    x = fluid.dygraph.to_variable(x)
    a = []
    if 2 > 1:
        a.append(x)
        a.append(x + 1)
    last_item = a.pop(1)
    return last_item


def list_pop_in_if(x):
    x = fluid.dygraph.to_variable(x)
    a = []
    b = [x * 2 + (x + 1)]
    if x.numpy()[0] > 0:
        a.append(x)
        b.append(x + 1)
        a.append(fluid.layers.fill_constant(shape=[1], value=1, dtype="int64"))
    else:
        a.append(x + 1)
        b.append(x - 1)
        a.append(fluid.layers.fill_constant(shape=[2], value=2, dtype="int64"))
    item1 = a.pop(1)
    return item1, b[-1]


def list_pop_in_for_loop(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    # Use `fill_constant` so that static analysis can analyze the type of iter_num is Tensor
    iter_num = fluid.layers.fill_constant(
        shape=[1], value=iter_num, dtype="int32"
    )  # TODO(liym27): Delete it if the type of parameter iter_num can be resolved

    a = []
    b = [x - 1, x + 1]
    for i in range(iter_num):
        a.append(x + i)
        b.append(x * 2)

    one = fluid.layers.ones(shape=[1], dtype="int32")
    for i in range(one.numpy()[0]):
        item = a.pop()
    return a[0], item, b[1]


def list_pop_in_while_loop(x, iter_num):
    x = fluid.dygraph.to_variable(x)
    iter_num = fluid.layers.fill_constant(shape=[1], value=iter_num, dtype="int32")
    a = []
    b = [x]
    b.append(x)
    b.pop()
    i = 0
    while i < iter_num:
        a.append(x + i)
        b.append(x - i)
        i += 1
        if i % 2 == 1:
            a.pop()
    return a[0], b[2]


class ListWithCondNet(paddle.nn.Layer):

    def __init__(self):
        super(ListWithCondNet, self).__init__()

    @paddle.jit.to_static
    def forward(self, x, index):
        y = paddle.nn.functional.relu(x)
        a = []

        for i in y:
            a.append(i)

        if index > 0:
            res = a[0] * a[0]
            y = y + 1
        else:
            res = a[-1] * a[-1]
            y = y - 1

        z = a[-1] * res * y[0]
        return z


ZEROS, POSITIVE, NEGATIVE = i32(0, 0, 0), i32(2, 1, 3), i32(-2, 5, 1)


@pytest.mark.parametrize("fn", [
    list_append_without_control_flow, list_pop_without_control_flow_1,
    list_pop_without_control_flow_2, list_append_in_if, list_pop_in_if,
], ids=lambda fn: fn.__name__)
def test_list_without_loops(fn):
    check(fn, (ZEROS,), (POSITIVE,), (NEGATIVE,))


@pytest.mark.parametrize("fn", [
    list_append_in_while_loop, list_append_in_while_loop_with_stack,
    list_append_in_for_loop, list_pop_in_for_loop, list_append_in_for_loop_with_concat,
    list_pop_in_while_loop,
], ids=lambda fn: fn.__name__)
def test_list_in_loops(fn):
    # Paddle's iter_num is 3; fewer trips leave a[0] (a[0] after a pop, b[2]) out of range
    # and an empty list to stack or concat: the converted call raises as eagerly
    check(fn, *[(x, n) for x in (ZEROS, POSITIVE) for n in (3, 5, 2, 1, 0)])


@pytest.mark.parametrize("fn", [list_append_in_for_subscript,
                                list_append_in_while_loop_subscript],
                         ids=lambda fn: fn.__name__)
def test_list_in_loops_over_a_shape(fn):
    # Paddle's input is float32 [3, 4]; a first dimension of 1 and of 0 too
    check(fn, (f32(3, 4),), (f32(1, 4),), (f32(0, 4),))


def test_list_of_a_tensor_rows_with_a_tensor_condition():
    net = ListWithCondNet()
    x = f32(3, low=-1.0, high=5.0)
    check(net, (i32(2, 3, 4).astype("float32"), i32(1)), (x, i32(0)), (x, i32(-3)))
    # Paddle's check: res[0] == 48 (a row of a 1-D tensor is 0-d here, as in numpy)
    assert float(net(fluid.to_tensor(i32(2, 3, 4).astype("float32")),
                     fluid.to_tensor(i32(1))).numpy()) == 48.0

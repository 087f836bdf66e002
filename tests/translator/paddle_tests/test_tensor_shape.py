"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_tensor_shape.py (2.x releases):
bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``); each function
on Paddle's input (``ones(5)`` / ``ones((5, 7))`` int32) and on other lengths, empty included,
converted for the input's shape and through an ``InputSpec`` whose dims are unknown (-1) until
the program runs. The op-count checks (Paddle's own program layout) are not ported."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from dy2static.static import InputSpec

from ._port import check, i32


def dyfunc_tensor_shape_1(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.reshape(x, shape=x.shape)
    return res


def dyfunc_tensor_shape_2(x):
    x = paddle.to_tensor(x)
    shape = x.shape
    shape2 = shape
    res = paddle.reshape(x, shape2)
    return res


def dyfunc_tensor_shape_3(x):
    # Transform y.shape but run y.shape actually because y is not Tensor
    x = fluid.dygraph.to_variable(x)
    y = np.ones(5)
    res = fluid.layers.reshape(x, shape=y.shape)
    return res


def dyfunc_tensor_shape_4(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.reshape(x, shape=(-1, x.shape[0], len(x.shape)))
    return res


def dyfunc_tensor_shape_5(x):
    # `res = fluid.layers.reshape(x, shape=(-1, s))` to
    # `res = fluid.layers.reshape(x, shape=(-1,
    #           paddle.jit.dy2static.convert_var_shape(x)[0]))`
    x = fluid.dygraph.to_variable(x)
    s = x.shape[0]
    res = fluid.layers.reshape(x, shape=(-1, s))
    return res


def dyfunc_tensor_shape_6(x):
    # `res = fluid.layers.reshape(x, shape=(-1, s))` to
    # `res = fluid.layers.reshape(x, shape=(-1,
    #           paddle.jit.dy2static.convert_var_shape(x)[0:]))`
    x = fluid.dygraph.to_variable(x)
    s = x.shape[0:]
    res = fluid.layers.reshape(x, shape=s)
    return res


def dyfunc_tuple_shape_1(x):
    x = paddle.to_tensor(x)
    a, b = x.shape
    res = paddle.reshape(x, shape=(b, a))
    return res


def dyfunc_tuple_shape_2(x):
    x = paddle.to_tensor(x)
    shape = x.shape
    a, b = shape
    res = paddle.reshape(x, shape=(b, a))
    return res


def dyfunc_tuple_shape_3(x):
    x = paddle.to_tensor(x)
    a, b = paddle.shape(x)
    res = paddle.reshape(x, shape=(b, a))
    return res


def dyfunc_paddle_shape_api(x):
    x = paddle.to_tensor(x)
    # paddle.shape will not be converted.
    a = paddle.shape(x)[0]
    # alias api will also not be converted.
    alias_old_api = paddle.fluid.layers
    b = alias_old_api.shape(x)[1]
    res = paddle.reshape(x, shape=(b, a))
    return res


def dyfunc_with_if_1(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.reshape(x, [-1, 1])
    x_shape_0 = x.shape[0]
    if x_shape_0 < 1:
        # `res.shape[0]` is transformed into
        #   `paddle.jit.dy2static.convert_var_shape(res)[0]`
        if res.shape[0] > 1:
            res = fluid.layers.fill_constant(value=2,
                                             shape=x.shape,
                                             dtype="int32")
        else:
            res = fluid.layers.fill_constant(value=3,
                                             shape=x.shape,
                                             dtype="int32")
    return res


def dyfunc_with_if_2(x):
    x = fluid.dygraph.to_variable(x)
    # `len(x.shape)` will not be transformed because x.shape is not used by Paddle api.
    if len(x.shape) < 1:
        res = x
    else:
        res = fluid.layers.fill_constant(value=8, shape=x.shape, dtype="int32")

    return res


def dyfunc_with_for_1(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")
    # `x.shape[0]` is transformed into `paddle.jit.dy2static.convert_var_shape(x)[0]`
    for i in range(x.shape[0]):
        res += 1
    return res


def dyfunc_with_for_2(x):
    x = fluid.dygraph.to_variable(x)
    x_shape_0 = x.shape[0]
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")

    # `x_shape_0` is transformed into `paddle.jit.dy2static.convert_var_shape(x)[0]`
    for i in range(x_shape_0):
        res += 1
    return res


def dyfunc_with_for_3(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")
    # `len(x.shape)` is not transformed.
    for i in range(len(x.shape)):
        res += 1

    return res


def dyfunc_with_while_1(x):
    x = fluid.dygraph.to_variable(x)
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")
    # `x.shape[0]` is transformed into `paddle.jit.dy2static.convert_var_shape(x)[0]`
    i = 1
    while i < x.shape[0]:
        res += 1
        i = i + 2
    return res


def dyfunc_with_while_2(x):
    x = fluid.dygraph.to_variable(x)
    x_shape_0 = x.shape[0]
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")
    i = 1
    # `x_shape_0` is transformed into `paddle.jit.dy2static.convert_var_shape(x)[0]`
    while i < x_shape_0:
        res += 1
        i = i + 2
    return res


def dyfunc_with_while_3(x):
    x = fluid.dygraph.to_variable(x)
    x_shape = x.shape
    res = fluid.layers.fill_constant(value=0, shape=[1], dtype="int32")
    i = 1

    # `len(x.shape)` is not transformed.
    while len(x_shape) > i:
        res += 1
        i += 1
    return res


def dyfunc_with_while_4(x):
    x = paddle.to_tensor(x)
    y = np.ones(5)
    y_shape_0 = y.shape[0]
    i = 1

    # Transform y_shape_0 but run y.shape[0] actually because y is not Tensor
    while y_shape_0 > i:
        x += 1
        i += 1
    return x


def dyfunc_change_shape_after_assign(x):
    x = paddle.to_tensor(x)
    a, b = x.shape
    x = paddle.reshape(x, shape=(-1, 1))
    res = paddle.reshape(x, shape=(b, a))
    return res


def dyfunc_len_paddle_shape():
    x = paddle.to_tensor([1, 2, 3])
    if len(paddle.shape(x)) > 0:
        print(x)


def dyfunc_dict_assign_shape():
    x = paddle.to_tensor([1, 2])
    a = {}
    a['shape'] = x.shape[0]


def ones(*shape):
    return np.ones(shape, dtype="int32")


ONE_DIM = [(ones(5),), (ones(1),), (ones(2),), (ones(0),)]


def with_unknown_dims(fn, ndim):
    return paddle.jit.to_static(fn, input_spec=[InputSpec(shape=[-1] * ndim, dtype="int32")])


@pytest.mark.parametrize("fn", [
    dyfunc_tensor_shape_1, dyfunc_tensor_shape_2, dyfunc_tensor_shape_4, dyfunc_tensor_shape_5,
    dyfunc_tensor_shape_6, dyfunc_with_if_1, dyfunc_with_if_2, dyfunc_with_for_1,
    dyfunc_with_for_2, dyfunc_with_for_3, dyfunc_with_while_1, dyfunc_with_while_2,
    dyfunc_with_while_3, dyfunc_with_while_4,
], ids=lambda fn: fn.__name__)
def test_shapes_of_one_dim_inputs(fn):
    check(fn, *ONE_DIM)
    check(with_unknown_dims(fn, 1), *ONE_DIM)


def test_reshape_to_a_numpy_arrays_shape():
    # five elements only: other lengths raise eagerly and converted alike
    check(dyfunc_tensor_shape_3, (ones(5),), (i32(1, 2, 3, 4, 5),), (ones(3),))
    check(with_unknown_dims(dyfunc_tensor_shape_3, 1), (ones(5),), (ones(3),))


@pytest.mark.parametrize("fn", [
    dyfunc_tuple_shape_1, dyfunc_tuple_shape_2, dyfunc_tuple_shape_3, dyfunc_paddle_shape_api,
    dyfunc_change_shape_after_assign,
], ids=lambda fn: fn.__name__)
def test_shapes_unpacked_from_two_dim_inputs(fn):
    cases = [(ones(5, 7),), (np.arange(6, dtype="int32").reshape(2, 3),), (ones(1, 4),),
             (ones(0, 3),)]
    check(fn, *cases)
    check(with_unknown_dims(fn, 2), *cases)


@pytest.mark.parametrize("fn", [dyfunc_len_paddle_shape, dyfunc_dict_assign_shape],
                         ids=lambda fn: fn.__name__)
def test_shapes_of_constants(fn):
    check(fn, ())

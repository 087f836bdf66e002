"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_for_enumerate.py (2.x releases):
bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``). Paddle's inputs
(``[1, 2, 3]``, ``np.array([5])``, ``np.array([1, 2, 3, 4, 5])``) and others giving zero, one
and several trips, breaks and continues taken and not."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle

from ._port import check, converted_error, f32, i32, i64


# 0. for in range var.numpy()[0]
@paddle.jit.to_static
def for_in_range(x):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x = fluid.dygraph.to_variable(x)
    for i in range(x.numpy()[0]):
        z = z + i
    return z


# 1. for iter list
@paddle.jit.to_static
def for_iter_list(x_array):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    for x in x_array:
        z = z + x
    return z


# 2. for enumerate list
@paddle.jit.to_static
def for_enumerate_list(x_array):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    for i, x in enumerate(x_array):
        z = z + x + i
    return z


# 3. for iter var.numpy()
@paddle.jit.to_static
def for_iter_var_numpy(x_array):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for x in x_array.numpy():
        z = z + x
    return z


# 4. for enumerate var.numpy()
@paddle.jit.to_static
def for_enumerate_var_numpy(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy()):
        y = y + i
        z = z + x
    return y, z


# 5. for enumerate var.numpy() with start
@paddle.jit.to_static
def for_enumerate_var_numpy_with_start(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy(), 1):
        y = y + i
        z = z + x
    return y, z


# 6. for in range with break
@paddle.jit.to_static
def for_in_range_with_break(x):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x = fluid.dygraph.to_variable(x)
    for i in range(x.numpy()[0]):
        z = z + i
        if i > 2:
            break
    return z


# 7. for enumerate var.numpy() with break
@paddle.jit.to_static
def for_enumerate_var_numpy_with_break(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy()):
        y = y + i
        z = z + x
        if i > 2:
            break
    return y, z


# 8. for enumerate var.numpy() with continue
@paddle.jit.to_static
def for_enumerate_var_numpy_with_continue(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy()):
        y = y + i
        if i > 2:
            continue
        z = z + x
    return y, z


# 9. for enumerate var.numpy() with start & break
@paddle.jit.to_static
def for_enumerate_var_numpy_with_start_break(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy(), 1):
        y = y + i
        z = z + x
        if i > 2:
            break
    return y, z


# 10. for enumerate var.numpy() with start & continue
@paddle.jit.to_static
def for_enumerate_var_numpy_with_start_continue(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array.numpy(), 1):
        y = y + i
        if i > 2:
            continue
        z = z + x
    return y, z


# 11. for iter var
@paddle.jit.to_static
def for_iter_var(x_array):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)

    for x in x_array:
        z = z + x
    return z


# 12. for enumerate var
@paddle.jit.to_static
def for_enumerate_var(x_array):
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, x in enumerate(x_array):
        y = y + i
        z = z + x
    return y, z


# 13. for iter list[var]
@paddle.jit.to_static
def for_iter_var_list(x):
    # 1. prepare data, ref test_list.py
    x = fluid.dygraph.to_variable(x)
    iter_num = fluid.layers.fill_constant(shape=[1], value=5, dtype="int32")
    a = []
    for i in range(iter_num):
        a.append(x + i)
    # 2. iter list[var]
    y = fluid.layers.fill_constant([1], 'int32', 0)
    for x in a:
        y = y + x
    return y


# 14. for enumerate list[var]
@paddle.jit.to_static
def for_enumerate_var_list(x):
    # 1. prepare data, ref test_list.py
    x = fluid.dygraph.to_variable(x)
    iter_num = fluid.layers.fill_constant(shape=[1], value=5, dtype="int32")
    a = []
    for i in range(iter_num):
        a.append(x + i)
    # 2. iter list[var]
    y = fluid.layers.fill_constant([1], 'int32', 0)
    z = fluid.layers.fill_constant([1], 'int32', 0)
    for i, x in enumerate(a):
        y = y + i
        z = z + x
    return y, z


# 15. for enumerate list[var] with a nested for range
@paddle.jit.to_static
def for_enumerate_var_with_nested_range(x_array):
    x = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)
    for i, num in enumerate(x_array):
        for idx in range(num):
            x = x + num
    return x


# 16. for iter var[idx]
@paddle.jit.to_static
def for_iter_var_idx(x_array):
    z = fluid.layers.fill_constant([1], 'int32', 0)
    x_array = fluid.dygraph.to_variable(x_array)

    for x in x_array[0:]:
        z = z + x
    return z


# 17. for a,b,c in z: (a, b, c) is a tuple
@paddle.jit.to_static
def for_tuple_as_iter_var(x_array):
    x = paddle.to_tensor(x_array)
    z = paddle.to_tensor(np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]]))

    a_result = paddle.zeros([3])
    b_result = paddle.zeros([3])
    c_result = paddle.zeros([3])

    for a, b, c in z:
        a_result += a
        b_result += b
        c_result += c

    return a_result, b_result, c_result


# 18. for t in enumerate(collection): t is tuple of (idx, element)
@paddle.jit.to_static
def for_tuple_as_enumerate_iter(x_array):
    x = paddle.to_tensor(x_array)
    x_list = [x, x, x]

    a_result = paddle.zeros([5])

    for t in enumerate(x_list):
        a_result += t[1]

    return a_result


# 19. for i, (a, b, c, d, e) in enumerate(collection): (a, b, c, d, e) is a tuple
@paddle.jit.to_static
def for_tuple_as_enumerate_value(x_array):
    x = paddle.to_tensor(x_array)
    x_list = [x, x, x]

    a_result = paddle.zeros([1])
    b_result = paddle.zeros([1])
    c_result = paddle.zeros([1])
    d_result = paddle.zeros([1])
    e_result = paddle.zeros([1])

    for i, (a, b, c, d, e) in enumerate(x_list):
        a_result += a
        b_result += b
        c_result += c
        d_result += d
        e_result += e

    return a_result


# 20. test for function in a class
class ForwardContainsForLayer(paddle.nn.Layer):
    def __init__(self):
        super(ForwardContainsForLayer, self).__init__()
        self.high = 5
        self.low = 3

    @paddle.jit.to_static
    def forward(self, x):
        # just for test case, x is useless in this method
        y = paddle.zeros([10, 2, 3])
        z = []
        for i in range(self.high - self.low):
            z.append(y[i].clone())
        return z


# 21. for original list
@paddle.jit.to_static
def for_original_list():
    z = fluid.layers.fill_constant([1], 'int32', 0)
    for x in [1, 2, 3]:
        z = z + x
    return z


# 22. for original tuple
@paddle.jit.to_static
def for_original_tuple():
    z = fluid.layers.fill_constant([1], 'int32', 0)
    for x in (1, 2, 3):
        z = z + x
    return z


@pytest.mark.parametrize("fn", [for_in_range, for_in_range_with_break],
                         ids=lambda fn: fn.__name__)
def test_for_in_range_of_a_tensor_element(fn):
    # Paddle's np.array([5]) (int64); 0, 1 and 3 trips, int32 too
    check(fn, (i64(5),), (i64(0),), (i64(1),), (i64(3),), (i32(4),), (i32(-2),))


@pytest.mark.parametrize("fn", [for_iter_list, for_enumerate_list], ids=lambda fn: fn.__name__)
def test_for_over_python_lists(fn):
    check(fn, ([1, 2, 3],), ([],), ([7],))


ARRAYS = [(i32(1, 2, 3, 4, 5),), (i32(),), (i32(7),), (i32(3, -1, 2),)]


@pytest.mark.parametrize("fn", [
    for_iter_var_numpy, for_enumerate_var_numpy, for_enumerate_var_numpy_with_start,
    for_enumerate_var_numpy_with_break, for_enumerate_var_numpy_with_continue,
    for_enumerate_var_numpy_with_start_break, for_enumerate_var_numpy_with_start_continue,
    for_iter_var, for_enumerate_var, for_iter_var_idx, for_enumerate_var_with_nested_range,
], ids=lambda fn: fn.__name__)
def test_for_over_tensors(fn):
    # int32 like the sums; Paddle's int64 array makes z int64 after a trip (see below)
    check(fn, *ARRAYS)


@pytest.mark.parametrize("fn", [for_iter_var_list, for_enumerate_var_list],
                         ids=lambda fn: fn.__name__)
def test_for_over_a_list_a_tensor_loop_filled(fn):
    check(fn, (i32(5),), (i32(0, 1),), (i32(),))


def test_loop_variable_whose_dtype_the_body_changes():
    # float32 zeros += an int64 row element is float64, int32 z + an int64 element is int64
    # (numpy promotion; PaddlePaddle keeps the left operand's dtype): after the loop the dtype
    # depends on the trip count, which no static loop can give. The converted call says so
    for fn, x, name in ((for_tuple_as_iter_var, i64(1, 2, 3, 4, 5), "a_result"),
                        (for_iter_var, i64(1, 2, 3, 4, 5), "z"),
                        (for_iter_var_numpy, i64(1, 2, 3, 4, 5), "z")):
        error = converted_error(fn, x)
        assert isinstance(error, TypeError) and f"variable '{name}'" in str(error)
        assert "after its body" in str(error) and "test_for_enumerate.py" in str(error)


@pytest.mark.parametrize("fn", [for_tuple_as_enumerate_iter, for_tuple_as_enumerate_value],
                         ids=lambda fn: fn.__name__)
def test_for_over_enumerate_of_a_list(fn):
    check(fn, (f32(5),), (i64(1, 2, 3, 4, 5),))


def test_for_in_a_layer_forward():
    check(ForwardContainsForLayer(), (i64(1, 2, 3, 4, 5),))


@pytest.mark.parametrize("fn", [for_original_list, for_original_tuple],
                         ids=lambda fn: fn.__name__)
def test_for_over_literals(fn):
    check(fn, ())

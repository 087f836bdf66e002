"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_slice.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``); the functions lose their
``test_`` prefix (pytest would collect them). Paddle's inputs (``random(3)`` int32: zeros,
``iter_num`` 3, ``full([3, 4, 5], 5)``) and others taking the other branch and other trip
counts, zero included; the static-mode slice checks run in a fresh Program."""
import numpy as np
import pytest

import core
import dy2static as paddle
from dy2static.static import InputSpec

from ._port import check, f32, i32


@paddle.jit.to_static
def slice_without_control_flow(x):
    # Python slice will not be transformed.
    x = paddle.to_tensor(x)
    a = [x]
    a[0] = paddle.full(shape=[2], fill_value=2, dtype="float32")
    return a[0]


@paddle.jit.to_static
def slice_in_if(x):
    x = paddle.to_tensor(x)
    a = []
    if x.numpy()[0] > 0:
        a.append(x)
    else:
        a.append(paddle.full(shape=[1, 2], fill_value=9, dtype="int32"))

    if x.numpy()[0] > 0:
        a[0] = x

    a[0] = x + 1
    out = a[0]
    return out


def slice_in_while_loop(x, iter_num=3):
    x = paddle.to_tensor(x)
    iter_num_var = paddle.full(shape=[1], fill_value=iter_num, dtype="int32")
    a = []
    i = 0

    while i < iter_num_var:
        a.append(x)
        i += 1

    i = 0
    while i < iter_num_var.numpy()[0]:
        a[i] = paddle.full(shape=[2], fill_value=2, dtype="float32")
        i += 1
    out = a[0:iter_num]
    return out[0]


@paddle.jit.to_static
def slice_in_for_loop(x, iter_num=3):
    x = paddle.to_tensor(x)
    a = []
    # Use `paddle.full` so that static analysis can analyze the type of iter_num is Tensor
    iter_num = paddle.full(
        shape=[1], fill_value=iter_num, dtype="int32"
    )  # TODO(liym27): Delete it if the type of parameter iter_num can be resolved

    for i in range(iter_num):
        a.append(x)

    for i in range(iter_num):
        a[i] = x
    out = a[2]
    return out


@paddle.jit.to_static
def set_value(x):
    x = paddle.to_tensor(x)
    x[0] = paddle.full(shape=[1], fill_value=2, dtype="float32")
    x[1:2, 0:1] = 10
    return x


class LayerWithSetValue(paddle.nn.Layer):
    def __init__(self, input_dim, hidden):
        super(LayerWithSetValue, self).__init__()
        self.linear = paddle.nn.Linear(input_dim, hidden)

    @paddle.jit.to_static
    def forward(self, x):
        x = self.linear(x)
        x[0] = 1
        return x


ZEROS, POSITIVE, NEGATIVE = i32(0, 0, 0), i32(2, 1, 3), i32(-2, 5, 1)


def test_slice_without_control_flow():
    check(slice_without_control_flow, (ZEROS,), (POSITIVE,), (NEGATIVE,))


def test_slice_in_if():
    # the list holds a [3] tensor on one path and a [1, 2] one on the other (one of two
    # lists chosen at run time); the item assignments make it one list again
    check(slice_in_if, (ZEROS,), (POSITIVE,), (NEGATIVE,))


@pytest.mark.parametrize("fn", [slice_in_while_loop, slice_in_for_loop],
                         ids=lambda fn: fn.__name__)
def test_slices_in_loops(fn):
    # a[2] / out[0] of fewer items raise IndexError, converted as eagerly
    check(fn, (ZEROS,), (POSITIVE, 3), (ZEROS, 5), (ZEROS, 2), (ZEROS, 1), (ZEROS, 0))


def test_set_value():
    check(set_value, (np.full([3, 4, 5], 5).astype('float32'),), (f32(2, 1),), (f32(2, 3),))


def test_set_value_with_layer_and_save(tmp_path):
    model = LayerWithSetValue(input_dim=10, hidden=1)
    x = paddle.full(shape=[5, 10], fill_value=5.0, dtype="float32")
    check(model, (f32(5, 10),), (f32(1, 10),))
    path = str(tmp_path / "layer_use_set_value")
    paddle.jit.save(layer=model, path=path, input_spec=[x], output_spec=None)
    loaded = paddle.jit.load(path)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


def test_static_slice_step():
    array = np.arange(4**3).reshape((4, 4, 4)).astype('int64')
    main, startup = core.static.Program(), core.static.Program()
    paddle.enable_static()
    try:
        with core.static.program_guard(main, startup):
            x = paddle.static.data(name='x', shape=[4, 4, 4], dtype='int64')
            z1 = x[::2]
            z2 = x[::-2]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        out = exe.run(main, feed={'x': array}, fetch_list=[z1, z2])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(out[0], array[::2])
    np.testing.assert_array_equal(out[1], array[::-2])


def slice_steps(inps):
    return inps[::2], inps[::-2]


def test_static_slice_step_dygraph2static():
    sfunc = paddle.jit.to_static(slice_steps, input_spec=[InputSpec(shape=[None, 4, 4],
                                                                    dtype="int64")])
    for n in (5, 1, 0):
        check(sfunc, (np.arange(n * 4 * 4).reshape((n, 4, 4)).astype('int64'),))


def test_compare_paddle_strided_slice_with_numpy():
    array = np.arange(5)
    sl = paddle.strided_slice(paddle.to_tensor(array), axes=[0], starts=[3], ends=[1],
                              strides=[-2])
    np.testing.assert_array_equal(sl.numpy(), array[3:1:-2])

    array = np.arange(6 * 6).reshape((6, 6))
    s2, e2, stride2 = [8, -1], [1, -5], [-2, -3]
    sl = paddle.strided_slice(paddle.to_tensor(array), axes=[0, 1], starts=s2, ends=e2,
                              strides=stride2)
    np.testing.assert_array_equal(
        sl.numpy(), array[s2[0]:e2[0]:stride2[0], s2[1]:e2[1]:stride2[1]])

    array = np.arange(6 * 7 * 8).reshape((6, 7, 8))
    s2, e2 = [7, -1], [2, -5]
    sl = paddle.strided_slice(paddle.to_tensor(array), axes=[0, 2], starts=s2, ends=e2,
                              strides=stride2)
    np.testing.assert_array_equal(
        sl.numpy(), array[s2[0]:e2[0]:stride2[0], ::, s2[1]:e2[1]:stride2[1]])

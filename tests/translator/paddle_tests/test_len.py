"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_len.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``,
``paddle.tensor.array_write`` -> ``core.layers.array_write``). Paddle's input is a random
[10, 16] float32; also one row and none. The SelectedRows case (Paddle's sparse variables,
built by hand in a static program) is not ported."""
import pytest

import core as fluid
import dy2static as paddle
from dy2static.static import InputSpec

from ._port import check, f32


def len_with_tensor(x):
    x = fluid.dygraph.to_variable(x)
    x_len = len(x)
    return x_len


def len_with_lod_tensor_array(x):
    x = fluid.dygraph.to_variable(x)

    i = fluid.layers.fill_constant(shape=[1], dtype='int64', value=0)
    arr = fluid.layers.array_write(x, i=i)
    arr_len = len(arr)

    return arr_len


@pytest.mark.parametrize("fn", [len_with_tensor, len_with_lod_tensor_array],
                         ids=lambda fn: fn.__name__)
def test_len(fn):
    check(fn, (f32(10, 16),), (f32(1, 3),), (f32(0, 2),))


def test_len_of_a_dim_known_only_when_the_program_runs():
    static = paddle.jit.to_static(len_with_tensor,
                                  input_spec=[InputSpec(shape=[-1, 16], dtype="float32")])
    check(static, (f32(10, 16),), (f32(1, 16),), (f32(0, 16),))

"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_logical.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``); the functions lose their
``test_`` prefix (pytest would collect them). Paddle's input is ``[3]`` int32; the other
values take every branch of each ``and`` / ``or`` / ``not``. ``cmpop_node_to_str`` (Paddle's
transformer internals) is not ported."""
import numpy as np
import pytest

import dy2static as paddle

from ._port import check, f32, i32


@paddle.jit.to_static
def logical_not(x):
    x = paddle.to_tensor(x)
    if not x:
        x = x - 1
    else:
        x = x + 1

    if x != 10:
        x = x - 1
    else:
        x = x + 1

    y = 0
    if not y:
        x = x + 4

    if y != 3:
        x = x + 2
    return x


@paddle.jit.to_static
def logical_not_2(x):
    x = paddle.to_tensor(x)

    y = None
    if y is not None and not y:
        x = x + 4

    if y != 3:
        x = x + 2
    return x


@paddle.jit.to_static
def logical_and(x):
    x = paddle.to_tensor(x)

    if x < 10 and x > 1:
        x = x - 1
    else:
        x = x + 1

    y = 3
    if y < 10 and y > 1:
        x = x - 2
    else:
        x = x + 2

    return x


@paddle.jit.to_static
def logical_and_2(x):
    x = paddle.to_tensor(x)

    a = None
    # NOTE(liym27):
    # because `a is not None` is False, then `a > 1` won't be run,
    # which means `convert_logical_and(a is not None, a > 1)` should not
    # run a>1.
    if a is not None and a > 1:
        x = x - 1
    else:
        x = x + 1

    b = 3

    if b is not None and b > 1:
        x = x - 1
    else:
        x = x + 1

    return x


@paddle.jit.to_static
def logical_or(x):
    x = paddle.to_tensor(x)

    if x < 10 or x > 1:
        x = x - 1
    else:
        x = x + 1

    a = 10
    if a > 3 or a < 1:
        x = x - 1
    else:
        x = x + 1

    return x


@paddle.jit.to_static
def logical_or_2(x):
    x = paddle.to_tensor(x)

    a = None
    if x > 1 or a is None or a > 1:
        x = x - 1
    else:
        x = x + 1
    return x


@paddle.jit.to_static
def logical_not_and_or(x):
    x = paddle.to_tensor(x)

    a = 1
    if x < 10 and (a < 4 or a > 0) or a < -1 or not x > -1:
        x = x - 1
    else:
        x = x + 1
    return x


@paddle.jit.to_static
def shape_equal(x):
    x = paddle.to_tensor(x)
    y = paddle.zeros([1, 2, 3])
    if x.shape == y.shape:
        return y
    else:
        return paddle.ones([1, 2, 3])


@paddle.jit.to_static
def shape_not_equal(x):
    x = paddle.to_tensor(x)
    y = paddle.zeros([1, 2, 3])
    if x.shape != y.shape:
        return y
    else:
        return paddle.ones([1, 2, 3])


@pytest.mark.parametrize("fn", [
    logical_not, logical_not_2, logical_and, logical_and_2, logical_or, logical_or_2,
    logical_not_and_or,
], ids=lambda fn: fn.__name__)
def test_logical_operators(fn):
    # 3 is Paddle's; 0 is false for ``not x``, 9 reaches 10 in logical_not, 1 / 10 / -1 / -3
    # stop the chains at each operand
    check(fn, *[(i32(v),) for v in (3, 0, 9, 1, 10, 11, -1, -3)])
    check(fn, (f32(1, low=-2.0, high=-1.0),))


@pytest.mark.parametrize("fn", [shape_equal, shape_not_equal], ids=lambda fn: fn.__name__)
def test_shape_comparisons(fn):
    check(fn, (np.ones([1, 2, 3], dtype="float32"),), (f32(2, 3),), (f32(1, 2, 3, 1),))

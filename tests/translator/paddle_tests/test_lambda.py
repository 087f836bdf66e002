"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_lambda.py
(2.x releases): bodies as written (``paddle`` -> ``dy2static``, ``paddle.fluid`` -> ``core``).
Paddle's input is ``[1, 3]`` float32 (mean 2); the others make the mean lie in (1, 2), be
zero (false for ``y or ...``), negative or above 2, taking every side of the conditional
expressions."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle

from ._port import check


def call_lambda_as_func(x):
    x = fluid.dygraph.to_variable(x)

    add_func = lambda x, y: x + y
    mean_func = lambda x: paddle.mean(x)

    y = add_func(x, 1)
    y = add_func(y, add_func(y, -1))
    out = mean_func(y)

    return out


def call_lambda_directly(x):
    x = fluid.dygraph.to_variable(x)

    y = (lambda x, y: x + y)(x, x)
    out = (lambda x: paddle.mean(x))(y)

    return out


def call_lambda_in_func(x):
    x = fluid.dygraph.to_variable(x)

    add_func = lambda x: x + 1

    y = paddle.mean((lambda x: fluid.layers.relu(x))(x))
    out = add_func(y) if y > 1 and y < 2 else (lambda x: x**2)(y)

    return out


def call_lambda_with_ifExpr(x):
    x = fluid.dygraph.to_variable(x)

    add_func = lambda x: x + 1

    y = paddle.mean(x)
    out = add_func(y) if y or y < 2 else (lambda x: x**2)(y)

    return out


def call_lambda_with_ifExpr2(x):
    x = fluid.dygraph.to_variable(x)

    add_func = lambda x: x + 1

    y = paddle.mean(x)

    # NOTE: y is Variable, but z<2 is python bool value
    z = 0
    out = add_func(y) if y or z < 2 else (lambda x: x**2)(y)

    return out


def floats(*values):
    return np.array(values, dtype="float32")


INPUTS = [(floats(1, 3),), (floats(1, 2),), (floats(-1, 1),), (floats(-3, -1),),
          (floats(5, 6, 7),), (floats(0.5),)]


@pytest.mark.parametrize("fn", [
    call_lambda_as_func, call_lambda_directly, call_lambda_in_func, call_lambda_with_ifExpr,
    call_lambda_with_ifExpr2,
], ids=lambda fn: fn.__name__)
def test_lambdas(fn):
    check(fn, *INPUTS)

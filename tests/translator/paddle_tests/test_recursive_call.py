"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_recursive_call.py (2.x releases, the
fluid-era sibling of test_convert_call): bodies as written (``paddle`` -> ``dy2static``,
``paddle.fluid`` -> ``core``, ``paddle.jit.not_to_convert`` -> its later name
``paddle.jit.not_to_static``; ``TestClass`` is ``NotToConvertMemberClass``, which pytest does
not collect). Paddle's inputs and ones whose mean takes the other branch. The checks of
Paddle's generated source and of its ``DISABLE_CONVERTION`` attribute are not ported."""
import logging

import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from translator import declarative

from ._port import check, f32

# Situation 1 : test recursive call


def dyfunc_with_if(x_v):
    if fluid.layers.mean(x_v).numpy()[0] > 5:
        x_v = x_v - 1
    else:
        x_v = x_v + 1
    return x_v


@declarative
def nested_func(x_v):
    x_v = fluid.dygraph.to_variable(x_v)

    def fn1():
        return x_v

    res = fn1()
    return res


@declarative
def dyfunc_with_third_library_logging(x_v):
    logging.info('test dyfunc_with_third_library_logging')
    if fluid.layers.mean(x_v).numpy()[0] > 5:
        x_v = x_v - 1
    else:
        x_v = x_v + 1
    return x_v


lambda_fun = lambda x: x


class MyConvLayer(fluid.dygraph.Layer):
    def __init__(self):
        super(MyConvLayer, self).__init__()
        self._conv = fluid.dygraph.Conv2D(
            num_channels=3,
            num_filters=2,
            filter_size=3,
            param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.99)),
            bias_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.5)))

    @declarative
    def forward(self, inputs):
        y = dyfunc_with_if(inputs)
        y = lambda_fun(y)
        y = self.dymethod(y)
        return y

    @declarative
    def dymethod(self, x_v):
        x_v = fluid.layers.assign(x_v)
        return x_v


class MyLayer(fluid.dygraph.Layer):
    def __init__(self):
        super(MyLayer, self).__init__()

        self.conv = MyConvLayer()
        self.fc = fluid.dygraph.Linear(
            input_dim=5,
            output_dim=1,
            act='relu',
            param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.99)),
            bias_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.5)))

    @declarative
    def forward(self, inputs):
        h = self.conv(inputs)
        out = self.fc(h)
        return out


# Situation 2 : test not_to_convert


def func_sum(x):
    res = paddle.sum(x)
    return res


@paddle.jit.not_to_static
def func_not_to_convert(x):
    res = func_sum(x)
    return res


@declarative
def func_convert_then_not_to_convert(x):
    y = func_not_to_convert(x)
    return y


class NotToConvertMemberClass(paddle.nn.Layer):
    @paddle.jit.not_to_static
    def called_member(self, x):
        return paddle.sum(x)

    @declarative
    def forward(self, x):
        y = self.called_member(x)
        return y


def test_nested_function():
    check(nested_func, (f32(10, 16),), (f32(1),))


def test_third_party_library_and_a_tensor_if():
    x = f32(1, 3, 3, 5, seed=2020)
    check(dyfunc_with_third_library_logging, (x,), (x + 6,))


def test_layers_calling_layers_functions_and_lambdas():
    x = f32(1, 3, 3, 5, seed=2020)
    check(MyLayer(), (x,), (x + 6,), (np.zeros((2, 3, 4, 5), "float32"),))


@pytest.mark.parametrize("make", [lambda: func_not_to_convert,
                                  lambda: func_convert_then_not_to_convert,
                                  NotToConvertMemberClass],
                         ids=["not_to_convert", "convert_then_not_to_convert", "member"])
def test_not_to_convert(make):
    x = f32(1, 3, 3, 5, seed=2020)
    check(make(), (x,), (x - 0.5,))

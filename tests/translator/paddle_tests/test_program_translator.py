"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_program_translator.py (2.x releases): functions and Layers as written (``paddle`` ->
``dy2static``, ``paddle.fluid`` -> ``core``); ``dyfunc_with_if_else`` and the early-return
functions are Paddle's ifelse_simple_func ones, ported in test_ifelse. Paddle's checks:
``ProgramTranslator.get_output`` / ``get_func`` / ``get_program`` and a declarative function
with the translator on and off agree; ``train()`` / ``eval()`` of a converted function (a
Layer's method follows the Layer and refuses them); the early-return functions' values.
Not ported: the expected converted source text (Paddle's own converter output) and
``func_to_source_code`` dropping comments (``get_code`` here keeps ``# file:line`` origin
comments) -- instead the converted code of ``dyfunc_with_if_else`` runs both branches like
the original. Where Paddle raises and Python does not, the port follows Python: ``get_output``
/ ``get_program`` in static mode build into the current / a new program (as a declarative
call in static mode does); a Layer built inside a converted ``forward`` (``NetWithError``,
Paddle's ValueError) is not ported: it runs, but keeps the first trace's parameters where
eager code makes new ones each call."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from translator import ProgramTranslator, declarative

from ._port import check
from .test_ifelse import (dyfunc_with_if_else, dyfunc_with_if_else_early_return1,
                          dyfunc_with_if_else_early_return2)

np.random.seed(0)


def simple_func(x, weight_numpy):
    x = fluid.dygraph.to_variable(x)
    w = fluid.dygraph.to_variable(weight_numpy)
    y = fluid.layers.matmul(x, w)
    z = paddle.mean(y)
    return z


@declarative
def decorated_simple_func(x, weight_numpy):
    x = fluid.dygraph.to_variable(x)
    w = fluid.dygraph.to_variable(weight_numpy)
    y = fluid.layers.matmul(x, w)
    z = paddle.mean(y)
    return z


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x + 1


class SwitchModeNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()

    @paddle.jit.to_static
    def forward(self, x):
        return x + 1

    @paddle.jit.to_static
    def foo(self):
        return True


@paddle.jit.to_static
def switch_mode_funciton():
    return True


@paddle.jit.to_static
def dropout_function(x):
    return fluid.layers.dropout(x, 0.5)


X = np.random.randn(30, 10, 32).astype('float32')
WEIGHT = np.random.randn(32, 64).astype('float32')
program_translator = ProgramTranslator()


@pytest.fixture(autouse=True)
def _translator_on():
    program_translator.enable(True)
    yield
    program_translator.enable(True)
    paddle.disable_static()


def test_enable_disable_get_output():
    program_translator.enable(True)
    static_output = program_translator.get_output(simple_func, X, WEIGHT)
    program_translator.enable(False)
    dygraph_output = program_translator.get_output(simple_func, X, WEIGHT)
    np.testing.assert_allclose(static_output.numpy(), dygraph_output.numpy(), rtol=1e-05,
                               atol=1e-4)
    np.testing.assert_allclose(static_output.numpy(), np.mean(X @ WEIGHT), rtol=1e-4)


def test_enable_disable_get_func():
    program_translator.enable(True)
    static_func = program_translator.get_func(simple_func)
    assert callable(static_func)
    static_output = static_func(X, WEIGHT)
    program_translator.enable(False)
    dygraph_func = program_translator.get_func(simple_func)
    assert callable(dygraph_func)
    dygraph_output = dygraph_func(X, WEIGHT)
    assert isinstance(dygraph_output, fluid.Tensor)
    np.testing.assert_allclose(static_output.numpy(), dygraph_output.numpy(), rtol=1e-05,
                               atol=1e-4)


def test_enable_disable_get_program():
    program_translator.enable(True)
    static_output = program_translator.get_program(simple_func, X, WEIGHT)
    assert isinstance(static_output, tuple)
    assert len(static_output) == 4
    assert isinstance(static_output[0], fluid.Program)
    assert isinstance(static_output[1], fluid.Program)
    # Check all inputs and outputs are Variable
    for var in static_output[2]:
        assert isinstance(var, fluid.static.Variable)
    for var in static_output[3]:
        assert isinstance(var, fluid.static.Variable)
    main, startup, inputs, outputs = static_output
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    got = exe.run(main, feed={inputs[0].name: X, inputs[1].name: WEIGHT}, fetch_list=outputs)
    np.testing.assert_allclose(got[0], np.mean(X @ WEIGHT), rtol=1e-4)

    program_translator.enable(False)
    dygraph_output = program_translator.get_program(simple_func, X, WEIGHT)
    assert isinstance(dygraph_output, fluid.Tensor)
    np.testing.assert_allclose(dygraph_output.numpy(), got[0], rtol=1e-4)


def test_enable_disable_declarative():
    program_translator.enable(True)
    static_output = decorated_simple_func(X, WEIGHT)
    program_translator.enable(False)
    dygraph_output = decorated_simple_func(X, WEIGHT)
    np.testing.assert_allclose(static_output.numpy(), dygraph_output.numpy(), rtol=1e-05,
                               atol=1e-4)
    check(decorated_simple_func, (X, WEIGHT), (X[:1, :1], WEIGHT))


def test_get_output_and_get_program_in_static_mode():
    x = np.random.randn(10, 32).astype('float32')
    paddle.enable_static()
    net = Net()
    main = fluid.static.Program()
    with fluid.static.program_guard(main, fluid.static.Program()):
        xv = fluid.static.data("x", [10, 32], "float32")
        out = program_translator.get_output(net.forward, xv)
    assert isinstance(out, fluid.static.Variable) and out.block.program is main
    np.testing.assert_array_equal(program_translator.get_output(net.forward, x), x + 1)
    program = program_translator.get_program(net.forward, x)
    assert len(program) == 4 and isinstance(program[0], fluid.Program)
    paddle.disable_static()
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x}, fetch_list=[out])
    np.testing.assert_allclose(got, x + 1, rtol=1e-6)


def test_switch_mode():
    switch_mode_funciton.eval()
    assert switch_mode_funciton() is True
    assert switch_mode_funciton._training is False

    switch_mode_funciton.train()
    assert switch_mode_funciton() is True
    assert switch_mode_funciton._training is True


def test_switch_mode_changes_the_traced_program():
    x = paddle.ones([2000])
    dropout_function.eval()  # fluid's dropout scales by 1 - p in inference
    np.testing.assert_array_equal(dropout_function(x).numpy(), np.full([2000], 0.5, "float32"))
    dropout_function.train()
    out = dropout_function(x).numpy()
    assert set(np.unique(out)) == {0.0, 1.0}
    assert len(dropout_function.program_cache) == 2


def test_switch_mode_of_a_layer_method_raises():
    net = SwitchModeNet()

    assert net.training is True
    with pytest.raises(RuntimeError, match=r"call the Layer.s eval\(\)"):
        net.forward.eval()

    net.eval()
    assert net.training is False
    with pytest.raises(RuntimeError):
        net.foo.train()


def test_ifelse_early_return1():
    answer = np.zeros([2, 2]) + 1
    static_func = paddle.jit.to_static(dyfunc_with_if_else_early_return1)
    out = static_func()
    np.testing.assert_allclose(answer, out[0].numpy(), rtol=1e-05)


def test_ifelse_early_return2():
    answer = np.zeros([2, 2]) + 3
    static_func = paddle.jit.to_static(dyfunc_with_if_else_early_return2)
    out = static_func()
    np.testing.assert_allclose(answer, out[0].numpy(), rtol=1e-05)


def test_converted_code_runs_like_the_original():
    code = program_translator.get_code(dyfunc_with_if_else)
    assert "def dyfunc_with_if_else(x_v, label=None)" in code
    x = np.random.RandomState(1).uniform(0, 10, [4, 3]).astype("float32")
    check(dyfunc_with_if_else, (x,), (x * 0.1,), (x + 10,))

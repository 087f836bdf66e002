"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_error.py
(2.x releases): functions and Layers as written (``paddle.fluid`` -> ``core``). Paddle checks
that an error raised while converting or running keeps its exception type and that its
message names the user's file, line and source line (the converted code mapped back); here
the same through the exception's notes (``In converted code, from the user's "file", line
N, in func: source``) or, for an op failing when the Program runs, its message (``built at
file:line: source``). Adapted: ``fill_constant(dtype="int")`` is valid here (numpy's name for
int64), so the compile-time TypeError cases use ``dtype="int4"``; Paddle's flags to turn the
new messages off and ``origin_info.unwrap`` are its internals (not ported). Where Paddle
raises and Python does not, the port follows Python: a method whose docstring mixes tabs and
spaces (Paddle's IndentationError) and a tensor held by a plain object (Paddle's ValueError
suggesting a buffer) run as eagerly."""
import inspect
import re

import numpy as np
import pytest

import core as fluid
import dy2static as paddle

from ._port import check


def inner_func():
    fluid.layers.fill_constant(shape=[1, 2], value=9, dtype="int4")
    return


@paddle.jit.to_static
def func_error_in_compile_time(x):
    x = fluid.dygraph.to_variable(x)
    inner_func()
    if fluid.layers.mean(x) < 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


@paddle.jit.to_static
def func_error_in_compile_time_2(x):
    x = fluid.dygraph.to_variable(x)
    x = fluid.layers.reshape(x, shape=[1, 2])
    return x


@paddle.jit.to_static
def func_error_in_runtime(x):
    x = fluid.dygraph.to_variable(x)
    two = fluid.layers.fill_constant(shape=[1], value=2, dtype="int32")
    x = fluid.layers.reshape(x, shape=[1, two])
    return x


class LayerErrorInCompiletime(fluid.dygraph.Layer):
    def __init__(self, fc_size=20):
        super(LayerErrorInCompiletime, self).__init__()
        self._linear = fluid.dygraph.Linear(fc_size, fc_size)

    @paddle.jit.to_static(
        input_spec=[paddle.static.InputSpec(
            shape=[20, 20], dtype='float32')])
    def forward(self, x):
        y = self._linear(x)
        z = fluid.layers.fill_constant(shape=[1, 2], value=9, dtype="int4")
        out = fluid.layers.mean(y[z])
        return out


class LayerErrorInCompiletime2(fluid.dygraph.Layer):
    def __init__(self):
        super(LayerErrorInCompiletime2, self).__init__()

    @paddle.jit.to_static
    def forward(self):
        self.test_func()

    def test_func(self):
        """
        NOTE: The next line has a tab. And this test to check the IndentationError when spaces and tabs are mixed.
	A tab here.
        """
        return


@paddle.jit.to_static
def func_error_in_runtime_with_empty_line(x):
    x = fluid.dygraph.to_variable(x)
    two = fluid.layers.fill_constant(shape=[1], value=2, dtype="int32")

    x = fluid.layers.reshape(x, shape=[1, two])

    return x


class SuggestionErrorTestNet(paddle.nn.Layer):
    def __init__(self):
        super(SuggestionErrorTestNet, self).__init__()
        self.inner_net = SuggestionErrorTestNet2()

    @paddle.jit.to_static
    def forward(self, x):
        return self.inner_net.forward(x)


class SuggestionErrorTestNet2():
    def __init__(self):
        super(SuggestionErrorTestNet2, self).__init__()
        self.w = paddle.to_tensor([2.])

    def forward(self, x):
        out = paddle.matmul(self.w, x)
        return out


def func_suggestion_error_in_runtime(x):
    net = SuggestionErrorTestNet()
    return net(x)


FILE = inspect.getfile(inner_func)
INPUT = np.ones([3, 2])


def _line(text, after=None):
    """The line number of the first line holding ``text`` (after the def of ``after``)."""
    with open(FILE) as f:
        lines = f.read().splitlines()
    start = 0 if after is None else next(i for i, s in enumerate(lines) if f"def {after}(" in s)
    return next(i for i, s in enumerate(lines) if i >= start and text in s) + 1


def _where(exc):
    return "\n".join([str(exc)] + list(getattr(exc, "__notes__", [])))


def _names(text, func, source):
    line = _line(source, after=func)
    return re.search(rf'"?{re.escape(FILE)}"?(, line |:){line}\b', text) and source in text


def _raises(kind, call):
    with pytest.raises(kind) as info:
        call()
    return _where(info.value)


CALLS = {
    "declarative": lambda f: f(INPUT),
    "get_output": lambda f: paddle.jit.ProgramTranslator().get_output(f.dygraph_function,
                                                                     INPUT),
}


@pytest.mark.parametrize("how", CALLS)
def test_error_in_compile_time(how):
    text = _raises(TypeError, lambda: CALLS[how](func_error_in_compile_time))
    assert _names(text, "func_error_in_compile_time", "inner_func()"), text
    assert _names(text, "inner_func",
                  'fluid.layers.fill_constant(shape=[1, 2], value=9, dtype="int4")'), text
    assert "int4" in text


@pytest.mark.parametrize("how", CALLS)
def test_error_in_compile_time_2(how):
    text = _raises(ValueError, lambda: CALLS[how](func_error_in_compile_time_2))
    assert _names(text, "func_error_in_compile_time_2",
                  "x = fluid.layers.reshape(x, shape=[1, 2])"), text


@pytest.mark.parametrize("func", [func_error_in_runtime, func_error_in_runtime_with_empty_line],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", CALLS)
def test_error_in_runtime(func, how):
    text = _raises(ValueError, lambda: CALLS[how](func))
    assert _names(text, func.__name__, "x = fluid.layers.reshape(x, shape=[1, two])"), text


def test_jit_save_in_compile_time(tmp_path):
    layer = LayerErrorInCompiletime()
    text = _raises(TypeError, lambda: paddle.jit.save(layer, path=str(tmp_path / "model")))
    assert _names(text, "forward",
                  'z = fluid.layers.fill_constant(shape=[1, 2], value=9, dtype="int4")'), text


def test_tabs_in_a_docstring_convert():
    check(LayerErrorInCompiletime2(), ())


def test_a_tensor_of_a_plain_object_is_read():
    check(func_suggestion_error_in_runtime, (np.array([2.0], "float32"),))

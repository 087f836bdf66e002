"""translator.check: eager vs converted outputs and gradients, and the first differing op."""
import time

import numpy as np
import pytest

import core
from translator import check, declarative

X = np.arange(6, dtype="float32").reshape(2, 3) / 6 + 0.1
W = np.full((2, 3), 0.5, dtype="float32")

CALLS = [0]


def counted(x, w):
    CALLS[0] += 1  # a global counter: read once at translation, frozen in the Program
    y = x * 2.0
    z = y + CALLS[0]
    return (z * w).sum()


def test_frozen_global_counter_is_found_with_its_line():
    result = check(counted, X, W)
    assert not result.ok and not bool(result)
    whats = [d.what for d in result.differences]
    assert whats == ["output 0", "gradient of w"]
    first = result.first_op
    assert first.op_type == "elementwise_add"
    assert first.source == "z = y + CALLS[0]"
    assert first.line == counted.__code__.co_firstlineno + 3
    assert first.frozen and first.frozen[0][0] == "fill_constant"
    np.testing.assert_allclose(first.eager - first.converted, np.ones((2, 3)), rtol=1e-5)
    text = str(result)
    assert "first differing op: 'elementwise_add'" in text and "translation time" in text


STAMPS = []


def timed(x):
    # a list the function mutates between calls, and the clock: both frozen when translated
    STAMPS.append(time.perf_counter())
    return x * len(STAMPS)


def test_list_mutated_between_calls_is_found():
    result = check(timed, X, grads=False)
    assert [d.what for d in result.differences] == ["output 0"]
    assert result.first_op.source == "return x * len(STAMPS)"
    assert result.first_op.op_type == "elementwise_mul"


def branchy(x, n=3):
    y = x
    for _ in range(n):
        if y.mean() > 1.0:
            y = y * 0.5
        else:
            y = y + 1.0
    while y.sum() < 20:
        y = y * 2.0
    return y, n


def test_agreeing_function_with_control_flow_and_python_output():
    result = check(branchy, X, 4)
    assert result.ok, str(result)
    assert result.compared == 3  # two outputs and the gradient of x
    assert "agree" in str(result)


class Net(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(3, 4)
        self.calls = 0

    @declarative
    def forward(self, x):
        self.calls += 1
        h = core.layers.relu(self.fc(x))
        if self.calls > 1:  # Python state of the Layer, frozen when translated
            h = h * 3.0
        return h


def test_layer_parameters_gradients_compared():
    net = Net()
    result = check(net.forward, X)
    whats = [d.what for d in result.differences]
    assert "output 0" in whats
    assert any(w.startswith("gradient of parameter") for w in whats)
    first = result.first_op
    assert first.source == "h = h * 3.0" and first.op_type == "elementwise_mul"
    assert first.converted is None and "took another path" in str(result)
    net2 = Net()
    net2.calls = -100  # the branch is never taken: both agree, parameter gradients included
    ok = check(net2.forward, X)
    assert ok.ok, str(ok)
    assert ok.compared == 4  # output, gradient of x, weight and bias


def test_tolerances_and_shapes():
    def noisy(x):
        STAMPS.append(0)
        return x + 1e-4 * len(STAMPS)

    STAMPS.clear()
    assert not check(noisy, X).ok
    STAMPS.clear()
    assert check(noisy, X, rtol=0, atol=1e-3).ok


def test_observer_is_removed_after_check():
    check(counted, X, W)
    assert core.dispatch.set_eager_observer(None) is None


def test_bad_arguments_error_names_the_function():
    with pytest.raises(TypeError, match="counted"):
        check(counted, X)

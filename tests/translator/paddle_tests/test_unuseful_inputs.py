"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_unuseful_inputs.py (2.x releases): the Layers as written (``paddle`` -> ``dy2static``).
A converted sub-Layer gets a list of two tensors and uses one (chosen by ``level``): the
backward through it runs (Paddle's check), and here the output and every gradient equal
eager ones, the unused input's Linear getting none."""
import numpy as np
import pytest

import dy2static as paddle
import dy2static.nn as nn
from dy2static.jit import to_static
from translator import ProgramTranslator

np.random.seed(1)


def apply_to_static(support_to_static, model, image_shape=None):
    if support_to_static:
        specs = None
        model = to_static(model, input_spec=specs)

    return model


class Layer0(nn.Layer):
    def __init__(self, level):
        super().__init__()
        self._linear1 = nn.Linear(10, 5)
        self._linear2 = nn.Linear(10, 5)
        self.layer1 = Layer1(level)
        apply_to_static(True, self.layer1)

    def forward(self, x):
        out1 = self._linear1(x)
        out2 = self._linear2(x)
        # out2.stop_gradient = True not raise error
        a = [out1, out2]
        b = self.layer1(a)
        # self.layer1(out1, out2) will raise error
        return b


class Layer1(nn.Layer):
    def __init__(self, level):
        super().__init__()
        self.level = level
        self._linear = nn.Linear(5, 2)

    def forward(self, x):
        inp = x[self.level]
        val = self._linear(inp)
        return val


def _run(layer, a, to_static):
    ProgramTranslator().enable(to_static)
    try:
        layer.clear_gradients()
        out = layer(a)
        loss = out.mean()
        loss.backward()
        return [out.numpy()] + [None if p.grad is None else p.grad.numpy()
                                for p in layer.parameters()]
    finally:
        ProgramTranslator().enable(True)


@pytest.mark.parametrize("level", [0, 1])
def test_case(level):
    # create network
    layer = Layer0(level)
    a = paddle.rand(shape=[10, 10])
    eager, converted = _run(layer, a, False), _run(layer, a, True)
    unused = layer._linear2 if level == 0 else layer._linear1
    assert all(p.grad is None or not np.any(p.grad.numpy()) for p in unused.parameters())
    for e, c in zip(eager, converted):
        if e is None or c is None:
            assert not np.any(c if e is None else e)
        else:
            np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-7)

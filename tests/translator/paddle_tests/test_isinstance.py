"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_isinstance.py (2.x releases):
bodies as written (``paddle`` -> ``dy2static``). Paddle's input is ``ones([2, 3], int32)``;
also float32 and other shapes."""
import pytest

import dy2static as paddle
import dy2static.nn as nn

from ._port import check, f32, i32


class SimpleReturnLayer(nn.Layer):
    def forward(self, x):
        return x


class AddAttrLayer(nn.Layer):
    def __init__(self):
        super(AddAttrLayer, self).__init__()
        self.attr = None

    def forward(self, x):
        out = x + self.attr
        return out


class IsInstanceLayer(nn.Layer):
    def __init__(self, layer):
        super(IsInstanceLayer, self).__init__()
        self.layer = layer

    @paddle.jit.to_static
    def forward(self, x):
        if isinstance(self.layer, (AddAttrLayer,)):
            self.layer.attr = x
        res = self.layer(x)
        return res


class SequentialLayer(nn.Layer):
    def __init__(self, layers):
        super(SequentialLayer, self).__init__()
        self.layers = nn.LayerList(layers)

    @paddle.jit.to_static
    def forward(self, x):
        res = x
        for layer in self.layers:
            if isinstance(layer, AddAttrLayer):
                layer.attr = x
            res = layer(res)
        return res


def sequential_layers():
    layers = []
    for i in range(5):
        layers.append(SimpleReturnLayer())
        layers.append(AddAttrLayer())
    return layers


INPUTS = [(i32(1, 1, 1, 1, 1, 1).reshape(2, 3),), (f32(2, 3),), (f32(4, 1, seed=3),)]


@pytest.mark.parametrize("make", [
    lambda: IsInstanceLayer(SimpleReturnLayer()),
    lambda: IsInstanceLayer(AddAttrLayer()),
    lambda: SequentialLayer(sequential_layers()),
    lambda: SequentialLayer([]),
], ids=["simple_return_layer", "add_attr_layer", "sequential_layer", "empty_sequential"])
def test_isinstance_of_sublayers(make):
    check(make(), *INPUTS)

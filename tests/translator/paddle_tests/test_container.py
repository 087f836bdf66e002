"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_container.py
(2.x releases): the Layers as written (``paddle`` -> ``dy2static``). Paddle compares eager and
``to_static`` outputs of a ``Sequential`` built from named pairs (whose last Layer has a tensor
``if``) and of nested ``Sequential`` s, and the ``jit.save`` / ``jit.load`` model; here on
uniform [16, 10] inputs in [0, 1) (the ``if`` taken: a masked output) and in [-30, -20), eagerly,
through ``to_static``, as an Executor Program and loaded."""
import numpy as np
import pytest

import dy2static as paddle

from ._port import check, f32


class BufferLayers(paddle.nn.Layer):

    def __init__(self, out_channel):
        super(BufferLayers, self).__init__()
        self.out_channel = out_channel

    def forward(self, x):
        mean = paddle.mean(x)
        if mean < 0.:
            x = x * self._mask()

        out = x - mean
        return out

    def _mask(self):
        return paddle.to_tensor(np.zeros([self.out_channel], 'float32'))


class SequentialNet(paddle.nn.Layer):

    def __init__(self, sub_layer, in_channel, out_channel):
        super(SequentialNet, self).__init__()
        self.layer = paddle.nn.Sequential(
            ('l1', paddle.nn.Linear(in_channel, in_channel)),
            ('l2', paddle.nn.Linear(in_channel, out_channel)),
            ('l3', sub_layer(out_channel)))

    def forward(self, x):
        out = self.layer(x)
        return out


class NestSequentialNet(paddle.nn.Layer):

    def __init__(self):
        super().__init__()
        group1 = paddle.nn.Sequential(
            paddle.nn.Linear(10, 10),
            paddle.nn.Sigmoid(),
        )
        group2 = paddle.nn.Sequential(
            paddle.nn.Linear(10, 3),
            paddle.nn.ReLU(),
        )
        self.layers = paddle.nn.Sequential(group1, group2)

    def forward(self, x):
        return self.layers(x)


NETS = {"sequential": lambda: SequentialNet(BufferLayers, 10, 3),
        "nested_sequential": NestSequentialNet}
INPUTS = [f32(16, 10), f32(16, 10, low=-30.0, high=-20.0, seed=1)]


@pytest.mark.parametrize("name", NETS)
def test_sequential(name, tmp_path):
    paddle.seed(2021)
    net = NETS[name]()
    eager = [net(paddle.to_tensor(x)).numpy() for x in INPUTS]
    if name == "sequential":  # the if takes both ways: a masked output is one value
        assert [len(np.unique(e)) == 1 for e in eager] == [True, False]
    static = paddle.jit.to_static(net)
    check(static, *[(x,) for x in INPUTS])
    for x, expected in zip(INPUTS, eager):
        np.testing.assert_allclose(static(paddle.to_tensor(x)).numpy(), expected, rtol=1e-5)
    paddle.jit.save(static, str(tmp_path / name))
    loaded = paddle.jit.load(str(tmp_path / name))
    for x, expected in zip(INPUTS, eager):
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), expected, rtol=1e-5)

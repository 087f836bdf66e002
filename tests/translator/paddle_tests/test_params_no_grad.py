"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_params_no_grad.py (2.x releases): the Layer as written (``paddle`` -> ``dy2static``).
An embedding whose output is set ``stop_gradient = True`` in the converted ``forward`` gets
no gradient, the other one does: four SGD steps through ``paddle.DataParallel`` (one process
here; Paddle spawns two GPUs, and only when it has them) leave the parameters, losses and
gradients equal to eager training."""
import numpy as np

import dy2static as paddle
import dy2static.nn as nn
from translator import ProgramTranslator


class Net(nn.Layer):

    def __init__(self):
        super(Net, self).__init__()
        self.emb1 = nn.Embedding(100, 16)
        self.emb2 = nn.Embedding(100, 16)

    def forward(self, ids):
        feat1 = self.emb1(ids)
        feat1.stop_gradient = True  # here

        feat2 = self.emb2(ids)

        out = feat1 + feat2
        out = paddle.mean(out)
        return out


def train(to_static):
    ProgramTranslator().enable(to_static)
    try:
        paddle.seed(2022)
        net = Net()
        net = paddle.jit.to_static(net)
        before = net.emb1.weight.numpy().copy()

        sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
        dp_net = paddle.DataParallel(net)
        losses, grads = [], []
        for i in range(4):
            x = paddle.randint(low=0, high=100, shape=[4, 10])
            loss = dp_net(x)
            loss.backward()
            assert net.emb1.weight.grad is None or not np.any(net.emb1.weight.grad.numpy())
            grads.append(net.emb2.weight.grad.numpy().copy())
            sgd.step()
            loss.clear_gradient()
            sgd.clear_grad()
            losses.append(loss.numpy())
        np.testing.assert_array_equal(net.emb1.weight.numpy(), before)
        return losses, grads, net.emb2.weight.numpy()
    finally:
        ProgramTranslator().enable(True)


def test_params_no_grad():
    eager, converted = train(False), train(True)
    for e, c in zip(eager, converted):
        np.testing.assert_allclose(np.asarray(c), np.asarray(e), rtol=1e-5, atol=1e-7)
    assert np.any(eager[1][0])

"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_spec_names.py
(2.x releases): the Layer as written (``paddle`` -> ``dy2static``). Paddle passes the same
tensor to several parameters and checks that its program then has one feed per distinct
tensor (a new trace per aliasing pattern, ``get_traced_count``). Here a signature is the
inputs' shapes, dtypes and stop_gradient flags, not their identity: every pattern reuses the
one program, with a feed per parameter; the checks kept are the values (eager, converted and
as an Executor Program, on every pattern) and the feeds being named after the parameters.
Not ported: the per-pattern trace count and shared feeds."""
import numpy as np

import dy2static as paddle
from dy2static.nn import Layer

from ._port import check, f32


class Net(Layer):
    def __init__(self):
        super(Net, self).__init__()
        self.fc = paddle.nn.Linear(16, 3)

    def forward(self, x, y, m, n):
        inputs = [x, y, m, n]
        outs = []
        for var in inputs:
            out = paddle.reshape(x, [-1, 16])
            out = self.fc(out)
            outs.append(out)

        out = paddle.stack(outs)
        return paddle.sum(out)


def test_spec_name_hash():
    net = paddle.jit.to_static(Net())
    x, y, m, n = (f32(4, 2, 8, seed=k) for k in range(4))
    patterns = [(x, y, m, n), (x, x, m, n), (x, x, m, m), (n, n, y, y), (x, y, x, y),
                (m, n, m, n), (x, x, x, x), (m, m, m, m)]
    for args in patterns:
        check(net, args)
        out = net(*[paddle.to_tensor(a) for a in args])
        fc = net.fc
        expected = 4 * (args[0].reshape(-1, 16) @ fc.weight.numpy() + fc.bias.numpy()).sum()
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)
    assert [v.name for v in net.forward.inputs] == ["x", "y", "m", "n"]
    assert len(net.forward.program_cache) == 1

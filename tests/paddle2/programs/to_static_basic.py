# guides/jit/basic_usage: paddle.jit.to_static on a function and on a Layer, with tensor
# control flow, then paddle.jit.save with an InputSpec
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/jit/basic_usage_en.html
import os
import tempfile

import numpy as np

import dy2static as paddle
from dy2static.static import InputSpec


@paddle.jit.to_static
def add_two(x, y):
    return x + y


@paddle.jit.to_static
def func(x):
    if paddle.mean(x) < 0:
        x_v = x - 1
    else:
        x_v = x + 1
    return x_v


class SimpleNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(10, 3)

    @paddle.jit.to_static(input_spec=[InputSpec(shape=[None, 10], name='x'),
                                      InputSpec(shape=[3], name='y')])
    def forward(self, x, y):
        out = self.linear(x)
        out = out + y
        return out


x = paddle.to_tensor(np.ones([1, 2]).astype("float32"))
print(add_two(x, x).numpy())
print(func(paddle.to_tensor([1.0, 2.0])).numpy(), func(paddle.to_tensor([-3.0, 1.0])).numpy())

net = SimpleNet()
out = net(paddle.rand([4, 10]), paddle.ones([3]))
print(out.shape)
path = os.path.join(tempfile.mkdtemp(), "simple_net")
paddle.jit.save(net, path)
loaded = paddle.jit.load(path)
a, b = paddle.rand([2, 10]), paddle.ones([3])
diff = float((loaded(a, b) - net(a, b)).abs().max())
print("loaded model difference:", diff)
print("RESULT", diff, float(func(paddle.to_tensor([-3.0, 1.0])).sum()))

# guides/jit/case_analysis: where @to_static goes, InputSpec, tensors made in __init__ (buffers),
# forward defaults for non-tensor arguments, self.training branches, exporting a method other
# than forward, list.append in a loop over paddle.shape(x)[0], jit.save of a to_static Layer
# https://www.paddlepaddle.org.cn/documentation/docs/zh/guides/jit/case_analysis_cn.html
import os
import tempfile

import numpy as np

import dy2static as paddle
import dy2static.nn as nn
from dy2static.jit import to_static
from dy2static.static import InputSpec

tmp = tempfile.mkdtemp()


class SimpleNet(paddle.nn.Layer):
    def __init__(self, mask):
        super().__init__()
        self.linear = paddle.nn.Linear(10, 3)
        self.mask = paddle.to_tensor(mask)  # <---- a buffer

    def forward(self, x, y, cmd='bn', rate=0.1, flag=False):  # <--- defaults
        out = self.linear(x)
        out = out + y
        if flag:
            out = out * rate
        out = out * self.mask
        return out

    def another_func(self, x):
        out = self.linear(x)
        out = out * 2
        return out


x_spec = InputSpec(shape=[None, 10], name='x')
y_spec = InputSpec(shape=[3], name='y')

model = SimpleNet(np.array([0, 1, 1], "float32"))
eager = model(paddle.ones([4, 10]), paddle.ones([3]))
model = to_static(model, input_spec=[x_spec, y_spec])
out = model(paddle.ones([4, 10]), paddle.ones([3]))
print("spec'd:", out.shape, float((out - eager).abs().max()))
out2 = model(paddle.ones([7, 10]), paddle.ones([3]), flag=True)
print("batch 7, flag:", out2.shape)
paddle.jit.save(model, os.path.join(tmp, "simple_net"))
loaded = paddle.jit.load(os.path.join(tmp, "simple_net"))
loaded.eval()
print("loaded:", float((loaded(paddle.ones([4, 10]), paddle.ones([3])) - eager).abs().max()))


class Branches(paddle.nn.Layer):
    def forward(self, x):
        if self.training:
            out = paddle.mean(x)
        else:
            out = paddle.sum(x)

        return out


m = paddle.jit.to_static(Branches())
x = paddle.to_tensor(np.arange(6, dtype="float32"))
train_out = float(m(x))
m.eval()
eval_out = float(m(x))
print("train / eval branch:", train_out, eval_out)
paddle.jit.save(m, os.path.join(tmp, "branches"), input_spec=[InputSpec([6], "float32")])
b = paddle.jit.load(os.path.join(tmp, "branches"))
b.eval()
print("saved eval branch:", float(b(x)))

net = SimpleNet(np.ones([3], "float32"))
net.eval()
x_spec = InputSpec(shape=[None, 10], dtype='float32', name='x')
static_func = to_static(net.another_func, input_spec=[x_spec])
paddle.jit.save(static_func, path=os.path.join(tmp, 'another_func'))
print(sorted(f for f in os.listdir(tmp) if f.startswith("another_func")))
af = paddle.jit.load(os.path.join(tmp, "another_func"))
xs = paddle.randn([2, 10], 'float32')
print("another_func:", float((af(xs) - net.another_func(xs)).abs().max()))


class ListNet(paddle.nn.Layer):
    @to_static
    def forward(self, x):
        bs = paddle.shape(x)[0]
        outs = []
        for i in range(bs):
            outs.append(x)

        return outs


outs = ListNet()(paddle.ones([3, 2]))
print("list:", type(outs).__name__, len(outs), outs[0].shape)

IMAGE_SIZE = 784
CLASS_NUM = 10


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IMAGE_SIZE, CLASS_NUM)

    def forward(self, x):
        return self._linear(x)


layer = LinearNet()
layer = paddle.jit.to_static(
    layer, input_spec=[InputSpec(shape=[None, IMAGE_SIZE], dtype='float32')])

path = os.path.join(tmp, "example.model/linear")
paddle.jit.save(layer, path)   # <---- Lazy mode
lin = paddle.jit.load(path)
lin.eval()
xi = paddle.randn([5, IMAGE_SIZE], 'float32')
err = float((lin(xi) - layer(xi)).abs().max())
print("RESULT", float((loaded(paddle.ones([4, 10]), paddle.ones([3])) - eager).abs().max()),
      train_out, eval_out, len(outs), err)

# guides/jit/basic_usage (InputSpec): declare the input signature, build the program once for
# any batch size, get the converted code and the concrete program, save with jit.save
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/jit/basic_usage_en.html
import os
import tempfile

import numpy as np

import dy2static as paddle
from dy2static.jit import to_static
from dy2static.static import InputSpec


class SimpleNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(10, 3)

    @to_static(input_spec=[InputSpec(shape=[None, 10], name='x')])
    def forward(self, x):
        out = self.linear(x)
        if paddle.mean(out) > 0:
            out = paddle.nn.functional.relu(out)
        return out


net = SimpleNet()
outs = [net(paddle.rand([n, 10])).shape for n in (2, 5, 7)]
print(outs)
print("translations:", net.forward.translations)
print(net.forward.code)
concrete = net.forward.concrete_program
print("inputs:", [v.name for v in concrete.inputs], "shape", concrete.inputs[0].shape)
spec = InputSpec.from_tensor(paddle.to_tensor(np.ones([4, 10], 'float32')), name='y')
print(spec)
path = os.path.join(tempfile.mkdtemp(), "net")
paddle.jit.save(net, path)
loaded = paddle.jit.load(path)
x = paddle.rand([3, 10])
diff = float((loaded(x) - net(x)).abs().max())
print("difference:", diff)
print("RESULT", net.forward.translations, diff)

# guides/advanced/autograd: stop_gradient, backward, gradients, clear_grad, no_grad
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/advanced/autograd_en.html
import numpy as np

import dy2static as paddle

paddle.seed(101)
linear = paddle.nn.Linear(in_features=10, out_features=1)
print(linear.weight.stop_gradient, linear.bias.stop_gradient)

x = paddle.rand([10, 10])
y = paddle.rand([10, 1])
print(x.stop_gradient)
out = linear(x)
loss = paddle.mean((out - y) ** 2)
loss.backward()
print("weight grad shape:", linear.weight.grad.shape)

x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
z = x ** 2 + 4 * y
z.backward()
print("Tensor x's grad is: {}".format(x.grad))
print("Tensor y's grad is: {}".format(y.grad))

a = paddle.to_tensor(2.0, stop_gradient=False)
b = paddle.to_tensor(5.0, stop_gradient=True)
c = a * b
c.backward()
print("Tensor a's grad is: {}".format(a.grad))
print("Tensor b's grad is: {}".format(b.grad))
a.clear_grad()
print("after clear_grad:", a.grad)

with paddle.no_grad():
    d = a * 3
print("no_grad output stop_gradient:", d.stop_gradient)

x = paddle.to_tensor(np.array([[1.0, -2.0], [3.0, 4.0]], 'float32'), stop_gradient=False)
n = x.norm()
n.backward()
print("d norm / dx:", x.grad.numpy().tolist())
print("RESULT", float(x.grad.numpy()[0, 0]), float(np.sum(x.numpy() / np.linalg.norm(x.numpy()))))

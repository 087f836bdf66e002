# guides/advanced/gradient_clip: ClipGradByValue / ClipGradByNorm / ClipGradByGlobalNorm passed
# to the optimizer, and ParamAttr(need_clip=False) to leave a parameter out
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/advanced/gradient_clip_en.html
import numpy as np

import dy2static as paddle


def step(linear, clip, scale=100.0):
    sdg = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters(), grad_clip=clip)
    x = paddle.to_tensor(np.ones([4, 10], "float32") * scale)
    before = [p.numpy().copy() for p in linear.parameters()]
    loss = paddle.mean(linear(x) ** 2)
    loss.backward()
    grads = [p.grad.numpy().copy() for p in linear.parameters()]
    sdg.step()
    sdg.clear_grad()
    applied = [(b - p.numpy()) / 0.1 for b, p in zip(before, linear.parameters())]
    return grads, applied


paddle.seed(1)
linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByValue(min=-1, max=1)
grads, applied = step(linear, clip)
print("value: raw max", float(np.abs(grads[0]).max()) > 1, "applied max",
      round(float(np.abs(applied[0]).max()), 4))

linear = paddle.nn.Linear(10, 10, bias_attr=paddle.ParamAttr(need_clip=False))
grads, applied = step(linear, clip)
print("value, bias not clipped:", np.allclose(applied[1], grads[1], rtol=1e-4),
      round(float(np.abs(applied[0]).max()), 4))

linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByNorm(clip_norm=1.0)
grads, applied = step(linear, clip)
print("norm:", [round(float(np.linalg.norm(a)), 4) for a in applied])

linear = paddle.nn.Linear(10, 10, weight_attr=paddle.ParamAttr(need_clip=False))
grads, applied = step(linear, clip)
print("norm, weight not clipped:", np.allclose(applied[0], grads[0], rtol=1e-4),
      round(float(np.linalg.norm(applied[1])), 4))

linear = paddle.nn.Linear(10, 10)
clip = paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0)
grads, applied = step(linear, clip)
global_norm = float(np.sqrt(sum((a ** 2).sum() for a in applied)))
print("global norm:", round(global_norm, 4))

linear = paddle.nn.Linear(10, 10)
grads, applied = step(linear, paddle.nn.ClipGradByValue(min=-1, max=1))
value_max = float(np.abs(applied[0]).max())
grads, applied = step(paddle.nn.Linear(10, 10), paddle.nn.ClipGradByNorm(clip_norm=1.0))
print("RESULT", value_max, float(np.linalg.norm(applied[0])), global_norm)

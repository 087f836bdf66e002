# api paddle.metric.Accuracy / paddle.metric.accuracy: the compute / update / accumulate
# protocol, top-k, reset between epochs
# https://www.paddlepaddle.org.cn/documentation/docs/en/api/paddle/metric/Accuracy_en.html
import numpy as np

import dy2static as paddle

x = paddle.to_tensor(np.array([
    [0.1, 0.2, 0.3, 0.4],
    [0.1, 0.4, 0.3, 0.2],
    [0.1, 0.2, 0.4, 0.3],
    [0.1, 0.2, 0.3, 0.4]]))
y = paddle.to_tensor(np.array([[0], [1], [2], [3]]))
m = paddle.metric.Accuracy()
correct = m.compute(x, y)
m.update(correct)
res = m.accumulate()
print(res)

m = paddle.metric.Accuracy(topk=(1, 2))
for epoch in range(2):
    m.reset()
    for _ in range(3):
        pred = paddle.to_tensor(np.random.RandomState(epoch).rand(8, 5).astype('float32'))
        label = paddle.to_tensor(np.arange(8).reshape(8, 1) % 5)
        batch = m.update(m.compute(pred, label))
    print(m.name(), batch, m.accumulate())

predictions = paddle.to_tensor([[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]],
                               dtype='float32')
label = paddle.to_tensor([[2], [0]], dtype="int64")
result = paddle.metric.accuracy(input=predictions, label=label, k=1)
print(result)
print("RESULT", res, float(result))

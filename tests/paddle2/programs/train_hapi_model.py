# guides/beginner/train_eval_predict (high-level API) and quick_start: paddle.Model with
# prepare / fit / evaluate / predict (LeNet, MNIST subset bundled with core.dataset.mnist)
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/quick_start_en.html

import dy2static as paddle
from dy2static.vision.transforms import Normalize


class Subset(paddle.io.Dataset):
    def __init__(self, data, n):
        self.data, self.n = data, n

    def __getitem__(self, i):
        return self.data[i]

    def __len__(self):
        return self.n


paddle.seed(0)
transform = Normalize(mean=[127.5], std=[127.5], data_format='CHW')
train_dataset = Subset(paddle.vision.datasets.MNIST(mode='train', transform=transform), 1024)
test_dataset = Subset(paddle.vision.datasets.MNIST(mode='test', transform=transform), 256)
lenet = paddle.vision.models.LeNet(num_classes=10)
model = paddle.Model(lenet)
model.summary((1, 1, 28, 28))
model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(),
              paddle.metric.Accuracy())
model.fit(train_dataset, epochs=2, batch_size=64, verbose=1)
result = model.evaluate(test_dataset, batch_size=64, verbose=1)
print(result)
pred = model.predict(test_dataset, batch_size=64)
print(len(pred), len(pred[0]), pred[0][0].shape)
img, label = test_dataset[0]
print("true label: {}, pred label: {}".format(label[0], pred[0][0][0].argmax()))
print("RESULT", result['loss'][0], result['acc'])

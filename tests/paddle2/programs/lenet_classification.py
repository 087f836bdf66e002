# practices/cv/image_classification (MNIST with LeNet): a LeNet written with the 2.x layers,
# trained with the basic loop and converted with to_static for saving
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/cv/image_classification.html
import os
import tempfile

import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F
from dy2static.nn import Conv2D, Linear, MaxPool2D
from dy2static.static import InputSpec
from dy2static.vision.transforms import Compose, Normalize


class LeNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = Conv2D(in_channels=1, out_channels=6, kernel_size=5, stride=1, padding=2)
        self.max_pool1 = MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = Conv2D(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        self.max_pool2 = MaxPool2D(kernel_size=2, stride=2)
        self.linear1 = Linear(in_features=16 * 5 * 5, out_features=120)
        self.linear2 = Linear(in_features=120, out_features=84)
        self.linear3 = Linear(in_features=84, out_features=10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.max_pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.max_pool2(x)
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        x = self.linear1(x)
        x = F.relu(x)
        x = self.linear2(x)
        x = F.relu(x)
        x = self.linear3(x)
        return x


transform = Compose([Normalize(mean=[127.5], std=[127.5], data_format='CHW')])
train_dataset = paddle.vision.datasets.MNIST(mode='train', transform=transform)
test_dataset = paddle.vision.datasets.MNIST(mode='test', transform=transform)

paddle.seed(0)
model = LeNet()
train_loader = paddle.io.DataLoader(train_dataset, batch_size=64, shuffle=True)
optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
losses = []
for batch_id, data in enumerate(train_loader()):
    x_data, y_data = data
    predicts = model(x_data)
    loss = F.cross_entropy(predicts, y_data)
    acc = paddle.metric.accuracy(predicts, y_data)
    loss.backward()
    losses.append(float(loss))
    if batch_id % 5 == 0:
        print("batch_id: {}, loss is: {}, acc is: {}".format(batch_id, loss.numpy(),
                                                            acc.numpy()))
    optim.step()
    optim.clear_grad()
    if batch_id == 15:
        break

model.eval()
test_loader = paddle.io.DataLoader(test_dataset, batch_size=128, drop_last=True)
accs = [float(paddle.metric.accuracy(model(x), y)) for x, y in test_loader]
print("test accuracy:", np.mean(accs))
static_model = paddle.jit.to_static(model, input_spec=[InputSpec([None, 1, 28, 28], 'float32')])
path = os.path.join(tempfile.mkdtemp(), "lenet")
paddle.jit.save(static_model, path)
loaded = paddle.jit.load(path)
x = paddle.to_tensor(np.stack([test_dataset[i][0] for i in range(4)]))
diff = float((loaded(x) - model(x)).abs().max())
print("saved model difference:", diff)
print("RESULT", np.mean(losses[:3]), np.mean(losses[-3:]), np.mean(accs), diff)

# practices/cv/convnet_image_classification (CIFAR-10): a small CNN on CIFAR-shaped synthetic
# images with transforms and a few training steps
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/cv/convnet_image_classification.html
import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F
from dy2static.vision.transforms import ToTensor

transform = ToTensor()


class FakeCifar(paddle.io.Dataset):
    def __init__(self, n, transform=None):
        rng = np.random.RandomState(3)
        self.labels = rng.randint(0, 10, n).astype('int64')
        self.images = rng.randint(0, 256, (n, 32, 32, 3)).astype('uint8')
        for k in range(10):  # a class-dependent colour so the problem is learnable
            self.images[self.labels == k, :, :, k % 3] = 25 * k
        self.transform = transform

    def __getitem__(self, i):
        return self.transform(self.images[i]), np.array([self.labels[i]])

    def __len__(self):
        return len(self.labels)


cifar10_train = FakeCifar(256, transform=transform)
cifar10_test = FakeCifar(64, transform=transform)


class MyNet(paddle.nn.Layer):
    def __init__(self, num_classes=1):
        super().__init__()
        self.conv1 = paddle.nn.Conv2D(in_channels=3, out_channels=32, kernel_size=(3, 3))
        self.pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=(3, 3))
        self.pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=64, kernel_size=(3, 3))
        self.flatten = paddle.nn.Flatten()
        self.linear1 = paddle.nn.Linear(in_features=1024, out_features=64)
        self.linear2 = paddle.nn.Linear(in_features=64, out_features=num_classes)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.pool2(x)
        x = self.conv3(x)
        x = F.relu(x)
        x = self.flatten(x)
        x = self.linear1(x)
        x = F.relu(x)
        x = self.linear2(x)
        return x


epoch_num = 2
batch_size = 32
learning_rate = 0.001
val_acc_history = []
val_loss_history = []


def train(model):
    print('start training ... ')
    model.train()
    opt = paddle.optimizer.Adam(learning_rate=learning_rate, parameters=model.parameters())
    train_loader = paddle.io.DataLoader(cifar10_train, shuffle=True, batch_size=batch_size)
    valid_loader = paddle.io.DataLoader(cifar10_test, batch_size=batch_size)
    for epoch in range(epoch_num):
        for batch_id, data in enumerate(train_loader()):
            x_data = data[0]
            y_data = paddle.to_tensor(data[1])
            y_data = paddle.unsqueeze(y_data, 1) if len(y_data.shape) == 1 else y_data
            logits = model(x_data)
            loss = F.cross_entropy(logits, y_data)
            if batch_id % 4 == 0:
                print("epoch: {}, batch_id: {}, loss is: {}".format(epoch, batch_id,
                                                                   loss.numpy()))
            loss.backward()
            opt.step()
            opt.clear_grad()
        model.eval()
        accuracies = []
        losses = []
        for batch_id, data in enumerate(valid_loader()):
            x_data = data[0]
            y_data = paddle.to_tensor(data[1])
            logits = model(x_data)
            loss = F.cross_entropy(logits, y_data)
            acc = paddle.metric.accuracy(logits, y_data)
            accuracies.append(acc.numpy())
            losses.append(loss.numpy())
        avg_acc, avg_loss = np.mean(accuracies), np.mean(losses)
        print("[validation] accuracy/loss: {}/{}".format(avg_acc, avg_loss))
        val_acc_history.append(avg_acc)
        val_loss_history.append(avg_loss)
        model.train()


paddle.seed(0)
model = MyNet(num_classes=10)
train(model)
print("RESULT", val_loss_history[0], val_loss_history[-1], val_acc_history[-1])

# practices/jit/Image denoising-jit (a convolutional denoising autoencoder on MNIST, trained
# eagerly, then again with @paddle.jit.to_static() on forward, saved with paddle.jit.save and
# loaded with paddle.jit.load for prediction): the tutorial's autoencoder / autoencoder2
# (Conv2D, MaxPool2D, Upsample(size=...), F.binary_cross_entropy), train() and its Adam. The
# MNIST subset bundled with core.dataset.mnist stands in for the download, 100 training images
# (batches of 32, so the last batch of 4 traces a second program, as the tutorial's last batch
# does) and 1 epoch instead of 60000 images, batches of 256 and 20 epochs. Added: the converted
# model and the loaded one against eager mode with the same parameters.
# https://aistudio.baidu.com/aistudio/projectdetail/3910079 (docs/practices/jit)
import os
import tempfile
import warnings

import numpy as np

import dy2static as paddle
import dy2static.nn.functional as F
from dy2static.vision.transforms import Compose, Normalize

batch_size = 32
os.chdir(tempfile.mkdtemp())
np.random.seed(0)
paddle.seed(0)

# 使用transform对数据集做归一化
transform = Compose([Normalize(mean=[0],
                               std=[255],
                               data_format='CHW')])

# 训练数据集
train_datasets = paddle.vision.datasets.MNIST(mode='train', transform=transform)

# 测试数据集
test_datasets = paddle.vision.datasets.MNIST(mode='test', transform=transform)

print('训练集样本量: {}, 验证集样本量: {}'.format(len(train_datasets), len(test_datasets)))
print(train_datasets[0][0].shape)

# 1、将数据格式进行转换 (the first 100 / 16 images)
x_train = [train_datasets[i][0] for i in range(100)]
x_test = [test_datasets[i][0] for i in range(16)]

x_train = np.reshape(x_train, (len(x_train), 1, 28, 28))
x_test = np.reshape(x_test, (len(x_test), 1, 28, 28))
print('训练数据的长度是{} 测试数据的长度是{}'.format(len(x_train), len(x_test)))
print('训练数据的shape是{} 测试数据的shape是{}'.format(x_train[0].shape, x_test[0].shape))


# 2、添加随机白噪声(均值是0, 方差为1)
noise_factor = 0.5
x_train_noise = x_train + noise_factor * np.random.normal(loc=0.0, scale=1.0, size=x_train.shape)
x_test_noise = x_test + noise_factor * np.random.normal(loc=0.0, scale=1.0, size=x_test.shape)
# 限制加完噪声的数值取值范围
x_train_noise = np.clip(x_train_noise, 0, 1)
x_test_noise = np.clip(x_test_noise, 0, 1)

print('添加噪声后数据长度是{} 测试数据的长度是{}'.format(len(x_train_noise), len(x_test_noise)))
print('添加噪声后数据的shape是{} 测试数据的shape是{}'.format(x_train_noise[0].shape,
                                                         x_test_noise[0].shape))


# 创建一个类MnistDataset, 继承paddle.io.Dataset 这个类
class MnistDataset(paddle.io.Dataset):
    def __init__(self, mode):
        super(MnistDataset, self).__init__()
        # 读取到的数据区分训练集, 验证集, 测试集
        if mode == 'train':
            # 获得训练数据集
            imgs, labels = x_train_noise, x_train
        elif mode == 'test':
            # 获得测试数据集
            imgs, labels = x_test_noise, x_test
        else:
            raise Exception("mode can only be one of ['train', 'valid', 'eval']")

        # 校验数据
        assert len(imgs) == len(labels), \
            "length of train_imgs({}) should be the same as train_labels({})".format(
                len(imgs), len(labels))

        self.imgs = imgs
        self.labels = labels

    def __getitem__(self, idx):
        img = np.array(self.imgs[idx]).astype('float32')
        label = np.array(self.labels[idx]).astype('float32')

        return img, label

    def __len__(self):
        return len(self.imgs)


warnings.filterwarnings('ignore')

train_dataset = MnistDataset(mode='train')
train_loader = paddle.io.DataLoader(train_dataset, batch_size=batch_size, shuffle=True)


class autoencoder(paddle.nn.Layer):
    def __init__(self):
        super(autoencoder, self).__init__()
        # encoder部分
        # (1, 28, 28) ---> (32, 28, 28)
        self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=32, kernel_size=(3, 3),
                                      stride=1, padding=1)
        # (32, 28, 28)--- > (32, 14, 14)
        self.max_pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        # (32, 14,  14)--- > (64, 14, 14)
        self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=(3, 3),
                                      stride=1, padding=1)
        #  (64, 14, 14)--- > (64, 7, 7)
        self.max_pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)

        # decoder部分
        # (64, 7, 7) ---->
        self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=64, kernel_size=(3, 3),
                                      stride=1, padding=1)
        self.up_pool3 = paddle.nn.Upsample(size=[14, 14])  # 不改变channel, 只是将其hw翻倍
        self.conv4 = paddle.nn.Conv2D(in_channels=64, out_channels=32, kernel_size=(3, 3),
                                      stride=1, padding=1)
        self.up_pool4 = paddle.nn.Upsample(size=[28, 28])
        self.conv5 = paddle.nn.Conv2D(in_channels=32, out_channels=1, kernel_size=(3, 3),
                                      stride=1, padding=1)

    def forward(self, x):
        # encoder部分
        x = self.conv1(x)
        x = F.relu(x)
        x = self.max_pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.max_pool2(x)
        # decoder部分
        x = self.conv3(x)
        x = F.relu(x)
        x = self.up_pool3(x)
        x = self.conv4(x)
        x = F.relu(x)
        x = self.up_pool4(x)
        x = self.conv5(x)
        x = F.sigmoid(x)
        return x


model = autoencoder()
# 查看模型结构
params_info = paddle.summary(model, (1, 1, 28, 28))
print(params_info)

optim = paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())

losses = []


def train(model, optim, epochs):
    model.train()
    for epoch in range(epochs):
        for batch_id, data in enumerate(train_loader, 1):
            x_data = data[0]
            y_data = data[1]
            predicts = model(x_data)
            # y_data为0, 1可以采用二分类交叉熵损失按数
            loss = F.binary_cross_entropy(predicts, y_data)
            # 计算损失
            loss.backward()
            optim.step()
            optim.clear_grad()
            losses.append(float(loss))

            if batch_id % 2 == 0:
                opt_lr = optim.get_lr()
                print("epoch: {}, batch_id: {}, loss is: {}, opt_lr: {}".format(
                    epoch, batch_id, loss.numpy(), opt_lr))


epochs = 1
train(model, optim, epochs)
eager_loss = losses[-1]

test_dataset = MnistDataset(mode='test')
# 使用paddle.io.DataLoader 定义DataLoader对象用于加载Python生成器产生的数据,
test_loader = paddle.io.DataLoader(test_dataset, batch_size=16, shuffle=False)

for batch_id, data in enumerate(test_loader):
    x_data = data[0]
    y_data = data[1]
    predicts = model(x_data)
    break


class autoencoder2(paddle.nn.Layer):
    def __init__(self):
        super(autoencoder2, self).__init__()
        # encoder部分
        # (1, 28, 28) ---> (32, 28, 28)
        self.conv1 = paddle.nn.Conv2D(in_channels=1, out_channels=32, kernel_size=(3, 3),
                                      stride=1, padding=1)
        # (32, 28, 28)--- > (32, 14, 14)
        self.max_pool1 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        # (32, 14,  14)--- > (64, 14, 14)
        self.conv2 = paddle.nn.Conv2D(in_channels=32, out_channels=64, kernel_size=(3, 3),
                                      stride=1, padding=1)
        #  (64, 14, 14)--- > (64, 7, 7)
        self.max_pool2 = paddle.nn.MaxPool2D(kernel_size=2, stride=2)

        # decoder部分
        # (64, 7, 7) ---->
        self.conv3 = paddle.nn.Conv2D(in_channels=64, out_channels=64, kernel_size=(3, 3),
                                      stride=1, padding=1)
        self.up_pool3 = paddle.nn.Upsample(size=[14, 14])  # 不改变channel, 只是将其hw翻倍
        self.conv4 = paddle.nn.Conv2D(in_channels=64, out_channels=32, kernel_size=(3, 3),
                                      stride=1, padding=1)
        self.up_pool4 = paddle.nn.Upsample(size=[28, 28])
        self.conv5 = paddle.nn.Conv2D(in_channels=32, out_channels=1, kernel_size=(3, 3),
                                      stride=1, padding=1)

    # 在forward 前添加 paddle.jit.to_static 装饰器
    @paddle.jit.to_static()
    def forward(self, x):
        # encoder部分
        x = self.conv1(x)
        x = F.relu(x)
        x = self.max_pool1(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = self.max_pool2(x)
        # decoder部分
        x = self.conv3(x)
        x = F.relu(x)
        x = self.up_pool3(x)
        x = self.conv4(x)
        x = F.relu(x)
        x = self.up_pool4(x)
        x = self.conv5(x)
        x = F.sigmoid(x)
        return x


epochs = 1
model_2 = autoencoder2()
optim_2 = paddle.optimizer.Adam(learning_rate=0.001, parameters=model_2.parameters())
losses = []
train(model_2, optim_2, epochs)
static_losses = losses

# the converted model against eager mode, with the same parameters
eager_twin = autoencoder()
eager_twin.set_state_dict(model_2.state_dict())
to_static_diff = float((model_2(paddle.to_tensor(x_test_noise.astype('float32'))) -
                        eager_twin(paddle.to_tensor(x_test_noise.astype('float32'))))
                       .abs().max())

paddle.jit.save(model_2, 'model')

model_2 = paddle.jit.load('model')

for batch_id, data in enumerate(test_loader):
    x_data = data[0]
    y_data = data[1]
    predicts = model_2(x_data)
    break

load_diff = float((predicts - eager_twin(x_data)).abs().max())
print("predicts:", predicts.shape)
print("RESULT", eager_loss, static_losses[0], static_losses[-1], len(static_losses),
      to_static_diff, load_diff)

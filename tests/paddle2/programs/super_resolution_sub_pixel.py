# practices/cv/super_resolution_sub_pixel (ESPCN, a sub-pixel CNN for 3x super-resolution): the
# tutorial's Sub_Pixel_CNN (four Conv2D, paddle.nn.functional.pixel_shuffle) trained with
# paddle.Model (prepare(Adam, MSELoss), fit, predict on the validation Dataset and on a 5-D
# numpy array, save(training=True)); then the network runs through paddle.jit.to_static with
# unknown image sizes, compared with eager mode. BSD_data keeps its interface, but its images
# are synthetic luminance planes (30x30 for 300x300, a 3x3 block mean for PIL's bicubic
# resize: no PIL, no BSDS500 download), and fit runs 2 epochs of batch 4 instead of 20 of 16.
# https://www.paddlepaddle.org.cn/documentation/docs/zh/practices/cv/super_resolution_sub_pixel.html
import math
import os
import random
import tempfile

import numpy as np

import dy2static as paddle
from dy2static.io import Dataset
from dy2static.static import InputSpec

print(paddle.__version__)


class BSD_data(Dataset):
    """
    继承paddle.io.Dataset类
    """

    def __init__(self, mode="train", num=8):
        """
        实现构造函数, 定义数据读取方式, 划分训练和测试数据集
        """
        super().__init__()

        self.mode = mode.lower()
        if self.mode == "train":
            self.num = num
        elif self.mode == "val":
            self.num = num // 2
        else:
            raise ValueError('mode must be "train" or "val"')

        # 原始图像的缩放大小
        self.crop_size = 30
        # 缩放倍率
        self.upscale_factor = 3
        # 缩小后送入神经网络的大小
        self.input_size = self.crop_size // self.upscale_factor
        # numpy随机数种子
        self.seed = 1337
        # 图片集合
        self.temp_images = []
        # 加载数据
        self._parse_dataset()

    def transforms(self, img):
        """
        图像预处理工具, 用于将升维(100, 100) => (100, 100,1),
        并对图像的维度进行转换从HWC变为CHW
        """
        if len(img.shape) == 2:
            img = np.expand_dims(img, axis=2)
        return img.transpose((2, 0, 1))

    def __getitem__(self, idx):
        """
        返回 缩小3倍后的图片 和 原始图片
        """

        # 加载原始图像 (the Y channel of a synthetic image, in [0, 255])
        img = self._load_img(self.temp_images[idx])
        y = np.asarray(img, dtype="float32")
        y = y / 255.0

        # 缩放后的图像和前面采取一样的操作 (a 3x3 block mean instead of a bicubic resize)
        f = self.upscale_factor
        y_ = y.reshape(self.input_size, f, self.input_size, f).mean(axis=(1, 3))

        # 升纬并将HWC转换为CHW
        y = self.transforms(y)
        x = self.transforms(y_)

        # x为缩小3倍后的图片(1, 10, 10) y是原始图片(1, 30, 30)
        return x, y

    def __len__(self):
        """
        实现__len__方法, 返回数据集总数目
        """
        return len(self.temp_images)

    def _parse_dataset(self):
        """
        处理数据集 (seeds of synthetic images instead of the sorted file names)
        """
        self.temp_images = list(range(self.num)) if self.mode == "train" else \
            list(range(100, 100 + self.num))
        random.Random(self.seed).shuffle(self.temp_images)

    def _load_img(self, seed):
        """
        a smooth random image: a sum of a few sinusoids, as uint8 luminance
        """
        rng = np.random.RandomState(seed)
        u, v = np.meshgrid(np.linspace(0, 1, self.crop_size), np.linspace(0, 1, self.crop_size))
        img = sum(np.sin(2 * np.pi * (rng.uniform(0.5, 2) * u + rng.uniform(0.5, 2) * v +
                                      rng.uniform())) for _ in range(3))
        return (127.5 + 40 * img).clip(0, 255).astype("uint8")


# 测试定义的数据集
train_dataset = BSD_data(mode="train")
val_dataset = BSD_data(mode="val")

print("=============train dataset=============")
x, y = train_dataset[0]
print(x.shape, y.shape)


class Sub_Pixel_CNN(paddle.nn.Layer):
    def __init__(self, upscale_factor=3, channels=1):
        super().__init__()

        self.conv1 = paddle.nn.Conv2D(channels, 64, 5, stride=1, padding=2)
        self.conv2 = paddle.nn.Conv2D(64, 64, 3, stride=1, padding=1)
        self.conv3 = paddle.nn.Conv2D(64, 32, 3, stride=1, padding=1)
        self.conv4 = paddle.nn.Conv2D(
            32, channels * (upscale_factor**2), 3, stride=1, padding=1
        )

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = self.conv3(x)
        x = self.conv4(x)
        x = paddle.nn.functional.pixel_shuffle(x, 3)
        return x


paddle.seed(0)
# 模型封装
model = paddle.Model(Sub_Pixel_CNN())

model.summary((1, 1, 100, 100))

model.prepare(
    paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()),
    paddle.nn.MSELoss(),
)

before = model.evaluate(val_dataset, batch_size=4, verbose=0)["loss"][0]
# 启动模型训练, 指定训练数据集, 设置训练轮次, 设置每次数据集计算的批次大小, 设置日志格式
model.fit(train_dataset, epochs=2, batch_size=4, verbose=1)
after = model.evaluate(val_dataset, batch_size=4, verbose=0)["loss"][0]

predict_results = model.predict(val_dataset)
print("predict:", len(predict_results[0]), predict_results[0][0].shape)


def psnr(img1, img2):
    """
    PSMR计算函数
    """
    mse = np.mean((img1 / 255.0 - img2 / 255.0) ** 2)
    if mse < 1.0e-10:
        return 100
    PIXEL_MAX = 1
    return 20 * math.log10(PIXEL_MAX / math.sqrt(mse))


# upscale_image's call: a 5-D array, an iterable of one batch (a synthetic low-res Y plane)
lowres, highres = val_dataset[0]
img = np.expand_dims(lowres, axis=0)  # 升维度到(1,1,w,h)一个batch
img = np.expand_dims(img, axis=0)  # 升维度到(1,1,1,w,h)可迭代的batch

out = model.predict(img)  # predict输入要求为可迭代的batch

out_img_y = out[0][0][0]  # 得到predict输出结果
out_img_y *= 255.0
out_img_y = out_img_y.reshape((np.shape(out_img_y)[1], np.shape(out_img_y)[2]))
print("psmr_pre:", psnr(out_img_y.clip(0, 255), highres[0] * 255.0), out_img_y.shape)

model.save(os.path.join(tempfile.mkdtemp(), "checkpoint/model_final"), training=True)

# the network converted, for any image size, against eager mode
net = model.network
net.eval()
static_net = paddle.jit.to_static(net, input_spec=[InputSpec([None, 1, None, None], "float32")])
diff = 0.0
for shape in ([2, 1, 10, 10], [1, 1, 7, 12]):
    xs = paddle.rand(shape)
    diff = max(diff, float((static_net(xs) - net(xs)).abs().max()))
print("RESULT", before, after, out_img_y.shape[0], out_img_y.shape[1], diff)

# practices/gan/dcgan_face (DCGAN on CelebA faces): the tutorial's Discriminator and Generator
# (Conv2D / Conv2DTranspose, BatchNorm2D with ParamAttr names and Normal initializers,
# leaky_relu, Tanh), BCELoss, two Adam optimizers and fake.detach(), trained for 2 steps on
# random 64x64 "faces" (a Dataset of synthetic images instead of the cropped CelebA files, a
# batch of 4 instead of 128); then the generator runs through paddle.jit.to_static and
# jit.save / jit.load, compared with eager mode. As of PaddlePaddle 2.5 a loss is 0-D, so the
# tutorial's errD.numpy()[0] is float(errD) here.
# https://www.paddlepaddle.org.cn/documentation/docs/zh/practices/gan/dcgan_face/dcgan_face.html
import os
import tempfile

import numpy as np

import dy2static as paddle
import dy2static.nn as nn
import dy2static.nn.functional as F
import dy2static.optimizer as optim
from dy2static.io import Dataset
from dy2static.static import InputSpec

img_dim = 64

# 准备数据, 定义Reader()


class DataGenerater(Dataset):
    """
    数据集定义 (synthetic images in [-1, 1] instead of files read with skimage)
    """

    def __init__(self, num=8):
        super().__init__()
        rng = np.random.RandomState(0)
        self.datalist = rng.uniform(-1, 1, (num, 3, img_dim, img_dim)).astype("float32")
        self.image_size = (img_dim, img_dim)

    # 每次迭代时返回数据和对应的标签
    def __getitem__(self, idx):
        return self.datalist[idx]

    # 返回整个数据集的总数
    def __len__(self):
        return len(self.datalist)


batch_size = 4
train_dataset = DataGenerater()
train_loader = paddle.io.DataLoader(
    train_dataset,
    batch_size=batch_size,
    shuffle=True,
    drop_last=True,
)

conv_initializer = paddle.nn.initializer.Normal(mean=0.0, std=0.02)
bn_initializer = paddle.nn.initializer.Normal(mean=1.0, std=0.02)

class Discriminator(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv_1 = nn.Conv2D(
            3,
            64,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="d_conv_weight_1_", initializer=conv_initializer
            ),
        )
        self.conv_2 = nn.Conv2D(
            64,
            128,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="d_conv_weight_2_", initializer=conv_initializer
            ),
        )
        self.bn_2 = nn.BatchNorm2D(
            128,
            weight_attr=paddle.ParamAttr(
                name="d_2_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_3 = nn.Conv2D(
            128,
            256,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="d_conv_weight_3_", initializer=conv_initializer
            ),
        )
        self.bn_3 = nn.BatchNorm2D(
            256,
            weight_attr=paddle.ParamAttr(
                name="d_3_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_4 = nn.Conv2D(
            256,
            512,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="d_conv_weight_4_", initializer=conv_initializer
            ),
        )
        self.bn_4 = nn.BatchNorm2D(
            512,
            weight_attr=paddle.ParamAttr(
                name="d_4_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_5 = nn.Conv2D(
            512,
            1,
            4,
            1,
            0,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="d_conv_weight_5_", initializer=conv_initializer
            ),
        )

    def forward(self, x):
        x = self.conv_1(x)
        x = F.leaky_relu(x, negative_slope=0.2)
        x = self.conv_2(x)
        x = self.bn_2(x)
        x = F.leaky_relu(x, negative_slope=0.2)
        x = self.conv_3(x)
        x = self.bn_3(x)
        x = F.leaky_relu(x, negative_slope=0.2)
        x = self.conv_4(x)
        x = self.bn_4(x)
        x = F.leaky_relu(x, negative_slope=0.2)
        x = self.conv_5(x)
        x = F.sigmoid(x)
        return x


class Generator(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv_1 = nn.Conv2DTranspose(
            100,
            512,
            4,
            1,
            0,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_1_", initializer=conv_initializer
            ),
        )
        self.bn_1 = nn.BatchNorm2D(
            512,
            weight_attr=paddle.ParamAttr(
                name="g_1_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_2 = nn.Conv2DTranspose(
            512,
            256,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_2_", initializer=conv_initializer
            ),
        )
        self.bn_2 = nn.BatchNorm2D(
            256,
            weight_attr=paddle.ParamAttr(
                name="g_2_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_3 = nn.Conv2DTranspose(
            256,
            128,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_3_", initializer=conv_initializer
            ),
        )
        self.bn_3 = nn.BatchNorm2D(
            128,
            weight_attr=paddle.ParamAttr(
                name="g_3_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_4 = nn.Conv2DTranspose(
            128,
            64,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_4_", initializer=conv_initializer
            ),
        )
        self.bn_4 = nn.BatchNorm2D(
            64,
            weight_attr=paddle.ParamAttr(
                name="g_4_bn_weight_", initializer=bn_initializer
            ),
            momentum=0.8,
        )
        self.conv_5 = nn.Conv2DTranspose(
            64,
            3,
            4,
            2,
            1,
            bias_attr=False,
            weight_attr=paddle.ParamAttr(
                name="g_dconv_weight_5_", initializer=conv_initializer
            ),
        )
        self.tanh = paddle.nn.Tanh()

    def forward(self, x):
        x = self.conv_1(x)
        x = self.bn_1(x)
        x = F.relu(x)
        x = self.conv_2(x)
        x = self.bn_2(x)
        x = F.relu(x)
        x = self.conv_3(x)
        x = self.bn_3(x)
        x = F.relu(x)
        x = self.conv_4(x)
        x = self.bn_4(x)
        x = F.relu(x)
        x = self.conv_5(x)
        x = self.tanh(x)
        return x


###损失函数
loss = paddle.nn.BCELoss()

img_dim = 64
lr = 0.0002
epoch = 1
batch_size = 4
G_DIMENSION = 100
beta1 = 0.5
beta2 = 0.999
output_path = tempfile.mkdtemp()
device = paddle.set_device("cpu")
paddle.disable_static(device)
paddle.seed(0)

real_label = 1.0
fake_label = 0.0

netD = Discriminator()
netG = Generator()
optimizerD = optim.Adam(
    parameters=netD.parameters(), learning_rate=lr, beta1=beta1, beta2=beta2
)
optimizerG = optim.Adam(
    parameters=netG.parameters(), learning_rate=lr, beta1=beta1, beta2=beta2
)

###训练过程
losses = [[], []]
now = 0
for pass_id in range(epoch):
    # enumerate()函数将一个可遍历的数据对象组合成一个序列列表
    for batch_id, data in enumerate(train_loader()):
        # 训练判别器
        optimizerD.clear_grad()
        real_cpu = data[0]
        label = paddle.full((batch_size, 1, 1, 1), real_label, dtype="float32")
        output = netD(real_cpu)
        errD_real = loss(output, label)
        errD_real.backward()
        optimizerD.step()
        optimizerD.clear_grad()

        noise = paddle.randn([batch_size, G_DIMENSION, 1, 1], "float32")
        fake = netG(noise)
        label = paddle.full((batch_size, 1, 1, 1), fake_label, dtype="float32")
        output = netD(fake.detach())
        errD_fake = loss(output, label)
        errD_fake.backward()
        optimizerD.step()
        optimizerD.clear_grad()

        errD = errD_real + errD_fake

        losses[0].append(float(errD))
        ###训练生成器
        optimizerG.clear_grad()
        noise = paddle.randn([batch_size, G_DIMENSION, 1, 1], "float32")
        fake = netG(noise)
        label = paddle.full(
            (batch_size, 1, 1, 1),
            real_label,
            dtype=np.float32,
        )
        output = netD(fake)
        errG = loss(output, label)
        errG.backward()
        optimizerG.step()
        optimizerG.clear_grad()

        losses[1].append(float(errG))
        print("Epoch ID={0} Batch ID={1} D-Loss={2} G-Loss={3}".format(
            pass_id, batch_id, float(errD), float(errG)))
    paddle.save(netG.state_dict(), os.path.join(output_path, "generator.params"))

# 生成: a fresh Generator from the saved parameters, eager and converted
generate = Generator()
state_dict = paddle.load(os.path.join(output_path, "generator.params"))
generate.set_state_dict(state_dict)
generate.eval()
noise = paddle.randn([6, 100, 1, 1], "float32")
generated_image = generate(noise).numpy()

static_generate = paddle.jit.to_static(
    generate, input_spec=[InputSpec([None, G_DIMENSION, 1, 1], "float32")])
static_image = static_generate(noise).numpy()
to_static_diff = float(np.abs(static_image - generated_image).max())

path = os.path.join(output_path, "inference", "generator")
paddle.jit.save(static_generate, path)
loaded = paddle.jit.load(path)
loaded.eval()
loaded_image = loaded(noise).numpy()
load_diff = float(np.abs(loaded_image - generated_image).max())
print("generated:", generated_image.shape, "range", generated_image.min(), generated_image.max())
print("RESULT", losses[0][0], losses[1][-1], len(losses[0]), to_static_diff, load_diff,
      float(np.abs(generated_image).max()))

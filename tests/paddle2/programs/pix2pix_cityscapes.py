# practices/gan/Pix2Pix (Pix2Pix on Cityscapes): the tutorial's U-Net generator (Downsample /
# Upsample blocks, skip connections joined with paddle.concat, Dropout, BatchNorm2D,
# Conv2DTranspose) and PatchGAN discriminator (NLayerDiscriminator), BCELoss + 100 * L1Loss,
# two Adam optimizers and detach, trained for 2 steps; then the trained generator in eval
# mode runs through paddle.jit.to_static, compared with eager mode. A Dataset of synthetic
# 256x256 photo / label-colour pairs (Tensors, as the tutorial's __getitem__ returns) and a
# batch of 1 stand in for the 256x512 Cityscapes images read with cv2 in batches of 16; the
# tutorial's own ngf / ndf arguments are 8 instead of 64 (the U-Net's eight stride-2 levels
# need the 256 pixels).
# https://www.paddlepaddle.org.cn/documentation/docs/zh/practices/gan/Pix2Pix/Pix2Pix_with_Cityscapes.html
import os
import tempfile

import numpy as np

import dy2static as paddle
from dy2static.static import InputSpec

# 输出Paddle版本
print(paddle.__version__)

H, W = 256, 256
os.chdir(tempfile.mkdtemp())


class MyDateset(paddle.io.Dataset):
    def __init__(self, num=2):
        super(MyDateset, self).__init__()

        rng = np.random.RandomState(0)
        self.images = rng.randint(0, 256, (num, H, W, 3)).astype("uint8")
        self.masks = rng.randint(0, 256, (num, H, W, 3)).astype("uint8")

    def __getitem__(self, index):
        img = self.images[index]
        img = img / 255
        img = img.transpose([2, 0, 1])
        img = paddle.to_tensor(img).astype("float32")

        mask = self.masks[index]
        mask = mask / 255
        mask = mask.transpose([2, 0, 1])
        mask = paddle.to_tensor(mask).astype("float32")

        return img, mask

    def __len__(self):
        return len(self.images)


if 1:
    dataset = MyDateset()

    dataloader = paddle.io.DataLoader(
        dataset, batch_size=1, shuffle=True, drop_last=False
    )

    for step, data in enumerate(dataloader):
        img, mask = data
        print(step, img.shape, mask.shape)
        break


# Generator Code
class UnetGenerator(paddle.nn.Layer):
    def __init__(self, input_nc=3, output_nc=3, ngf=64):
        super(UnetGenerator, self).__init__()

        self.down1 = paddle.nn.Conv2D(
            input_nc, ngf, kernel_size=4, stride=2, padding=1
        )
        self.down2 = Downsample(ngf, ngf * 2)
        self.down3 = Downsample(ngf * 2, ngf * 4)
        self.down4 = Downsample(ngf * 4, ngf * 8)
        self.down5 = Downsample(ngf * 8, ngf * 8)
        self.down6 = Downsample(ngf * 8, ngf * 8)
        self.down7 = Downsample(ngf * 8, ngf * 8)

        self.center = Downsample(ngf * 8, ngf * 8)

        self.up7 = Upsample(ngf * 8, ngf * 8, use_dropout=True)
        self.up6 = Upsample(ngf * 8 * 2, ngf * 8, use_dropout=True)
        self.up5 = Upsample(ngf * 8 * 2, ngf * 8, use_dropout=True)
        self.up4 = Upsample(ngf * 8 * 2, ngf * 8)
        self.up3 = Upsample(ngf * 8 * 2, ngf * 4)
        self.up2 = Upsample(ngf * 4 * 2, ngf * 2)
        self.up1 = Upsample(ngf * 2 * 2, ngf)

        self.output_block = paddle.nn.Sequential(
            paddle.nn.ReLU(),
            paddle.nn.Conv2DTranspose(
                ngf * 2, output_nc, kernel_size=4, stride=2, padding=1
            ),
            paddle.nn.Tanh(),
        )

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(d1)
        d3 = self.down3(d2)
        d4 = self.down4(d3)
        d5 = self.down5(d4)
        d6 = self.down6(d5)
        d7 = self.down7(d6)

        c = self.center(d7)

        x = self.up7(c, d7)
        x = self.up6(x, d6)
        x = self.up5(x, d5)
        x = self.up4(x, d4)
        x = self.up3(x, d3)
        x = self.up2(x, d2)
        x = self.up1(x, d1)

        x = self.output_block(x)
        return x


class Downsample(paddle.nn.Layer):
    # LeakyReLU => conv => batch norm
    def __init__(self, in_dim, out_dim, kernel_size=4, stride=2, padding=1):
        super(Downsample, self).__init__()

        self.layers = paddle.nn.Sequential(
            paddle.nn.LeakyReLU(0.2),
            paddle.nn.Conv2D(
                in_dim, out_dim, kernel_size, stride, padding, bias_attr=False
            ),
            paddle.nn.BatchNorm2D(out_dim),
        )

    def forward(self, x):
        x = self.layers(x)
        return x


class Upsample(paddle.nn.Layer):
    # ReLU => deconv => batch norm => dropout
    def __init__(
        self,
        in_dim,
        out_dim,
        kernel_size=4,
        stride=2,
        padding=1,
        use_dropout=False,
    ):
        super(Upsample, self).__init__()

        sequence = [
            paddle.nn.ReLU(),
            paddle.nn.Conv2DTranspose(
                in_dim, out_dim, kernel_size, stride, padding, bias_attr=False
            ),
            paddle.nn.BatchNorm2D(out_dim),
        ]

        if use_dropout:
            sequence.append(paddle.nn.Dropout(p=0.5))

        self.layers = paddle.nn.Sequential(*sequence)

    def forward(self, x, skip):
        x = self.layers(x)
        x = paddle.concat([x, skip], axis=1)
        return x


# 通过paddle.summary可以查看一个指定形状的数据在网络中各个模块中的传递
paddle.summary(UnetGenerator(ngf=8), (1, 3, H, W))


# Discriminator Code
class NLayerDiscriminator(paddle.nn.Layer):
    def __init__(self, input_nc=6, ndf=64):
        super(NLayerDiscriminator, self).__init__()

        self.layers = paddle.nn.Sequential(
            paddle.nn.Conv2D(input_nc, ndf, kernel_size=4, stride=2, padding=1),
            paddle.nn.LeakyReLU(0.2),
            ConvBlock(ndf, ndf * 2),
            ConvBlock(ndf * 2, ndf * 4),
            ConvBlock(ndf * 4, ndf * 8, stride=1),
            paddle.nn.Conv2D(ndf * 8, 1, kernel_size=4, stride=1, padding=1),
            paddle.nn.Sigmoid(),
        )

    def forward(self, input):
        return self.layers(input)


class ConvBlock(paddle.nn.Layer):
    # conv => batch norm => LeakyReLU
    def __init__(self, in_dim, out_dim, kernel_size=4, stride=2, padding=1):
        super(ConvBlock, self).__init__()

        self.layers = paddle.nn.Sequential(
            paddle.nn.Conv2D(
                in_dim, out_dim, kernel_size, stride, padding, bias_attr=False
            ),
            paddle.nn.BatchNorm2D(out_dim),
            paddle.nn.LeakyReLU(0.2),
        )

    def forward(self, x):
        x = self.layers(x)
        return x


# 通过paddle.summary可以查看一个指定形状的数据在网络中各个模块中的传递
paddle.summary(NLayerDiscriminator(ndf=8), (1, 6, H, W))

paddle.seed(0)
# create Net
netG = UnetGenerator(ngf=8)
netD = NLayerDiscriminator(ndf=8)

# 如果想要接着之前训练的模型训练, 将if 0修改为if 1即可
if 1:
    try:
        mydict = paddle.load("generator.params")
        netG.set_dict(mydict)
        mydict = paddle.load("discriminator.params")
        netD.set_dict(mydict)
    except:  # noqa: E722
        print("fail to load model")

netG.train()
netD.train()

optimizerD = paddle.optimizer.Adam(
    parameters=netD.parameters(), learning_rate=0.00002, beta1=0.5, beta2=0.999
)
optimizerG = paddle.optimizer.Adam(
    parameters=netG.parameters(), learning_rate=0.00002, beta1=0.5, beta2=0.999
)

bce_loss = paddle.nn.BCELoss()
l1_loss = paddle.nn.L1Loss()

# 最大迭代epoch
max_epoch = 1

losses = []
now_step = 0
for epoch in range(max_epoch):
    for step, (img, mask) in enumerate(dataloader):
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################

        # 清除D的梯度
        optimizerD.clear_grad()

        # 传入正样本, 并更新梯度
        pos_img = paddle.concat((img, mask), 1)
        # label = paddle.full([pos_img.shape[0], 1], 1, dtype='float32')
        pre = netD(pos_img)
        loss_D_1 = bce_loss(pre, paddle.ones_like(pre))
        loss_D_1.backward()

        # 通过randn构造随机数, 制造负样本, 并传入D, 更新梯度
        fake_img = netG(mask).detach()
        neg_img = paddle.concat((fake_img, mask), 1)
        # label = paddle.full([pos_img.shape[0], 1], 0, dtype='float32')
        pre = netD(
            neg_img.detach()
        )  # 通过detach阻断网络梯度传播, 不影响G的梯度计算
        loss_D_2 = bce_loss(pre, paddle.zeros_like(pre))
        loss_D_2.backward()

        # 更新D网络参数
        optimizerD.step()
        optimizerD.clear_grad()

        loss_D = loss_D_1 + loss_D_2

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################

        # 清除D的梯度
        optimizerG.clear_grad()

        fake_img = netG(mask)
        fake = paddle.concat((fake_img, mask), 1)
        # label = paddle.full((pos_img.shape[0], 1), 1, dtype=np.float32,)
        output = netD(fake)
        loss_G_1 = l1_loss(fake_img, img) * 100.0
        loss_G_2 = bce_loss(output, paddle.ones_like(pre))
        loss_G = loss_G_1 + loss_G_2
        loss_G.backward()

        # 更新G网络参数
        optimizerG.step()
        optimizerG.clear_grad()

        now_step += 1

        print("now_step is:", now_step, "D-Loss", float(loss_D), "G-Loss", float(loss_G))
        losses.append((float(loss_D), float(loss_G)))
paddle.save(netG.state_dict(), "generator.params")
paddle.save(netD.state_dict(), "discriminator.params")

# 读取模型
netG = UnetGenerator(ngf=8)
mydict = paddle.load("generator.params")
netG.set_dict(mydict)
netG.eval()

# 预处理 (a synthetic label-colour image instead of test.png)
mask = np.random.RandomState(1).randint(0, 256, (H, W, 3)).astype("uint8")
mask = mask / 255
mask = mask.transpose([2, 0, 1])
mask = paddle.to_tensor(mask).astype("float32")
mask = mask.reshape([1] + mask.shape)

# 将推理结果转化为图片
img = netG(mask)
img = img.numpy()[0]
eager_img = img.copy()
img[img < 0] = 0
img = (img * 255).astype("uint8")
img = img.transpose((1, 2, 0))
print("result image:", img.shape, img.dtype)

static_netG = paddle.jit.to_static(netG, input_spec=[InputSpec([None, 3, H, W], "float32")])
static_img = static_netG(mask).numpy()[0]
diff = float(np.abs(static_img - eager_img).max())
print("RESULT", losses[0][0], losses[-1][1], now_step, diff, float(np.abs(eager_img).max()))

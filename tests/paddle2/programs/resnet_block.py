# practices/cv (ResNet building blocks, paddle.vision.models.resnet's BasicBlock): Conv2D +
# BatchNorm2D + shortcut, trained eagerly and through to_static, compared
# https://www.paddlepaddle.org.cn/documentation/docs/en/practices/cv/image_classification.html
import numpy as np

import dy2static as paddle
import dy2static.nn as nn


class BasicBlock(nn.Layer):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class TinyResNet(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 8, 3, padding=1, bias_attr=False),
                                  nn.BatchNorm2D(8), nn.ReLU())
        down = nn.Sequential(nn.Conv2D(8, 16, 1, stride=2, bias_attr=False), nn.BatchNorm2D(16))
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2, downsample=down)
        self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.avgpool(x)
        x = paddle.flatten(x, 1)
        return self.fc(x)


def train(model, steps=4):
    rng = np.random.RandomState(0)
    opt = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                    parameters=model.parameters())
    losses = []
    for step in range(steps):
        x = paddle.to_tensor(rng.rand(8, 3, 16, 16).astype('float32'))
        y = paddle.to_tensor(rng.randint(0, 10, (8, 1)).astype('int64'))
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        print("step {} loss {}".format(step, float(loss)))
    return losses


paddle.seed(5)
eager = TinyResNet()
state = eager.state_dict()
converted = paddle.jit.to_static(TinyResNet())
converted.set_state_dict(state)
eager_losses = train(eager)
static_losses = train(converted)
gap = max(abs(a - b) for a, b in zip(eager_losses, static_losses))
print("eager and to_static losses differ by", gap)
print("RESULT", eager_losses[0], gap)

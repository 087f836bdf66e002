# guides/beginner/model_save_load: paddle.save / paddle.load of the Layer's and the
# optimizer's state dicts, then training resumed
# https://www.paddlepaddle.org.cn/documentation/docs/en/guides/beginner/model_save_load_en.html
import os
import tempfile

import numpy as np

import dy2static as paddle
import dy2static.nn as nn
import dy2static.optimizer as opt

BATCH_SIZE = 16
BATCH_NUM = 4
EPOCH_NUM = 2
IMAGE_SIZE = 784
CLASS_NUM = 10


class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __getitem__(self, idx):
        image = np.random.random([IMAGE_SIZE]).astype('float32')
        label = np.random.randint(0, CLASS_NUM - 1, (1, )).astype('int64')
        return image, label

    def __len__(self):
        return self.num_samples


class LinearNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(IMAGE_SIZE, CLASS_NUM)

    def forward(self, x):
        return self._linear(x)


def train(layer, loader, loss_fn, opt):
    for epoch_id in range(EPOCH_NUM):
        for batch_id, (image, label) in enumerate(loader()):
            out = layer(image)
            loss = loss_fn(out, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            print("Epoch {} batch {}: loss = {}".format(epoch_id, batch_id, np.mean(loss.numpy())))


np.random.seed(0)
paddle.seed(0)
layer = LinearNet()
loss_fn = nn.CrossEntropyLoss()
adam = opt.Adam(learning_rate=0.001, parameters=layer.parameters())
dataset = RandomDataset(BATCH_NUM * BATCH_SIZE)
loader = paddle.io.DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, drop_last=True,
                              num_workers=0)
train(layer, loader, loss_fn, adam)

workdir = tempfile.mkdtemp()
paddle.save(layer.state_dict(), os.path.join(workdir, "linear_net.pdparams"))
paddle.save(adam.state_dict(), os.path.join(workdir, "adam.pdopt"))

layer_state_dict = paddle.load(os.path.join(workdir, "linear_net.pdparams"))
opt_state_dict = paddle.load(os.path.join(workdir, "adam.pdopt"))
new_layer = LinearNet()
new_adam = opt.Adam(learning_rate=0.001, parameters=new_layer.parameters())
new_layer.set_state_dict(layer_state_dict)
new_adam.set_state_dict(opt_state_dict)
x = paddle.rand([2, IMAGE_SIZE])
diff = float((layer(x) - new_layer(x)).abs().max())
print("max difference after load:", diff)
train(new_layer, loader, loss_fn, new_adam)

nested = {"epoch": 3, "weights": [layer._linear.weight, layer._linear.bias]}
paddle.save(nested, os.path.join(workdir, "nested.pdparams"))
back = paddle.load(os.path.join(workdir, "nested.pdparams"))
print(back["epoch"], [w.shape for w in back["weights"]])
print("RESULT", diff, back["epoch"])

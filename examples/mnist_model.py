"""A shared module of the examples, not an example to run: the MNIST model of PaddlePaddle's
dygraph tutorial, and helpers to train and evaluate it.

``MNIST`` is two conv-pool blocks (1 -> 20 -> 50 channels, 5x5 filters, 2x2 max pooling,
ReLU) and a softmax ``Linear(800, 10)``, written exactly as the fluid 1.8 code was, with only
the imports changed. ``train`` runs eager training with Adam; ``evaluate`` measures accuracy.
``mnist_dygraph.py``, ``mnist_static.py`` and ``mnist_declarative.py`` (and the tests) import
it; running it directly does nothing.
"""
import numpy as np

import core
from core.dataset import mnist
from core.dygraph import Conv2D, Layer, Linear, Pool2D


class SimpleImgConvPool(Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride,
                 pool_padding=0, pool_type="max", global_pooling=False, conv_stride=1,
                 conv_padding=0, conv_dilation=1, conv_groups=1, act=None, use_cudnn=False,
                 param_attr=None, bias_attr=None):
        super().__init__()
        self._conv2d = Conv2D(num_channels=num_channels, num_filters=num_filters,
                              filter_size=filter_size, stride=conv_stride, padding=conv_padding,
                              dilation=conv_dilation, groups=conv_groups, param_attr=param_attr,
                              bias_attr=bias_attr, act=act, use_cudnn=use_cudnn)
        self._pool2d = Pool2D(pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                              pool_padding=pool_padding, global_pooling=global_pooling,
                              use_cudnn=use_cudnn)

    def forward(self, inputs):
        x = self._conv2d(inputs)
        x = self._pool2d(x)
        return x


class MNIST(Layer):
    def __init__(self):
        super().__init__()
        self._simple_img_conv_pool_1 = SimpleImgConvPool(1, 20, 5, 2, 2, act="relu")
        self._simple_img_conv_pool_2 = SimpleImgConvPool(20, 50, 5, 2, 2, act="relu")
        self.pool_2_shape = 50 * 4 * 4
        SIZE = 10
        scale = (2.0 / (self.pool_2_shape ** 2 * SIZE)) ** 0.5
        self._fc = Linear(self.pool_2_shape, 10,
                          param_attr=core.ParamAttr(
                              initializer=core.initializer.NormalInitializer(loc=0.0,
                                                                             scale=scale)),
                          act="softmax")

    def forward(self, inputs, label=None):
        x = self._simple_img_conv_pool_1(inputs)
        x = self._simple_img_conv_pool_2(x)
        x = core.layers.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        if label is not None:
            acc = core.layers.accuracy(input=x, label=label)
            return x, acc
        return x


def batches(reader, batch_size, drop_last=False):
    """``(images [B, 1, 28, 28] float32, labels [B, 1] int64)`` arrays from a sample reader."""
    for batch in core.batch(reader, batch_size, drop_last=drop_last)():
        images = np.stack([s[0] for s in batch]).reshape(-1, 1, 28, 28)
        labels = np.array([s[1] for s in batch], dtype=np.int64).reshape(-1, 1)
        yield images, labels


def train_step(model, optimizer, images, labels):
    """One eager step: forward, cross entropy + mean, backward, update; returns the loss."""
    img = core.to_variable(images)
    label = core.to_variable(labels)
    prediction, _ = model(img, label)
    loss = core.layers.cross_entropy(prediction, label)
    avg_loss = core.layers.mean(loss)
    avg_loss.backward()
    optimizer.minimize(avg_loss)
    model.clear_gradients()
    return float(avg_loss)


def train(epochs=1, batch_size=64, learning_rate=1e-3, max_steps=None, data_dir=None, seed=90,
          log_every=0, log=print):
    """Train a fresh ``MNIST`` eagerly with Adam; returns ``(model, losses per step)``.

    Samples come shuffled (a fixed order for a given ``seed``) from
    ``core.dataset.mnist.train(data_dir)``; ``max_steps`` stops early; ``log_every > 0``
    prints the loss every that many steps through ``log``.
    """
    core.seed(seed)
    with core.dygraph.guard():
        model = MNIST()
        optimizer = core.optimizer.AdamOptimizer(learning_rate=learning_rate,
                                                 parameter_list=model.parameters())
        reader = core.reader.shuffle(mnist.train(data_dir), buf_size=60000, seed=seed)
        losses = []
        for epoch in range(epochs):
            for images, labels in batches(reader, batch_size, drop_last=True):
                losses.append(train_step(model, optimizer, images, labels))
                step = len(losses)
                if log_every and step % log_every == 0:
                    log(f"epoch {epoch} step {step}: loss {losses[-1]:.4f}")
                if max_steps is not None and step >= max_steps:
                    return model, losses
    return model, losses


def evaluate(model, reader, batch_size=500):
    """Top-1 accuracy of ``model`` (switched to eval mode) over every sample of ``reader``."""
    model.eval()
    correct = total = 0
    with core.dygraph.guard(), core.no_grad():
        for images, labels in batches(reader, batch_size):
            prediction = model(core.to_variable(images))
            correct += int((prediction.numpy().argmax(axis=1) == labels[:, 0]).sum())
            total += len(labels)
    return correct / max(total, 1)

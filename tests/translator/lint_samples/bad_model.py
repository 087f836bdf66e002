"""A model with constructs the translator cannot convert or converts differently."""
import time

import numpy as np

import core
from translator import declarative

HISTORY = []
STEP = 0


class Net(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(4, 4)
        self.seen = []

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            self.seen.append(1)
            HISTORY.append(h)
        return self.smooth(h)

    def smooth(self, h):
        return h * 0.5


@declarative
def gen(x):
    for row in x:
        yield row


@declarative
def numpy_and_data(x):
    y = np.exp(x)
    z = x.numpy()
    stamp = time.time()
    if isinstance(x, core.Tensor):
        y = y + 1
    return y, z, stamp


@declarative
def lists(x):
    out = []
    for row in x:
        out.append(row * 2)
    del out[0]
    out[0:1] = [x]
    return out


@declarative
def count(x):
    global STEP
    STEP += 1
    return fact(x, 3)


def fact(x, n):
    if n <= 1:
        return x
    return x * fact(x, n - 1)


def not_converted(data):
    for item in data:
        yield np.exp(item)  # a plain generator outside converted code: fine

"""A model the translator converts as written."""
import core
from translator import declarative


class Net(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(4, 4)

    def forward(self, x, steps=3):
        h = self.fc(x)
        outs = []
        for _ in range(steps):
            h = core.layers.relu(h) if h.mean() > 0 else h * 0.5
            outs.append(h)
        return core.layers.concat(outs, axis=0)


@declarative
def total(x):
    s = x.sum()
    while s < 10:
        s = s * 2
    return s

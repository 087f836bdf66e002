"""Building blocks of PaddlePaddle 2.x video models written with the 2.x layers: a TSM
bottleneck (``temporal_shift`` before a ConvBN stack, as PaddleVideo's TSM ResNet writes it)
and a C3D-style block (``Conv3D``, ``BatchNorm3D``, 3-D pools), each eagerly, in a static
Program and in a ``declarative`` forward with numerically checked gradients; and
``temporal_shift`` on the example of Paddle's documentation."""
import numpy as np
import pytest

import core
from core import nn, unique_name
from core.nn import functional as F
from tests.core.nn.layer_harness import check_layer

rng = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(8)
        yield


class ConvBN(nn.Layer):
    def __init__(self, cin, cout, k, stride=1, act=True):
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2,
                              bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)
        self.act = nn.ReLU() if act else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class TSMBottleneck(nn.Layer):
    def __init__(self, channels, seg_num):
        super().__init__()
        self.seg_num = seg_num
        self.conv0 = ConvBN(channels, channels // 2, 1)
        self.conv1 = ConvBN(channels // 2, channels // 2, 3)
        self.conv2 = ConvBN(channels // 2, channels, 1, act=False)

    def forward(self, x):
        shifted = F.temporal_shift(x, self.seg_num, shift_ratio=1.0 / 8)
        y = self.conv2(self.conv1(self.conv0(shifted)))
        return F.relu(x + y)


class C3DBlock(nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3D(2, 4, 3, padding=1), nn.BatchNorm3D(4), nn.ReLU(),
            nn.MaxPool3D((1, 2, 2), stride=(1, 2, 2)),
            nn.Conv3D(4, 4, (2, 3, 3), padding=(0, 1, 1)), nn.ReLU(),
            nn.AvgPool3D((1, 2, 2)))
        self.head = nn.Linear(in_features=4 * 1 * 1 * 1, out_features=3)

    def forward(self, x):
        x = self.features(x)
        return self.head(core.layers.flatten(x, 1))


def test_tsm_bottleneck_in_all_modes():
    x = rng.standard_normal((4, 8, 4, 4)).astype(np.float32)  # 2 clips of 2 segments
    layer = check_layer(lambda: TSMBottleneck(8, seg_num=2), [x],
                        grad_tol={"eps": 1e-3, "rtol": 5e-2, "atol": 1e-2, "max_points": 4})
    assert "conv0.bn._mean" in layer.state_dict() and "conv0.conv.bias" not in \
        layer.state_dict()


def test_c3d_block_in_all_modes():
    x = rng.standard_normal((2, 2, 2, 4, 4)).astype(np.float32)
    check_layer(C3DBlock, [x], grad_tol={"eps": 1e-3, "rtol": 5e-2, "atol": 1e-2,
                                         "max_points": 4})


def test_temporal_shift_documentation_example():
    x = rng.standard_normal((6, 4, 2, 2)).astype(np.float32)
    out = F.temporal_shift(x=core.to_tensor(x), seg_num=2, shift_ratio=0.2).numpy()
    # Paddle's steps: pad the T axis by one on each side, then take the first int(C * r)
    # channels from t - 1, the next up to int(2 * C * r) from t + 1, the rest from t
    v = x.reshape(3, 2, 4, 2, 2)
    pad = np.pad(v, ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0)))
    c1, c2 = int(4 * 0.2), int(4 * 2 * 0.2)
    want = np.concatenate([pad[:, :2, :c1], pad[:, 2:, c1:c2], pad[:, 1:3, c2:]], axis=2)
    np.testing.assert_allclose(out, want.reshape(x.shape))

"""``dy2static.nn`` (``paddle.nn``) takes PaddlePaddle 2.x's positional order and defaults where
a 1.8 and a 2.x constructor share a name (``Conv2D``, ``Linear``, ``Embedding``,
``LayerNorm``, ``Dropout``), while ``core.nn`` keeps the 1.8 ones; the state dict keys are
Paddle 2.x's, the classes are subclasses of the core ones, and a ``declarative`` forward gives
the eager values. Also the layers whose order is 2.x's in both (``Conv1D``, ``Conv3D``, the
transposed convolutions, ``BatchNorm``, ``BatchNorm1D/2D/3D``)."""
import numpy as np
import pytest

import core
import dy2static as paddle
import dy2static.nn.functional as F
from core import unique_name
from translator import declarative

nn = paddle.nn
R = np.random.default_rng(12)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(4)
        yield


def _t(*shape):
    return core.to_tensor(R.standard_normal(shape).astype("float32"))


def _keys(layer):
    return list(layer.state_dict())


def test_conv2d_positional_order_is_2x():
    conv = nn.Conv2D(3, 8, 3, 2, 1, 1, 1, "reflect", None, False, "NHWC")
    assert isinstance(conv, core.nn.Conv2D)
    assert conv._stride == [2, 2] and conv._padding_mode == "reflect"
    assert conv.bias is None and conv._data_format == "NHWC"
    assert conv.weight.shape == [8, 3, 3, 3] and _keys(conv) == ["weight"]
    ref = core.nn.Conv2D(in_channels=3, out_channels=8, kernel_size=3, stride=2, padding=1,
                         padding_mode="reflect", bias_attr=False, data_format="NHWC")
    ref.set_dict(conv.state_dict())
    x = _t(2, 6, 6, 3)
    np.testing.assert_allclose(conv(x).numpy(), ref(x).numpy(), rtol=1e-6)
    grouped = nn.Conv2D(4, 8, 3, 1, 0, 1, 2)
    assert grouped.weight.shape == [8, 2, 3, 3] and _keys(grouped) == ["weight", "bias"]


def test_core_conv2d_keeps_the_1_8_positional_order():
    # 1.8: (num_channels, num_filters, filter_size, stride, padding, dilation, groups,
    #       param_attr, bias_attr, use_cudnn, act)
    conv = core.nn.Conv2D(3, 8, 3, 1, 0, 1, 1, None, False, True, "relu")
    assert conv.bias is None and conv._act == "relu"
    with pytest.raises(TypeError):
        nn.Conv2D(3, 8, 3, 1, 0, 1, 1, "zeros", None, None, "NCHW", None, "relu")


def test_linear_positional_order_is_2x():
    fc = nn.Linear(4, 2, None, False, "fc")     # name, where 1.8 has act
    assert isinstance(fc, core.nn.Linear) and fc.bias is None and fc._act is None
    assert fc.weight.shape == [4, 2] and _keys(fc) == ["weight"]
    assert core.nn.Linear(4, 2, None, None, "relu")._act == "relu"   # 1.8: act
    with pytest.raises(TypeError):
        nn.Linear(4, 2, act="relu")


def test_embedding_positional_order_is_2x():
    emb = nn.Embedding(10, 4, 0, True, None, "emb")
    assert isinstance(emb, core.nn.Embedding)
    assert emb._padding_idx == 0 and emb._is_sparse and emb.weight.shape == [10, 4]
    assert _keys(emb) == ["weight"]
    out = emb(core.to_tensor(np.array([[0, 3]], "int64"))).numpy()
    np.testing.assert_array_equal(out[0, 0], np.zeros(4))
    with pytest.raises(TypeError):
        nn.Embedding(size=[10, 4])


def test_layer_norm_positional_order_is_2x():
    ln = nn.LayerNorm(4, 1e-3, None, False)
    assert isinstance(ln, core.nn.LayerNorm)
    assert ln._epsilon == 1e-3 and ln.bias is None and _keys(ln) == ["weight"]
    assert _keys(nn.LayerNorm([2, 4])) == ["weight", "bias"]


def test_batch_norms_take_the_2x_order_and_keys():
    bn = nn.BatchNorm2D(3, 0.8, 1e-3, None, None, "NHWC", True)
    assert bn._momentum == 0.8 and bn._epsilon == 1e-3 and bn._data_format == "NHWC"
    assert bn._use_global_stats
    assert _keys(bn) == ["weight", "bias", "_mean", "_variance"]
    fluid = nn.BatchNorm(3, "relu", False, 0.7, 1e-4)     # paddle.nn.BatchNorm is fluid's
    assert fluid._act == "relu" and fluid._momentum == 0.7 and fluid._epsilon == 1e-4
    assert _keys(fluid) == ["weight", "bias", "_mean", "_variance"]
    assert _keys(nn.BatchNorm1D(3)) == _keys(nn.BatchNorm3D(3)) == _keys(fluid)


def test_other_convolutions_take_the_2x_order():
    c1 = nn.Conv1D(2, 4, 3, 2, 1, 1, 2, "zeros", None, False, "NLC")
    assert c1._stride == [2] and c1._groups == 2 and c1.bias is None
    assert c1._data_format == "NLC" and c1.weight.shape == [4, 1, 3]
    c3 = nn.Conv3D(2, 4, 3, 1, 0, 2)
    assert c3._dilation == [2, 2, 2] and _keys(c3) == ["weight", "bias"]
    t2 = nn.Conv2DTranspose(4, 2, 3, 2, 1, 1, 1, 1, None, False, "NCHW")
    assert t2._stride == [2, 2] and t2._output_padding == [1, 1] and t2.bias is None
    assert t2.weight.shape == [4, 2, 3, 3]
    assert t2(_t(1, 4, 5, 5)).shape == [1, 2, 10, 10]


def test_dropout_defaults_to_upscale_in_train():
    p = 0.4
    drop = nn.Dropout(p)
    assert isinstance(drop, core.nn.Dropout) and drop._mode == "upscale_in_train"
    assert _keys(drop) == _keys(core.nn.Dropout(p)) == []
    x = np.abs(R.standard_normal((50, 40))).astype("float32") + 0.5
    out = drop(core.to_tensor(x)).numpy()
    kept = out != 0
    assert 0.4 < kept.mean() < 0.8
    np.testing.assert_allclose(out[kept], x[kept] / (1 - p), rtol=1e-6)
    drop.eval()
    np.testing.assert_array_equal(drop(core.to_tensor(x)).numpy(), x)
    down = nn.Dropout(p, None, "downscale_in_infer")
    assert down._mode == "downgrade_in_infer"
    with pytest.raises(ValueError, match="'axis'"):
        nn.Dropout(0.5, 1)


def test_core_dropout_keeps_fluids_default():
    p, x = 0.4, np.ones((30, 30), "float32")
    drop = core.nn.Dropout(p)
    assert drop._mode == "downgrade_in_infer"
    out = drop(core.to_tensor(x)).numpy()
    assert set(np.unique(out)) <= {0.0, 1.0}
    drop.eval()
    np.testing.assert_allclose(drop(core.to_tensor(x)).numpy(), x * (1 - p), rtol=1e-6)


def test_functional_dropout_defaults():
    p, x = 0.25, np.ones((40, 40), "float32")
    two = F.dropout(core.to_tensor(x), p).numpy()          # 2.x: upscale_in_train
    assert (two == 0).any()
    np.testing.assert_allclose(two[two != 0], 1 / (1 - p), rtol=1e-6)
    np.testing.assert_array_equal(F.dropout(core.to_tensor(x), p, training=False).numpy(), x)
    fluid = core.layers.dropout(core.to_tensor(x), p).numpy()   # fluid: downgrade_in_infer
    assert set(np.unique(fluid)) <= {0.0, 1.0}
    np.testing.assert_allclose(core.layers.dropout(core.to_tensor(x), p, is_test=True).numpy(),
                               x * (1 - p), rtol=1e-6)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 3, 0)
        self.conv = nn.Conv2D(3, 4, 3, 1, 1, 1, 1, "zeros", None, None, "NCHW")
        self.bn = nn.BatchNorm2D(4)
        self.drop = nn.Dropout(0.5)
        self.ln = nn.LayerNorm(16, 1e-5, None, None)
        self.fc = nn.Linear(16, 2, None, None, "head")

    def forward(self, ids):
        x = self.emb(ids)                                  # [N, 16, 3]
        x = paddle.reshape(paddle.transpose(x, [0, 2, 1]), [-1, 3, 4, 4])
        x = self.drop(self.bn(self.conv(x)))
        x = paddle.mean(x, axis=1)
        return self.fc(self.ln(paddle.reshape(x, [-1, 16])))


def test_a_2x_model_declarative_equals_eager():
    net = Net()
    assert _keys(net) == ["emb.weight", "conv.weight", "conv.bias", "bn.weight", "bn.bias",
                          "bn._mean", "bn._variance", "ln.weight", "ln.bias", "fc.weight",
                          "fc.bias"]
    net.eval()
    ids = core.to_tensor(R.integers(0, 10, (2, 16)).astype("int64"))
    want = net(ids).numpy()
    got = declarative(net.forward, full_graph=True)(ids).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

"""PaddlePaddle 2.x layers in ``core.nn``: signatures and defaults as Paddle documents them,
parameter names and shapes (so state dicts carry over), values against numpy, and every
layer eagerly, in a static Program and in a ``declarative`` forward, with gradients checked
numerically (see ``layer_harness``)."""
import inspect

import numpy as np
import pytest

import core
from core import nn, unique_name
from core.nn import functional as F
from tests.core.nn.layer_harness import check_layer

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(3)
        yield


# -- numpy references ------------------------------------------------------------------------
def conv2d_ref(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """NCHW convolution; ``pads`` = (top, bottom, left, right)."""
    t, bt, lf, r = pads
    x = np.pad(x, ((0, 0), (0, 0), (t, bt), (lf, r)))
    n, _, h, wd = x.shape
    m, cg, kh, kw = w.shape
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh, ow = (h - eh) // stride[0] + 1, (wd - ew) // stride[1] + 1
    out = np.zeros((n, m, oh, ow), np.float64)
    mg = m // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * stride[0]:i * stride[0] + eh:dilation[0],
                           j * stride[1]:j * stride[1] + ew:dilation[1]]
                out[:, g * mg:(g + 1) * mg, i, j] = np.einsum(
                    "nchw,mchw->nm", patch, w[g * mg:(g + 1) * mg])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def pool2d_ref(x, k, s, pads=(0, 0, 0, 0), kind="max", exclusive=True):
    t, bt, lf, r = pads
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (t, bt), (lf, r)), constant_values=fill)
    ones = np.pad(np.ones(x.shape[2:]), ((t, bt), (lf, r)))
    oh, ow = (xp.shape[2] - k[0]) // s[0] + 1, (xp.shape[3] - k[1]) // s[1] + 1
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cnt = ones[i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]].sum() \
                    if exclusive else k[0] * k[1]
                out[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return out


def adaptive_ref(x, out_hw, kind):
    h, w = x.shape[2:]
    oh, ow = out_hw
    out = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, h1 = i * h // oh, -(-(i + 1) * h // oh)
            w0, w1 = j * w // ow, -(-(j + 1) * w // ow)
            win = x[:, :, h0:h1, w0:w1]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.mean(axis=(2, 3))
    return out


def _params(layer):
    return {k: v.numpy() for k, v in layer.state_dict().items()}


# -- signatures ------------------------------------------------------------------------------
PADDLE_SIGNATURES = {  # PaddlePaddle 2.x python/paddle/nn/layer/*.py
    nn.Conv1D: "in_channels out_channels kernel_size stride=1 padding=0 dilation=1 groups=1 "
               "padding_mode='zeros' weight_attr=None bias_attr=None data_format='NCL'",
    nn.MaxPool2D: "kernel_size stride=None padding=0 return_mask=False ceil_mode=False "
                  "data_format='NCHW'",
    nn.AvgPool2D: "kernel_size stride=None padding=0 ceil_mode=False exclusive=True "
                  "divisor_override=None data_format='NCHW'",
    nn.MaxPool1D: "kernel_size stride=None padding=0 return_mask=False ceil_mode=False",
    nn.AvgPool1D: "kernel_size stride=None padding=0 exclusive=True ceil_mode=False",
    nn.AdaptiveAvgPool2D: "output_size data_format='NCHW'",
    nn.AdaptiveMaxPool2D: "output_size return_mask=False",
    nn.BatchNorm2D: "num_features momentum=0.9 epsilon=1e-05 weight_attr=None bias_attr=None",
    nn.CrossEntropyLoss: "weight=None ignore_index=-100 reduction='mean' soft_label=False "
                         "axis=-1 use_softmax=True",
    nn.NLLLoss: "weight=None ignore_index=-100 reduction='mean'",
    nn.BCEWithLogitsLoss: "weight=None reduction='mean' pos_weight=None",
    nn.SmoothL1Loss: "reduction='mean' delta=1.0",
    nn.KLDivLoss: "reduction='mean'",
    nn.PReLU: "num_parameters=1 init=0.25 weight_attr=None data_format='NCHW'",
    nn.Pad2D: "padding mode='constant' value=0.0 data_format=None",
}


@pytest.mark.parametrize("cls", list(PADDLE_SIGNATURES), ids=lambda c: c.__name__)
def test_2x_layers_have_paddles_leading_parameters(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    want = PADDLE_SIGNATURES[cls].split()
    got = [p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
           for p in params[:len(want)]]
    assert got == want


# -- the colliding names: one class, both spellings --------------------------------------------
def test_conv2d_both_spellings_build_the_same_layer():
    x = rand(2, 3, 6, 6)
    fluid = nn.Conv2D(num_channels=3, num_filters=4, filter_size=3, padding=1)
    two = nn.Conv2D(in_channels=3, out_channels=4, kernel_size=3, padding=1)
    pos = nn.Conv2D(3, 4, 3, 1, 1)
    for layer in (fluid, two, pos):
        assert list(layer.state_dict()) == ["weight", "bias"]
        assert layer.weight.shape == [4, 3, 3, 3] and layer.bias.shape == [4]
    two.set_dict(_params(fluid))
    np.testing.assert_allclose(two(core.to_tensor(x)).numpy(), fluid(core.to_tensor(x)).numpy(),
                               rtol=1e-6)
    with pytest.raises(TypeError, match=r"Conv2D.*'in_channels' and 'num_channels'"):
        nn.Conv2D(3, 4, 3, in_channels=3, num_channels=3)
    assert list(inspect.signature(nn.Conv2D.__init__).parameters)[1:4] == \
        ["num_channels", "num_filters", "filter_size"]


def test_linear_both_spellings():
    a = nn.Linear(input_dim=4, output_dim=3, param_attr=core.ParamAttr(name="fc_w"))
    b = nn.Linear(in_features=4, out_features=3, weight_attr=core.ParamAttr(name="fc2_w"),
                  bias_attr=False)
    assert a.weight.shape == b.weight.shape == [4, 3]
    assert a.weight.name == "fc_w" and b.weight.name == "fc2_w" and b.bias is None
    x = rand(2, 4)
    np.testing.assert_allclose(b(core.to_tensor(x)).numpy(), x @ b.weight.numpy(), rtol=1e-5)
    with pytest.raises(TypeError, match=r"Linear.*'weight_attr' and 'param_attr'"):
        nn.Linear(4, 3, param_attr=None, weight_attr=None)


def test_embedding_both_spellings():
    fluid = nn.Embedding(size=[10, 4], padding_idx=0)
    two = nn.Embedding(10, 4, padding_idx=0)
    kw = nn.Embedding(num_embeddings=10, embedding_dim=4, sparse=True)
    assert fluid.weight.shape == two.weight.shape == kw.weight.shape == [10, 4]
    ids = np.array([[0, 3], [9, 0]], np.int64)
    out = two(core.to_tensor(ids)).numpy()
    want = two.weight.numpy()[ids]
    want[ids == 0] = 0
    np.testing.assert_allclose(out, want)
    with pytest.raises(TypeError, match=r"Embedding\(\).*embedding_dim"):
        nn.Embedding(num_embeddings=10)
    with pytest.raises(ValueError, match="'padding_idx'"):
        nn.Embedding(10, 4, padding_idx=10)


def test_dropout_both_spellings():
    x = np.ones((100, 40), np.float32)
    fluid = nn.Dropout(0.25)  # fluid default: downgrade_in_infer
    two = nn.Dropout(p=0.25, mode="upscale_in_train")
    down = nn.Dropout(p=0.25, mode="downscale_in_infer")
    vals = np.unique(two(core.to_tensor(x)).numpy())
    assert vals[0] == 0 and vals[-1] == pytest.approx(1 / 0.75)
    for layer in (fluid, two, down):
        layer.eval()
    np.testing.assert_allclose(fluid(core.to_tensor(x)).numpy(), x * 0.75)
    np.testing.assert_allclose(down(core.to_tensor(x)).numpy(), x * 0.75)
    np.testing.assert_array_equal(two(core.to_tensor(x)).numpy(), x)
    with pytest.raises(TypeError, match="'mode' and 'dropout_implementation'"):
        nn.Dropout(0.5, dropout_implementation="upscale_in_train", mode="upscale_in_train")
    with pytest.raises(ValueError, match=r"Dropout.*'mode'"):
        nn.Dropout(0.5, mode="scale")


def test_layer_norm_both_spellings():
    x = rand(2, 3, 5)
    a = nn.LayerNorm(5, 1e-3)  # 2.x: the second argument is epsilon
    b = nn.LayerNorm([5], epsilon=1e-3, weight_attr=False, bias_attr=False)
    c = nn.LayerNorm(5, scale=False, shift=False, epsilon=1e-3)  # fluid
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    for layer in (a, b, c):
        np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, atol=1e-5)
    assert a.weight.shape == [5] and b.weight is None and c.weight is None


# -- convolutions --------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,pads", [
    (dict(padding=1), (1, 1, 1, 1)),
    (dict(padding=[1, 0, 2, 1], stride=2), (1, 0, 2, 1)),
    (dict(padding=[[0, 0], [0, 0], [1, 1], [0, 2]], dilation=2), (1, 1, 0, 2)),
    (dict(padding="SAME", stride=2), (1, 1, 1, 1)),
    (dict(padding="SAME", stride=2, kernel_size=2), (0, 1, 0, 1)),
    (dict(padding="VALID", groups=3, out_channels=6), (0, 0, 0, 0)),
])
def test_conv2d_2x_padding_forms(kwargs, pads):
    kwargs = dict(dict(in_channels=3, out_channels=4, kernel_size=3), **kwargs)
    x = rand(2, 3, 7, 7)
    layer = nn.Conv2D(**kwargs)
    w, b = layer.weight.numpy(), layer.bias.numpy()
    s = kwargs.get("stride", 1)
    d = kwargs.get("dilation", 1)
    want = conv2d_ref(x, w, b, (s, s), pads, (d, d), kwargs.get("groups", 1))
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)


def test_conv2d_2x_all_modes_with_gradients():
    x = rand(2, 3, 5, 5)
    layer = check_layer(lambda: nn.Conv2D(3, 4, kernel_size=3, stride=1, padding="SAME"),
                        [x])
    assert layer.weight.shape == [4, 3, 3, 3]


def test_conv2d_nhwc_equals_nchw():
    x = rand(2, 3, 6, 6)
    nchw = nn.Conv2D(3, 4, 3, padding=1)
    nhwc = nn.Conv2D(3, 4, 3, padding=1, data_format="NHWC")
    nhwc.set_dict(_params(nchw))
    got = nhwc(core.to_tensor(x.transpose(0, 2, 3, 1))).numpy()
    np.testing.assert_allclose(got.transpose(0, 3, 1, 2), nchw(core.to_tensor(x)).numpy(),
                               rtol=1e-5, atol=1e-5)
    check_layer(lambda: nn.Conv2D(3, 2, 3, padding=1, data_format="NHWC"),
                [x.transpose(0, 2, 3, 1).copy()])


def test_conv1d_values_shapes_and_modes():
    x = rand(2, 3, 9)
    layer = check_layer(lambda: nn.Conv1D(3, 4, 3, stride=2, padding=1), [x])
    assert layer.weight.shape == [4, 3, 3] and layer.bias.shape == [4]
    w, b = layer.weight.numpy(), layer.bias.numpy()
    want = conv2d_ref(x[:, :, None], w[:, :, None], b, (1, 2), (0, 0, 1, 1))[:, :, 0]
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)
    nlc = nn.Conv1D(3, 4, 3, stride=2, padding=1, data_format="NLC")
    nlc.set_dict(_params(layer))
    got = nlc(core.to_tensor(x.transpose(0, 2, 1).copy())).numpy()
    np.testing.assert_allclose(got.transpose(0, 2, 1), want, rtol=1e-4, atol=1e-5)
    std = np.sqrt(2.0 / (3 * 3))
    big = nn.Conv1D(3, 64, 3).weight.numpy()
    assert abs(big.std() - std) < 0.15 * std


def test_conv_layer_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"Conv1D\(\): argument 'groups'=2 must divide"):
        nn.Conv1D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match=r"Conv2D\(\): argument 'padding_mode' must be one of"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match=r"Conv2D\(\): argument 'padding' must be 'SAME' or"):
        nn.Conv2D(3, 4, 3, padding="FULL")
    with pytest.raises(ValueError, match=r"Conv1D.*expected an NCL input with 3 channels"):
        nn.Conv1D(3, 4, 3)(core.to_tensor(rand(2, 4, 9)))


# -- pooling -------------------------------------------------------------------------------
@pytest.mark.parametrize("make,ref", [
    (lambda: nn.MaxPool2D(2), lambda x: pool2d_ref(x, (2, 2), (2, 2))),
    (lambda: nn.MaxPool2D(3, stride=2, padding=1),
     lambda x: pool2d_ref(x, (3, 3), (2, 2), (1, 1, 1, 1))),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1),
     lambda x: pool2d_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg")),
    (lambda: nn.AvgPool2D(3, stride=2, padding=1, exclusive=False),
     lambda x: pool2d_ref(x, (3, 3), (2, 2), (1, 1, 1, 1), "avg", exclusive=False)),
    (lambda: nn.AvgPool2D(2, divisor_override=3),
     lambda x: pool2d_ref(x, (2, 2), (2, 2), kind="avg") * 4 / 3),
    (lambda: nn.AdaptiveAvgPool2D((2, 3)), lambda x: adaptive_ref(x, (2, 3), "avg")),
    (lambda: nn.AdaptiveAvgPool2D(1), lambda x: adaptive_ref(x, (1, 1), "avg")),
    (lambda: nn.AdaptiveMaxPool2D(3), lambda x: adaptive_ref(x, (3, 3), "max")),
], ids=["max2", "max3s2p1", "avg_excl", "avg_incl", "divisor", "adavg23", "adavg1", "admax3"])
def test_2d_pools_against_numpy_in_all_modes(make, ref):
    x = rand(2, 3, 6, 5)
    check_layer(make, [x], ref(x), grad_tol={"eps": 1e-3})


def test_1d_pools_against_numpy_in_all_modes():
    x = rand(2, 3, 8)
    x4 = x[:, :, None]
    check_layer(lambda: nn.MaxPool1D(3, stride=2, padding=1), [x],
                pool2d_ref(x4, (1, 3), (1, 2), (0, 0, 1, 1))[:, :, 0], grad_tol={"eps": 1e-3})
    check_layer(lambda: nn.AvgPool1D(2), [x], pool2d_ref(x4, (1, 2), (1, 2), kind="avg")[:, :, 0])
    check_layer(lambda: nn.AdaptiveAvgPool1D(3), [x], adaptive_ref(x4, (1, 3), "avg")[:, :, 0])
    check_layer(lambda: nn.AdaptiveMaxPool1D(3), [x], adaptive_ref(x4, (1, 3), "max")[:, :, 0],
                grad_tol={"eps": 1e-3})


def test_pool_same_padding_and_errors():
    x = rand(1, 2, 5, 5)
    out = nn.MaxPool2D(2, stride=2, padding="SAME")(core.to_tensor(x)).numpy()
    np.testing.assert_allclose(out, pool2d_ref(x, (2, 2), (2, 2), (0, 1, 0, 1)))
    with pytest.raises(ValueError, match=r"MaxPool2D\(\): return_mask=True"):
        nn.MaxPool2D(2, return_mask=True)
    with pytest.raises(ValueError, match=r"MaxPool2D\(\): argument 'kernel_size' must be >= 1"):
        nn.MaxPool2D(0)
    with pytest.raises(ValueError, match=r"max_pool2d\(\): argument 'x' must be 4-D"):
        nn.MaxPool2D(2)(core.to_tensor(rand(2, 3, 4)))


# -- normalisation --------------------------------------------------------------------------
@pytest.mark.parametrize("cls,shape,fmt", [
    (nn.BatchNorm1D, (4, 3), "NC"), (nn.BatchNorm1D, (4, 3, 5), "NCL"),
    (nn.BatchNorm2D, (4, 3, 2, 2), "NCHW"), (nn.BatchNorm2D, (4, 2, 2, 3), "NHWC"),
    (nn.BatchNorm3D, (2, 3, 2, 2, 2), "NCDHW"),
])
def test_batch_norm_nd_train_and_eval(cls, shape, fmt):
    x = rand(*shape) * 2 + 1
    axis = len(shape) - 1 if fmt[-1] == "C" and fmt != "NC" else 1
    red = tuple(i for i in range(len(shape)) if i != axis)
    bshape = [1] * len(shape)
    bshape[axis] = 3
    mean, var = x.mean(red), x.var(red)
    want = (x - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + 1e-5)
    layer = check_layer(lambda: cls(3, data_format=None if fmt in ("NC", "NCL") else fmt)
                        if fmt != "NC" else cls(3), [x], want, atol=1e-4,
                        grad_tol={"eps": 1e-2, "rtol": 5e-2, "atol": 1e-2})
    assert list(layer.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert all(v.shape == [3] for v in layer.state_dict().values())
    bn = cls(3, momentum=0.5, data_format=fmt if fmt != "NC" else "NCL")
    bn(core.to_tensor(x))
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * mean, rtol=1e-5)
    bn.eval()
    got = bn(core.to_tensor(x)).numpy()
    run_var = 0.5 + 0.5 * x.var(red, ddof=0)
    np.testing.assert_allclose(
        got, (x - (0.5 * mean).reshape(bshape)) / np.sqrt(
            bn._variance.numpy().reshape(bshape) + 1e-5), atol=1e-4)
    assert bn._variance.numpy() == pytest.approx(run_var, rel=0.05)


def test_batch_norm_nd_checks_the_rank_and_format():
    with pytest.raises(ValueError, match=r"BatchNorm2D.*expected a 4-D input"):
        nn.BatchNorm2D(3)(core.to_tensor(rand(2, 3, 4)))
    with pytest.raises(ValueError, match=r"BatchNorm2D\(\): argument 'data_format'"):
        nn.BatchNorm2D(3, data_format="NCL")
    frozen = nn.BatchNorm2D(3, weight_attr=False, bias_attr=False)
    assert frozen.weight.stop_gradient and frozen.bias.stop_gradient
    np.testing.assert_array_equal(frozen.weight.numpy(), np.ones(3, np.float32))


def test_layer_norm_2x_all_modes():
    x = rand(2, 3, 4)
    want = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
    check_layer(lambda: nn.LayerNorm([3, 4]), [x], want, atol=1e-4,
                grad_tol={"rtol": 5e-2, "atol": 1e-2})


# -- common layers --------------------------------------------------------------------------
def test_linear_2x_all_modes():
    x = rand(3, 4)
    layer = check_layer(lambda: nn.Linear(in_features=4, out_features=2), [x])
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(),
                               x @ layer.weight.numpy() + layer.bias.numpy(), rtol=1e-5)


def test_embedding_2x_all_modes():
    ids = np.array([[1, 2], [0, 3]], np.int64)
    layer = check_layer(lambda: nn.Embedding(5, 3, padding_idx=0), [ids])
    want = layer.weight.numpy()[ids]
    want[ids == 0] = 0
    np.testing.assert_allclose(layer(core.to_tensor(ids)).numpy(), want)


@pytest.mark.parametrize("make,ref", [
    (lambda: nn.Pad2D([1, 0, 2, 1]), lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)))),
    (lambda: nn.Pad2D(1, value=2.0),
     lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=2.0)),
    (lambda: nn.Pad2D([1, 2, 0, 1], data_format="NHWC"),
     lambda x: np.pad(x, ((0, 0), (0, 1), (1, 2), (0, 0)))),
    (lambda: nn.Flatten(), lambda x: x.reshape(2, -1)),
    (lambda: nn.Flatten(1, 2), lambda x: x.reshape(2, 12, 3)),
    (lambda: nn.Identity(3, foo=1), lambda x: x),
], ids=["pad2d", "pad2d_value", "pad2d_nhwc", "flatten", "flatten12", "identity"])
def test_shape_layers_in_all_modes(make, ref):
    x = rand(2, 3, 4, 3)
    check_layer(make, [x], ref(x))


def test_pad_layers_check_arguments():
    with pytest.raises(ValueError, match=r"Pad2D\(\): argument 'padding' must be an int or 4"):
        nn.Pad2D([1, 2])
    with pytest.raises(ValueError, match=r"Pad1D\(\): argument 'data_format' must be"):
        nn.Pad1D(1, data_format="NCHW")
    out = nn.Pad1D([2, 1])(core.to_tensor(rand(1, 2, 3)))
    assert out.shape == [1, 2, 6]


# -- containers -----------------------------------------------------------------------------
def test_layer_dict():
    d = nn.LayerDict({"fc": nn.Linear(2, 3), "act": nn.ReLU()})
    d["out"] = nn.Linear(3, 1)
    assert list(d) == ["fc", "act", "out"] and len(d) == 3 and "act" in d
    assert [k for k, _ in d.named_parameters()] == ["fc.weight", "fc.bias", "out.weight",
                                                    "out.bias"]
    x = core.to_tensor(rand(4, 2))
    y = x
    for layer in d.values():
        y = layer(y)
    assert y.shape == [4, 1]
    d.update([("extra", nn.Tanh())])
    assert d.pop("extra").__class__ is nn.Tanh and list(d.keys()) == ["fc", "act", "out"]
    del d["act"]
    assert list(d) == ["fc", "out"]
    with pytest.raises(TypeError, match=r"LayerDict.*'bad' must be a Layer"):
        d["bad"] = 3
    d.clear()
    assert len(d) == 0 and list(d.parameters()) == []


def test_parameter_list_in_a_2x_model():
    class Model(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList([self.create_parameter([2, 2]) for _ in range(2)])

        def forward(self, x):
            for w in self.ws:
                x = core.layers.matmul(x, w)
            return x

    check_layer(Model, [rand(3, 2)])


# -- a 2.x model: converted forward equals eager, state dict carries over ----------------------
class LeNet(nn.Layer):
    """PaddlePaddle 2.x's ``paddle.vision.models.LeNet`` as its tutorials write it."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84),
                                nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        x = core.layers.flatten(x, 1)
        return self.fc(x)


def test_lenet_2x_trains_eagerly_and_converted():
    x = rand(2, 1, 28, 28)
    label = np.array([3, 7], np.int64)
    model = LeNet()
    assert [k for k in model.state_dict()] == [
        "features.0.weight", "features.0.bias", "features.3.weight", "features.3.bias",
        "fc.0.weight", "fc.0.bias", "fc.1.weight", "fc.1.bias", "fc.2.weight", "fc.2.bias"]
    assert model.state_dict()["fc.0.weight"].shape == [400, 120]
    loss_fn = nn.CrossEntropyLoss()
    eager = loss_fn(model(core.to_tensor(x)), core.to_tensor(label))
    eager.backward()
    grads = [p.gradient() for p in model.parameters()]
    model.clear_gradients()
    from translator import declarative

    fwd = declarative(model.forward, full_graph=True)
    conv = loss_fn(fwd(core.to_tensor(x)), core.to_tensor(label))
    np.testing.assert_allclose(conv.numpy(), eager.numpy(), rtol=1e-5)
    conv.backward()
    for p, g in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.gradient(), g, rtol=1e-4, atol=1e-6)
    opt = core.optimizer.Adam(learning_rate=1e-3, parameter_list=model.parameters())
    opt.minimize(conv)
    assert F.softmax(fwd(core.to_tensor(x))).shape == [2, 10]

"""PaddlePaddle 2.x layers for GAN, video and 3-D models: ``Conv3D``, the transposed
convolutions, ``padding_mode``, 3-D pooling, ``GroupNorm`` / ``InstanceNorm*``, the
``Upsample`` family and the padding layers in every mode. Values against numpy; eager, static
and declarative with numerically checked gradients (``layer_harness``)."""
import numpy as np
import pytest

import core
from core import nn, unique_name
from core.nn import functional as F
from tests.core.nn.layer_harness import check_layer

rng = np.random.default_rng(1)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(4)
        yield


def conv_nd_ref(x, w, b, stride, pads, dilation=None, groups=1):
    """N-d convolution of channels-first ``x``; ``pads`` is ``[(lo, hi), ...]``."""
    n = x.ndim - 2
    dilation = dilation or [1] * n
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    m, cg = w.shape[:2]
    k = w.shape[2:]
    span = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    out_sp = [(s - e) // st + 1 for s, e, st in zip(x.shape[2:], span, stride)]
    out = np.zeros((x.shape[0], m) + tuple(out_sp))
    mg = m // groups
    for idx in np.ndindex(*out_sp):
        sl = tuple(slice(i * st, i * st + e, d) for i, st, e, d in zip(idx, stride, span, dilation))
        for g in range(groups):
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + sl]
            out[(slice(None), slice(g * mg, (g + 1) * mg)) + idx] = np.tensordot(
                patch, w[g * mg:(g + 1) * mg], axes=(list(range(1, n + 2)),
                                                     list(range(1, n + 2))))
    return out + b.reshape((1, -1) + (1,) * n)


def conv_transpose_ref(x, w, b, stride, pads, output_padding=None, groups=1):
    """N-d transposed convolution (the scatter form) of channels-first ``x``."""
    n = x.ndim - 2
    cin, mg = w.shape[:2]
    k = w.shape[2:]
    output_padding = output_padding or [0] * n
    full = [(s - 1) * st + kk + op for s, st, kk, op in zip(x.shape[2:], stride, k,
                                                            output_padding)]
    out = np.zeros((x.shape[0], mg * groups) + tuple(full))
    cg = cin // groups
    for idx in np.ndindex(*x.shape[2:]):
        for g in range(groups):
            v = x[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]  # [N, cg]
            contrib = np.tensordot(v, w[g * cg:(g + 1) * cg], axes=([1], [0]))  # [N, mg, *k]
            sl = tuple(slice(i * st, i * st + kk) for i, st, kk in zip(idx, stride, k))
            out[(slice(None), slice(g * mg, (g + 1) * mg)) + sl] += contrib
    crop = tuple(slice(lo, f - hi) for (lo, hi), f in zip(pads, full))
    return out[(slice(None), slice(None)) + crop] + b.reshape((1, -1) + (1,) * n)


def pool3d_ref(x, k, s, kind):
    out_sp = [(d - kk) // st + 1 for d, kk, st in zip(x.shape[2:], k, s)]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for idx in np.ndindex(*out_sp):
        win = x[(Ellipsis,) + tuple(slice(i * st, i * st + kk) for i, st, kk in zip(idx, s, k))]
        out[(Ellipsis,) + idx] = win.max(axis=(2, 3, 4)) if kind == "max" \
            else win.mean(axis=(2, 3, 4))
    return out


# -- convolutions --------------------------------------------------------------------------
def test_conv3d_values_shapes_and_modes():
    x = rand(1, 2, 4, 5, 4)
    layer = check_layer(lambda: nn.Conv3D(2, 3, (2, 3, 2), stride=(1, 2, 1), padding=1), [x],
                        grad_tol={"max_points": 6})
    assert layer.weight.shape == [3, 2, 2, 3, 2] and layer.bias.shape == [3]
    want = conv_nd_ref(x, layer.weight.numpy(), layer.bias.numpy(), (1, 2, 1), [(1, 1)] * 3)
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs,pads,opad", [
    (dict(stride=2, padding=1), [(1, 1), (1, 1)], None),
    (dict(stride=2, padding=1, output_padding=1), [(1, 1), (1, 1)], [1, 1]),
    (dict(stride=1, padding=[0, 1, 1, 0], groups=2, out_channels=4), [(0, 1), (1, 0)], None),
])
def test_conv2d_transpose_against_numpy_in_all_modes(kwargs, pads, opad):
    kwargs = dict(dict(in_channels=2, out_channels=3, kernel_size=3), **kwargs)
    x = rand(2, 2, 3, 4)
    layer = check_layer(lambda: nn.Conv2DTranspose(**kwargs), [x], grad_tol={"max_points": 8})
    w = layer.weight.numpy()
    assert list(w.shape) == [2, kwargs["out_channels"] // kwargs.get("groups", 1), 3, 3]
    s = kwargs.get("stride", 1)
    want = conv_transpose_ref(x, w, layer.bias.numpy(), (s, s), pads, opad,
                              kwargs.get("groups", 1))
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)


def test_conv_transpose_output_size_and_the_1d_3d_forms():
    x = rand(1, 2, 4, 4)
    up = nn.Conv2DTranspose(2, 3, 3, stride=2, padding=1)
    assert up(core.to_tensor(x)).shape == [1, 3, 7, 7]
    assert up(core.to_tensor(x), output_size=[8, 8]).shape == [1, 3, 8, 8]
    with pytest.raises(ValueError, match=r"conv2d_transpose\(\): argument 'output_size'"):
        up(core.to_tensor(x), output_size=[10, 10])
    x1 = rand(2, 2, 5)
    layer = check_layer(lambda: nn.Conv1DTranspose(2, 3, 3, stride=2), [x1])
    assert layer.weight.shape == [2, 3, 3]
    want = conv_transpose_ref(x1, layer.weight.numpy(), layer.bias.numpy(), (2,), [(0, 0)])
    np.testing.assert_allclose(layer(core.to_tensor(x1)).numpy(), want, rtol=1e-4, atol=1e-5)
    x3 = rand(1, 2, 2, 3, 2)
    layer = check_layer(lambda: nn.Conv3DTranspose(2, 2, 2, stride=2), [x3],
                        grad_tol={"max_points": 6})
    want = conv_transpose_ref(x3, layer.weight.numpy(), layer.bias.numpy(), (2, 2, 2),
                              [(0, 0)] * 3)
    np.testing.assert_allclose(layer(core.to_tensor(x3)).numpy(), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_padding_mode_pads_before_the_convolution(mode, np_mode):
    x = rand(1, 2, 5, 6)
    layer = check_layer(lambda: nn.Conv2D(2, 3, 3, padding=1, padding_mode=mode), [x])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode=np_mode)
    want = conv_nd_ref(xp, layer.weight.numpy(), layer.bias.numpy(), (1, 1), [(0, 0)] * 2)
    np.testing.assert_allclose(layer(core.to_tensor(x)).numpy(), want, rtol=1e-4, atol=1e-5)
    x1 = rand(2, 2, 7)
    layer = check_layer(lambda: nn.Conv1D(2, 2, 3, padding=2, padding_mode=mode), [x1])
    xp = np.pad(x1, ((0, 0), (0, 0), (2, 2)), mode=np_mode)
    want = conv_nd_ref(xp, layer.weight.numpy(), layer.bias.numpy(), (1,), [(0, 0)])
    np.testing.assert_allclose(layer(core.to_tensor(x1)).numpy(), want, rtol=1e-4, atol=1e-5)


# -- padding and resizing -------------------------------------------------------------------
@pytest.mark.parametrize("mode,np_mode", [("constant", "constant"), ("reflect", "reflect"),
                                          ("replicate", "edge"), ("circular", "wrap")])
def test_pad_layers_in_every_mode(mode, np_mode):
    x = rand(2, 2, 4, 5)
    check_layer(lambda: nn.Pad2D([1, 2, 2, 0], mode=mode), [x],
                np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 2)), mode=np_mode))
    x1 = rand(2, 3, 5)
    check_layer(lambda: nn.Pad1D([2, 1], mode=mode), [x1],
                np.pad(x1, ((0, 0), (0, 0), (2, 1)), mode=np_mode))
    x3 = rand(1, 2, 3, 3, 4)
    check_layer(lambda: nn.Pad3D([1, 0, 0, 2, 1, 1], mode=mode, data_format="NCDHW"), [x3],
                np.pad(x3, ((0, 0), (0, 0), (1, 1), (0, 2), (1, 0)), mode=np_mode))
    xl = rand(2, 5, 3)
    np.testing.assert_allclose(
        F.pad(core.to_tensor(xl), [1, 2], mode=mode, data_format="NLC").numpy(),
        np.pad(xl, ((0, 0), (1, 2), (0, 0)), mode=np_mode))


def test_pad_errors_name_the_argument():
    x = core.to_tensor(rand(1, 2, 3, 3))
    with pytest.raises(ValueError, match=r"pad\(\): argument 'mode' must be one of"):
        F.pad(x, [1, 1, 1, 1], mode="mirror")
    with pytest.raises(ValueError, match=r"pad\(\): mode='reflect' pads only the spatial axes"):
        F.pad(x, [1, 1, 0, 0, 0, 0, 0, 0], mode="reflect")
    with pytest.raises(ValueError, match=r"pad\(\): argument 'pad' must have 8 entries"):
        F.pad(x, [1, 1, 1])


def _nearest_ref(x, out):
    h, w = x.shape[2:]
    rows = (np.arange(out[0]) * (h / out[0])).astype(int)
    cols = (np.arange(out[1]) * (w / out[1])).astype(int)
    return x[:, :, rows][:, :, :, cols]


def _bilinear_ref(x, out, align_corners):
    def mat(n_in, n_out):
        m = np.zeros((n_out, n_in))
        for i in range(n_out):
            if align_corners:
                src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                src = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
            lo = min(int(np.floor(src)), n_in - 1)
            hi = min(lo + 1, n_in - 1)
            f = src - lo
            m[i, lo] += 1 - f
            m[i, hi] += f
        return m
    mh, mw = mat(x.shape[2], out[0]), mat(x.shape[3], out[1])
    return np.einsum("ih,nchw,jw->ncij", mh, x, mw)


@pytest.mark.parametrize("make,ref", [
    (lambda: nn.Upsample(scale_factor=2), lambda x: _nearest_ref(x, (8, 10))),
    (lambda: nn.UpsamplingNearest2D(size=[6, 7]), lambda x: _nearest_ref(x, (6, 7))),
    (lambda: nn.UpsamplingBilinear2D(size=[7, 9]), lambda x: _bilinear_ref(x, (7, 9), True)),
    (lambda: nn.Upsample(size=[6, 8], mode="bilinear"),
     lambda x: _bilinear_ref(x, (6, 8), False)),
], ids=["nearest_x2", "nearest_size", "bilinear_corners", "bilinear_half_pixel"])
def test_upsample_layers_against_numpy_in_all_modes(make, ref):
    x = rand(2, 2, 4, 5)
    check_layer(make, [x], ref(x), rtol=1e-4, atol=1e-5)


def test_interpolate_other_modes_and_errors():
    x = core.to_tensor(rand(1, 2, 4, 4))
    area = F.interpolate(x, size=[2, 2], mode="area").numpy()
    np.testing.assert_allclose(area, x.numpy().reshape(1, 2, 2, 2, 2, 2).mean((3, 5)),
                               rtol=1e-5)
    assert F.interpolate(x, scale_factor=1.5, mode="bicubic").shape == [1, 2, 6, 6]
    assert F.upsample(core.to_tensor(rand(1, 2, 3)), size=[6], mode="linear",
                      data_format="NCW").shape == [1, 2, 6]
    with pytest.raises(ValueError, match=r"interpolate\(\): give exactly one of"):
        F.interpolate(x)
    with pytest.raises(ValueError, match=r"interpolate\(\): mode='trilinear' needs a 5-D"):
        F.interpolate(x, size=[2, 2], mode="trilinear")
    with pytest.raises(ValueError, match=r"Upsample\(\): argument 'mode' must be one of"):
        nn.Upsample(scale_factor=2, mode="cubic")


# -- pooling and normalisation --------------------------------------------------------------
def test_3d_pools_in_all_modes():
    x = rand(1, 2, 4, 4, 6)
    check_layer(lambda: nn.MaxPool3D(2), [x], pool3d_ref(x, (2, 2, 2), (2, 2, 2), "max"),
                grad_tol={"eps": 1e-3})
    check_layer(lambda: nn.AvgPool3D((2, 2, 3), stride=(2, 2, 3)), [x],
                pool3d_ref(x, (2, 2, 3), (2, 2, 3), "avg"))


def test_group_norm_against_numpy_in_all_modes():
    x = rand(2, 6, 3, 3) * 2 + 1
    g = x.reshape(2, 3, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    layer = check_layer(lambda: nn.GroupNorm(3, 6), [x], want.reshape(x.shape), atol=1e-4,
                        grad_tol={"rtol": 5e-2, "atol": 1e-2})
    assert list(layer.state_dict()) == ["weight", "bias"] and layer.weight.shape == [6]
    with pytest.raises(ValueError, match=r"GroupNorm\(\): argument 'num_groups'=4 must divide"):
        nn.GroupNorm(4, 6)


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1D, (2, 3, 5)),
                                       (nn.InstanceNorm2D, (2, 3, 3, 4)),
                                       (nn.InstanceNorm3D, (1, 3, 2, 2, 3))])
def test_instance_norm_against_numpy_in_all_modes(cls, shape):
    x = rand(*shape) * 2 - 1
    red = tuple(range(2, len(shape)))
    want = (x - x.mean(red, keepdims=True)) / np.sqrt(x.var(red, keepdims=True) + 1e-5)
    layer = check_layer(lambda: cls(3), [x], want, atol=1e-4,
                        grad_tol={"rtol": 5e-2, "atol": 1e-2})
    assert list(layer.state_dict()) == ["scale", "bias"]  # Paddle's names
    bare = cls(3, weight_attr=False, bias_attr=False)
    assert bare.scale is None and bare.bias is None
    np.testing.assert_allclose(bare(core.to_tensor(x)).numpy(), want, atol=1e-4)


def test_temporal_shift_against_numpy():
    x = rand(4, 4, 2, 2)  # 2 clips of 2 segments
    out = F.temporal_shift(core.to_tensor(x), seg_num=2, shift_ratio=0.25).numpy()
    v = x.reshape(2, 2, 4, 2, 2)
    want = np.zeros_like(v)
    want[:, 1:, 0] = v[:, :-1, 0]  # the first quarter of the channels from the previous one
    want[:, :-1, 1] = v[:, 1:, 1]  # the second quarter from the next segment
    want[:, :, 2:] = v[:, :, 2:]
    np.testing.assert_allclose(out, want.reshape(x.shape))


# -- a CycleGAN-style generator block, converted ----------------------------------------------
class ResnetBlock(nn.Layer):
    """The residual block of CycleGAN's generator as PaddlePaddle's GAN examples write it."""

    def __init__(self, dim):
        super().__init__()
        self.block = nn.Sequential(
            nn.Pad2D([1, 1, 1, 1], mode="reflect"), nn.Conv2D(dim, dim, 3),
            nn.InstanceNorm2D(dim), nn.ReLU(),
            nn.Pad2D([1, 1, 1, 1], mode="reflect"), nn.Conv2D(dim, dim, 3),
            nn.InstanceNorm2D(dim))
        self.up = nn.Conv2DTranspose(dim, 2, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return self.up(x + self.block(x))


def test_gan_block_eager_static_and_declarative_agree():
    x = rand(1, 3, 5, 5)
    check_layer(lambda: ResnetBlock(3), [x], grad_tol={"max_points": 4, "eps": 1e-3,
                                                      "rtol": 5e-2, "atol": 1e-2})

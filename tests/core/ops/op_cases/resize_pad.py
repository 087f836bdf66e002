"""Cases for ``interpolate``, ``pad2d`` / ``pad3d``, ``temporal_shift``, ``group_norm`` and
``instance_norm``.

The interpolation reference follows Paddle's CPU kernels statement by statement (scalar index
and weight rules per output position); the padding reference is ``numpy.pad``; the temporal
shift reference is Paddle's own numpy definition (pad the time axis, take three slices).
"""
import itertools
import math

import numpy as np

from . import Case

r = np.random.default_rng(8)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _ratio(size_in, size_out, scale, align_corners):
    if size_out <= 1:
        return 0.0
    if align_corners:
        return float(np.float32(size_in - 1) / np.float32(size_out - 1))
    if scale:
        return float(np.float32(1.0 / scale))
    return float(np.float32(size_in) / np.float32(size_out))


def _cubic_weights(t):
    a = -0.75

    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _taps(method, k, size_in, ratio, align_corners, align_mode):
    """``[(input index, weight), ...]`` of output position ``k`` along one axis."""
    if method == "nearest":
        src = ratio * k + 0.5 if align_corners else ratio * k
        return [(min(int(src), size_in - 1), 1.0)]
    if method == "bicubic":
        y = ratio * k if align_corners else ratio * (k + 0.5) - 0.5
        base = math.floor(y)
        return [(min(max(base - 1 + i, 0), size_in - 1), w)
                for i, w in enumerate(_cubic_weights(y - base))]
    flag = align_mode == 0 and not align_corners
    lo = int(ratio * (k + 0.5) - 0.5) if flag else int(ratio * k)
    lo = max(lo, 0)
    hi = lo + 1 if lo + 1 < size_in - 1 else size_in - 1
    src = max(ratio * (k + 0.5) - 0.5, 0.0)
    d = src - lo if flag else ratio * k - lo
    return [(lo, 1.0 - d), (hi, d)]


def interp_ref(x, interp_method="bilinear", out_shape=(1, 1), scale=(), align_corners=True,
               align_mode=1, data_format="NCHW"):
    last = data_format[1] != "C"
    xc = np.moveaxis(x, -1, 1) if last else x
    sizes = xc.shape[2:]
    if list(sizes) == list(out_shape):
        return x.copy()
    scales = list(scale) if scale else [None] * len(sizes)
    per_axis = [[_taps(interp_method, k, s, _ratio(s, o, sc, align_corners), align_corners,
                       align_mode) for k in range(o)]
                for s, o, sc in zip(sizes, out_shape, scales)]
    out = np.zeros(xc.shape[:2] + tuple(out_shape), np.float64)
    for pos in itertools.product(*[range(o) for o in out_shape]):
        acc = 0.0
        for combo in itertools.product(*[per_axis[a][p] for a, p in enumerate(pos)]):
            idx = tuple(i for i, _ in combo)
            w = np.prod([w for _, w in combo])
            acc = acc + w * xc[(slice(None), slice(None)) + idx]
        out[(slice(None), slice(None)) + pos] = acc
    out = out.astype(x.dtype)
    return np.moveaxis(out, 1, -1) if last else out


def _interp(x, **attrs):
    return Case([x], attrs, ref=interp_ref,
                name=f"{attrs['interp_method']}-{attrs.get('data_format', 'NCHW')}-"
                     f"ac{int(attrs.get('align_corners', True))}"
                     f"am{attrs.get('align_mode', 1)}")


_NP_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
             "edge": "edge", "circular": "wrap"}


def pad_ref(x, paddings, mode="constant", pad_value=0.0, data_format="NCHW"):
    d = x.ndim - 2
    if d == 2:
        pairs = [(paddings[0], paddings[1]), (paddings[2], paddings[3])]
    else:
        pairs = [(paddings[4], paddings[5]), (paddings[2], paddings[3]),
                 (paddings[0], paddings[1])]
    widths = [(0, 0)] + (pairs + [(0, 0)] if data_format[1] != "C" else [(0, 0)] + pairs)
    kw = {"constant_values": pad_value} if mode == "constant" else {}
    return np.pad(x, widths, mode=_NP_MODES[mode], **kw)


def shift_ref(x, seg_num=1, shift_ratio=0.25, data_format="NCHW"):
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    c = x.shape[1]
    v = x.reshape((-1, seg_num) + x.shape[1:])
    padded = np.pad(v, ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0)))
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = np.concatenate([padded[:, :seg_num, :c1], padded[:, 2:seg_num + 2, c1:c2],
                          padded[:, 1:seg_num + 1, c2:]], axis=2).reshape(x.shape)
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


def group_norm_ref(x, scale, bias, epsilon=1e-5, groups=1, data_layout="NCHW"):
    last = data_layout == "NHWC"
    xc = np.moveaxis(x, -1, 1) if last else x
    n, c = xc.shape[:2]
    rows = xc.reshape(n, groups, -1).astype(np.float64)
    mean, var = rows.mean(axis=2), rows.var(axis=2)
    y = ((rows - mean[..., None]) / np.sqrt(var[..., None] + epsilon)).reshape(xc.shape)
    shape = (1, c) + (1,) * (xc.ndim - 2)
    if scale is not None:
        y = y * scale.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    y = (np.moveaxis(y, 1, -1) if last else y).astype(x.dtype)
    return y, mean.astype(x.dtype), var.astype(x.dtype)


def instance_norm_ref(x, scale, bias, epsilon=1e-5):
    y, mean, var = group_norm_ref(x, scale, bias, epsilon, groups=x.shape[1])
    return y, mean.reshape(-1), (1 / np.sqrt(var.astype(np.float64) + epsilon)).reshape(-1) \
        .astype(x.dtype)


CASES = {
    "interpolate": [
        _interp(f32(2, 2, 3, 4), interp_method="bilinear", out_shape=[5, 7]),
        _interp(f32(1, 2, 4, 5), interp_method="bilinear", out_shape=[7, 3],
                align_corners=False, align_mode=0),
        _interp(f32(1, 2, 4, 3), interp_method="bilinear", out_shape=[6, 5],
                align_corners=False, align_mode=1, data_format="NHWC"),
        _interp(f32(1, 2, 3, 4), interp_method="bilinear", out_shape=[6, 8],
                scale=[2.0, 2.0], align_corners=False, align_mode=0),
        _interp(f32(2, 2, 3, 4), interp_method="nearest", out_shape=[6, 9],
                align_corners=False),
        _interp(f32(1, 2, 5, 4), interp_method="nearest", out_shape=[3, 7]),
        _interp(f32(1, 2, 3, 4), interp_method="bicubic", out_shape=[5, 6],
                align_corners=False),
        _interp(f32(1, 2, 4, 3), interp_method="bicubic", out_shape=[7, 2]),
        _interp(f32(2, 3, 5), interp_method="linear", out_shape=[8], data_format="NCW",
                align_corners=False, align_mode=0),
        _interp(f32(1, 2, 3, 2, 3), interp_method="trilinear", out_shape=[4, 3, 5],
                data_format="NCDHW", align_corners=False, align_mode=0),
        _interp(f32(1, 3, 2, 3, 2), interp_method="nearest", out_shape=[4, 3, 5],
                data_format="NDHWC", align_corners=False),
        _interp(f32(1, 2, 3, 4), interp_method="bilinear", out_shape=[3, 4]),
    ],
    "pad2d": [
        Case([f32(2, 2, 3, 4)], {"paddings": [1, 2, 0, 3], "pad_value": 0.5},
             ref=pad_ref, name="constant"),
        Case([f32(1, 2, 4, 5)], {"paddings": [2, 1, 3, 4], "mode": "reflect"}, ref=pad_ref,
             name="reflect"),
        Case([f32(1, 3, 4, 2)], {"paddings": [1, 2, 3, 1], "mode": "edge",
                                 "data_format": "NHWC"}, ref=pad_ref, name="edge-nhwc"),
        Case([f32(1, 2, 3, 4)], {"paddings": [3, 2, 4, 1], "mode": "circular"}, ref=pad_ref,
             name="circular"),
    ],
    "pad3d": [
        Case([f32(1, 2, 3, 3, 4)], {"paddings": [1, 2, 0, 1, 2, 1], "mode": "reflect"},
             ref=pad_ref, name="reflect"),
        Case([f32(1, 2, 3, 4, 2)], {"paddings": [1, 0, 2, 1, 1, 1], "mode": "replicate",
                                    "data_format": "NDHWC"}, ref=pad_ref,
             name="replicate-ndhwc"),
        Case([f32(1, 1, 2, 3, 4)], {"paddings": [2, 1, 1, 3, 0, 2], "mode": "circular"},
             ref=pad_ref, name="circular"),
        Case([f32(1, 2, 2, 2, 3)], {"paddings": [1, 1, 0, 2, 1, 0]}, ref=pad_ref,
             name="constant"),
    ],
    "temporal_shift": [
        Case([f32(6, 4, 2, 3)], {"seg_num": 3, "shift_ratio": 0.25}, ref=shift_ref,
             name="nchw"),
        Case([f32(4, 2, 2, 8)], {"seg_num": 2, "shift_ratio": 0.2, "data_format": "NHWC"},
             ref=shift_ref, name="nhwc"),
        Case([f32(4, 6, 1, 2)], {"seg_num": 4, "shift_ratio": 0.5}, ref=shift_ref,
             name="half"),
    ],
    "group_norm": [
        Case([f32(2, 4, 3, 2), f32(4), f32(4)], {"groups": 2}, ref=group_norm_ref,
             name="nchw"),
        Case([f32(2, 3, 2, 6), f32(6), f32(6)], {"groups": 3, "data_layout": "NHWC",
                                                 "epsilon": 1e-3}, ref=group_norm_ref,
             name="nhwc"),
        Case([f32(3, 4, 5), None, None], {"groups": 4}, ref=group_norm_ref, name="no-affine"),
    ],
    "instance_norm": [
        Case([f32(2, 3, 4, 3), f32(3), f32(3)], ref=instance_norm_ref, name="2d"),
        Case([f32(2, 2, 5), None, None], {"epsilon": 1e-3}, ref=instance_norm_ref,
             name="1d-no-affine"),
        Case([f32(1, 2, 2, 3, 2), f32(2), f32(2)], ref=instance_norm_ref, name="3d"),
    ],
}

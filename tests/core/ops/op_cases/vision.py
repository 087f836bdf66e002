"""Cases for the N-d convolution and pooling ops (core/ops/conv_nd.py, pool3d.py).

The references are naive loops over positions and kernel taps, written from Paddle's
definitions and independent of the im2col kernels they check.
"""
import itertools

import numpy as np

from . import Case

r = np.random.default_rng(5)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def distinct(*shape):
    n = int(np.prod(shape))
    return (r.permutation(n).astype(np.float32) / n - 0.5).reshape(shape)


def _last_to_first(x):
    return np.moveaxis(x, -1, 1)


def _first_to_last(x):
    return np.moveaxis(x, 1, -1)


def _lohi(paddings, d):
    p = list(paddings)
    if len(p) == 2 * d:
        return p[0::2], p[1::2]
    p = p * d if len(p) == 1 else p
    return p, p


def conv_nd_ref(x, w, strides, paddings, dilations, groups=1, data_format="NCDHW"):
    last = data_format in ("NHWC", "NDHWC")
    x = _last_to_first(x) if last else x
    d = x.ndim - 2
    lo, hi = _lohi(paddings, d)
    xp_ = np.pad(x, [(0, 0), (0, 0)] + list(zip(lo, hi)))
    n, _ = x.shape[:2]
    m, cg = w.shape[:2]
    k = w.shape[2:]
    o = [(xp_.shape[2 + i] - dilations[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(d)]
    out = np.zeros((n, m) + tuple(o), np.float64)
    mg = m // groups
    for f in range(m):
        grp = f // mg
        for pos in itertools.product(*[range(a) for a in o]):
            acc = np.zeros(n)
            for tap in itertools.product(*[range(a) for a in k]):
                idx = tuple(p * s + t * dl for p, s, t, dl in zip(pos, strides, tap, dilations))
                patch = xp_[(slice(None), slice(grp * cg, grp * cg + cg)) + idx]
                acc += patch @ w[(f, slice(None)) + tap]
            out[(slice(None), f) + pos] = acc
    out = out.astype(np.result_type(x, w))
    return _first_to_last(out) if last else out


def conv3d_ref(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), dilations=(1, 1, 1), groups=1,
               data_format="NCDHW"):
    return conv_nd_ref(x, w, strides, paddings, dilations, groups, data_format)


def conv_transpose_ref(x, w, strides, paddings, output_padding, dilations, groups,
                       data_format):
    """Scatter form: every input element adds ``x * w`` at ``pos * stride + tap * dilation``
    of the unpadded output, which is then cropped by the paddings."""
    last = data_format in ("NHWC", "NDHWC")
    x = _last_to_first(x) if last else x
    d = x.ndim - 2
    lo, hi = _lohi(paddings, d)
    c, mg = w.shape[:2]
    k = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * strides[i] + dilations[i] * (k[i] - 1) + 1 +
            output_padding[i] for i in range(d)]
    out = np.zeros((x.shape[0], mg * groups) + tuple(full), np.float64)
    cg = c // groups
    for ch in range(c):
        grp = ch // cg
        for pos in itertools.product(*[range(a) for a in x.shape[2:]]):
            for tap in itertools.product(*[range(a) for a in k]):
                idx = tuple(p * s + t * dl for p, s, t, dl in zip(pos, strides, tap, dilations))
                out[(slice(None), slice(grp * mg, grp * mg + mg)) + idx] += \
                    x[(slice(None), ch) + pos][:, None] * w[(ch, slice(None)) + tap][None, :]
    crop = tuple(slice(a, f - b) for a, b, f in zip(lo, hi, full))
    out = out[(slice(None), slice(None)) + crop].astype(np.result_type(x, w))
    return _first_to_last(out) if last else out


def convt2_ref(x, w, strides=(1, 1), paddings=(0, 0), output_padding=(0, 0), dilations=(1, 1),
               groups=1, data_format="NCHW"):
    return conv_transpose_ref(x, w, strides, paddings, output_padding, dilations, groups,
                              data_format)


def convt3_ref(x, w, strides=(1, 1, 1), paddings=(0, 0, 0), output_padding=(0, 0, 0),
               dilations=(1, 1, 1), groups=1, data_format="NCDHW"):
    return conv_transpose_ref(x, w, strides, paddings, output_padding, dilations, groups,
                              data_format)


CASES = {
    "conv3d": [
        Case([f32(2, 2, 3, 4, 4), f32(3, 2, 2, 2, 2)], ref=conv3d_ref, name="basic"),
        Case([f32(1, 4, 4, 5, 3), f32(4, 2, 3, 2, 2)],
             {"strides": [2, 1, 1], "paddings": [1, 0, 1, 1, 0, 1], "dilations": [1, 2, 1],
              "groups": 2}, ref=conv3d_ref, name="stride-pad-dilation-groups"),
        Case([f32(2, 3, 4, 3, 2), f32(2, 2, 2, 2, 2)],
             {"data_format": "NDHWC", "paddings": [1, 1, 0]}, ref=conv3d_ref, name="ndhwc"),
    ],
    "conv2d_transpose": [
        Case([f32(2, 3, 3, 4), f32(3, 2, 3, 3)], ref=convt2_ref, name="basic"),
        Case([f32(1, 2, 3, 3), f32(2, 3, 3, 3)],
             {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]},
             ref=convt2_ref, name="stride2-pad-outpad"),
        Case([f32(1, 4, 3, 2), f32(4, 1, 2, 3)],
             {"strides": [1, 2], "paddings": [0, 1, 1, 0], "dilations": [2, 1], "groups": 2},
             ref=convt2_ref, name="groups-dilation-asym"),
        Case([f32(2, 3, 2, 2), f32(2, 2, 4, 4)],
             {"strides": [2, 2], "paddings": [1, 1], "data_format": "NHWC"},
             ref=convt2_ref, name="nhwc"),
    ],
    "conv3d_transpose": [
        Case([f32(1, 2, 2, 3, 2), f32(2, 2, 2, 2, 2)],
             {"strides": [2, 1, 2], "paddings": [0, 1, 0], "output_padding": [1, 0, 0]},
             ref=convt3_ref, name="stride-outpad"),
        Case([f32(1, 2, 2, 2, 2), f32(2, 2, 3, 3, 3)],
             {"strides": [2, 2, 2], "paddings": [1, 1, 1], "data_format": "NDHWC"},
             ref=convt3_ref, name="ndhwc"),
    ],
}


def pool3d_ref(x, pooling_type="max", ksize=(1, 1, 1), strides=(1, 1, 1), paddings=(0, 0, 0),
               global_pooling=False, ceil_mode=False, exclusive=True, data_format="NCDHW"):
    last = data_format == "NDHWC"
    x = _last_to_first(x) if last else x
    if global_pooling:
        ksize, strides, paddings = x.shape[2:], (1, 1, 1), (0, 0, 0)
    lo, hi = _lohi(paddings, 3)
    o = []
    for i in range(3):
        extent = x.shape[2 + i] + lo[i] + hi[i] - ksize[i]
        o.append((-(-extent // strides[i]) if ceil_mode else extent // strides[i]) + 1)
    out = np.zeros(x.shape[:2] + tuple(o), x.dtype)
    for pos in itertools.product(*[range(a) for a in o]):
        start = [p * s - a for p, s, a in zip(pos, strides, lo)]
        inside = tuple(slice(max(st, 0), min(st + k, x.shape[2 + i]))
                       for i, (st, k) in enumerate(zip(start, ksize)))
        win = x[(slice(None), slice(None)) + inside]
        if pooling_type == "max":
            out[(slice(None), slice(None)) + pos] = win.max(axis=(2, 3, 4))
        else:
            div = win[0, 0].size if exclusive else int(np.prod(ksize))
            out[(slice(None), slice(None)) + pos] = win.sum(axis=(2, 3, 4)) / div
    return _first_to_last(out) if last else out


CASES["pool3d"] = [
    Case([distinct(2, 2, 4, 4, 4)], {"ksize": [2, 2, 2], "strides": [2, 2, 2]},
         ref=pool3d_ref, name="max-2"),
    Case([distinct(1, 2, 5, 4, 5)], {"ksize": [3, 2, 3], "strides": [2, 1, 2],
                                     "paddings": [1, 0, 1]}, ref=pool3d_ref,
         name="max-overlap-pad"),
    Case([f32(1, 2, 5, 4, 5)], {"pooling_type": "avg", "ksize": [3, 2, 3], "strides": [2, 2, 2],
                                "paddings": [1, 1, 0, 1, 1, 0]}, ref=pool3d_ref,
         name="avg-exclusive-asym"),
    Case([f32(1, 2, 5, 4, 3)], {"pooling_type": "avg", "ksize": [2, 2, 2], "strides": [2, 2, 2],
                                "paddings": [1, 1, 1], "exclusive": False}, ref=pool3d_ref,
         name="avg-inclusive"),
    Case([distinct(1, 2, 5, 5, 3)], {"ksize": [2, 2, 2], "strides": [2, 2, 2],
                                     "ceil_mode": True}, ref=pool3d_ref, name="max-ceil"),
    Case([distinct(2, 3, 2, 3, 2)], {"global_pooling": True}, ref=pool3d_ref,
         name="global-max"),
    Case([f32(2, 3, 2, 3, 2)], {"pooling_type": "avg", "global_pooling": True}, ref=pool3d_ref,
         name="global-avg"),
    Case([distinct(1, 4, 4, 4, 3)], {"ksize": [2, 2, 2], "strides": [2, 2, 2],
                                     "data_format": "NDHWC"}, ref=pool3d_ref, name="ndhwc"),
]

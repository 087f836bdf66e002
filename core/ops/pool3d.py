"""3-D max / average pooling (``pool3d``), vectorised.

The padded volume (``-inf`` for max, zeros for average; ``ceil_mode`` pads the far side enough
for the last window) is combined tap by tap: each of the ``kd * kh * kw`` kernel taps is one
strided slice covering every output position at once, folded in with ``maximum`` / ``+``.
Global pooling reduces the three spatial axes. As in ``pool2d``, max pooling sends the
gradient to the first maximum of a window in tap order (Paddle's rule), and exclusive average
pooling divides by the in-volume part of each window.
"""
import math

import numpy as np

from ._shapes import ShapeError
from .conv_nd import spatial_pads, spatial_tuple
from .registry import Meta, OpDef, register_op

__all__ = ["pool3d", "pool3d_far_pads"]


def _plan(shape, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode):
    """``(k, stride, lo, hi, out)`` for a channels-first 5-D ``shape``; ``hi`` includes what
    ``ceil_mode`` adds for the last window."""
    if len(shape) != 5:
        raise ShapeError(f"pool3d: X must be 5-D, got shape {list(shape)}")
    if pooling_type not in ("max", "avg"):
        raise ShapeError(f"pool3d: pooling_type must be 'max' or 'avg', got {pooling_type!r}")
    s = tuple(shape[2:])
    if global_pooling:
        return s, (1, 1, 1), (0, 0, 0), (0, 0, 0), (1, 1, 1)
    k = spatial_tuple(ksize, 3, "pool3d: ksize")
    stride = spatial_tuple(strides, 3, "pool3d: strides")
    lo, hi = spatial_pads(paddings, 3, "pool3d: paddings")
    if min(k + stride) < 1:
        raise ShapeError(f"pool3d: ksize and strides must be >= 1, got {list(k)} and "
                         f"{list(stride)}")
    out, far = [], []
    for size, kk, st, a, b in zip(s, k, stride, lo, hi):
        if size < 0:
            out.append(-1)
            far.append(b)
            continue
        extent = size + a + b - kk
        if extent < 0:
            raise ShapeError(f"pool3d: window {list(k)} does not fit the padded input "
                             f"{[q + x + y for q, x, y in zip(s, lo, hi)]}")
        o = (-(-extent // st) if ceil_mode else extent // st) + 1
        out.append(o)
        far.append(max(b, (o - 1) * st + kk - size - a))
    return k, stride, lo, tuple(far), tuple(out)


def pool3d_far_pads(size, k, stride, lo, hi, ceil_mode):
    """The far-side padding of each axis, including what ``ceil_mode`` adds for the last
    window (what the kernel pads with)."""
    shape = (1, 1) + tuple(size)
    return _plan(shape, "max", k, stride, [p for pair in zip(lo, hi) for p in pair], False,
                 ceil_mode)[3]


def _taps(k, stride, out):
    """``(tap, index)`` of each kernel tap in row-major order: ``padded[index]`` is the
    ``[N, C, *out]`` array of the values that tap reads."""
    for tap in np.ndindex(*k):
        yield tap, (Ellipsis,) + tuple(slice(t, t + st * (o - 1) + 1, st)
                                       for t, st, o in zip(tap, stride, out))


def _pad(xp, x, lo, hi, value):
    out = xp.full(x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi)),
                  value, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(a, a + s) for a, s in zip(lo, x.shape[2:]))] = x
    return out


def _divisor(xp, size, k, stride, lo, out, exclusive, dtype):
    if not exclusive:
        return dtype.type(math.prod(k))
    counts = []
    for sz, kk, st, a, o in zip(size, k, stride, lo, out):
        start = xp.arange(o) * st - a
        counts.append(xp.minimum(start + kk, sz) - xp.maximum(start, 0))
    cnt = counts[0][:, None, None] * counts[1][None, :, None] * counts[2][None, None, :]
    return xp.maximum(cnt, 1).astype(dtype)


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _layout(data_format):
    if data_format not in ("NCDHW", "NDHWC"):
        raise ShapeError(f"pool3d: data_format must be 'NCDHW' or 'NDHWC', got "
                         f"{data_format!r}")
    return data_format == "NDHWC"


@register_op
class pool3d(OpDef):
    """Max or average pooling over ``ksize`` windows of an NCDHW (or NDHWC) volume."""

    attrs = {"pooling_type": "max", "ksize": [1, 1, 1], "strides": [1, 1, 1],
             "paddings": [0, 0, 0], "global_pooling": False, "ceil_mode": False,
             "exclusive": True, "data_format": "NCDHW"}

    def infer(self, x, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode,
              exclusive, data_format):
        last = _layout(data_format)
        shape = tuple(x.shape)
        cf = (shape[0], shape[-1]) + shape[1:-1] if last and len(shape) == 5 else shape
        out = _plan(cf, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode)[4]
        res = (cf[0],) + out + (cf[1],) if last else (cf[0], cf[1]) + out
        return Meta(res, x.dtype)

    def forward(self, ctx, x, pooling_type, ksize, strides, paddings, global_pooling,
                ceil_mode, exclusive, data_format):
        xp, last = ctx.xp, _layout(data_format)
        x = x.transpose(0, 4, 1, 2, 3) if last else x
        k, stride, lo, hi, out = _plan(x.shape, pooling_type, ksize, strides, paddings,
                                       global_pooling, ceil_mode)
        is_max = pooling_type == "max"
        if global_pooling:
            y = x.max(axis=(2, 3, 4), keepdims=True) if is_max else \
                x.mean(axis=(2, 3, 4), keepdims=True, dtype=x.dtype)
        else:
            xpad = _pad(xp, x, lo, hi, _lowest(xp, x.dtype) if is_max else 0)
            taps = _taps(k, stride, out)
            y = xpad[next(taps)[1]].copy()
            combine = xp.maximum if is_max else xp.add
            for _, idx in taps:
                combine(y, xpad[idx], out=y)
            if not is_max:
                y /= _divisor(xp, x.shape[2:], k, stride, lo, out, exclusive, x.dtype)
        y = y.astype(x.dtype, copy=False)
        return xp.ascontiguousarray(y.transpose(0, 2, 3, 4, 1)) if last else y

    def backward(self, ctx, ins, outs, douts, pooling_type, ksize, strides, paddings,
                 global_pooling, ceil_mode, exclusive, data_format):
        xp, last = ctx.xp, _layout(data_format)
        x, y, d = ins[0], outs[0], douts[0]
        if last:
            x, y, d = (a.transpose(0, 4, 1, 2, 3) for a in (x, y, d))
        k, stride, lo, hi, out = _plan(x.shape, pooling_type, ksize, strides, paddings,
                                       global_pooling, ceil_mode)
        is_max = pooling_type == "max"
        if global_pooling and not is_max:
            dx = xp.broadcast_to(d / x.dtype.type(math.prod(x.shape[2:])), x.shape).copy()
        else:
            if global_pooling:
                lo = hi = (0, 0, 0)
            img = xp.zeros(x.shape[:2] + tuple(s + a + b for s, a, b in
                                               zip(x.shape[2:], lo, hi)), dtype=x.dtype)
            if is_max:
                xpad = _pad(xp, x, lo, hi, _lowest(xp, x.dtype))
                free = xp.ones(y.shape, dtype=bool)
                for _, idx in _taps(k, stride, out):
                    hit = (xpad[idx] == y) & free
                    img[idx] += hit * d
                    free &= ~hit
            else:
                g = (d / _divisor(xp, x.shape[2:], k, stride, lo, out, exclusive,
                                  x.dtype)).astype(x.dtype, copy=False)
                for _, idx in _taps(k, stride, out):
                    img[idx] += g
            dx = img[(Ellipsis,) + tuple(slice(a, a + s) for a, s in zip(lo, x.shape[2:]))]
        return (xp.ascontiguousarray(dx.transpose(0, 2, 3, 4, 1)) if last else dx,)

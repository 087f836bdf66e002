"""N-d convolutions: ``conv3d``, ``conv2d_transpose`` and ``conv3d_transpose``.

One im2col + batched GEMM core serves every spatial rank ``D`` (2 or 3). The windows of the
padded channels-first input are a strided view ``[N, C, *K, *O]`` (no copy), copied once as
per-sample columns ``[N, groups, C/groups * prod(K), prod(O)]``; one matmul broadcast over the
batch gives the output, already channels-first. ``_col2im`` is the adjoint: it adds per-window
values back onto the image with one vectorised slice-add per kernel tap (``prod(K)`` of them),
never a loop over pixels.

A transposed convolution is the adjoint of a convolution: its forward pass is the
convolution's input gradient (GEMM, then ``_col2im``) and its input gradient is the
convolution's forward pass on the output gradient, so both reuse the same pieces.
Channels-last layouts (``NHWC``, ``NDHWC``) are transposed to channels-first and back.
"""
import math

import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from .registry import Meta, OpDef, register_op

__all__ = ["conv3d", "conv2d_transpose", "conv3d_transpose", "col2im_nd", "spatial_pads",
           "spatial_tuple", "window_cols"]

_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def spatial_tuple(v, d, what):
    """An int or a list of 1 or ``d`` ints as a ``d``-tuple."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return (int(v[0]),) * d
        if len(v) == d:
            return tuple(int(a) for a in v)
        raise ShapeError(f"{what} must have {d} elements, got {list(v)}")
    return (int(v),) * d


def spatial_pads(paddings, d, what):
    """``d`` ints (symmetric) or ``2 d`` ints ``[lo0, hi0, lo1, hi1, ...]`` as ``(lo, hi)``."""
    if isinstance(paddings, (list, tuple)) and len(paddings) == 2 * d:
        p = [int(a) for a in paddings]
        lo, hi = tuple(p[0::2]), tuple(p[1::2])
    else:
        lo = hi = spatial_tuple(paddings, d, what)
    if min(lo + hi) < 0:
        raise ShapeError(f"{what} must be >= 0, got {list(paddings)}")
    return lo, hi


class _Geo:
    """Validated geometry of a convolution over ``D`` spatial axes (channels-first shapes):
    input ``[N, C, *S]``, filter ``[M, C/groups, *K]``, output ``[N, M, *O]``."""

    def __init__(self, who, x_shape, w_shape, strides, paddings, dilations, groups, d):
        if len(x_shape) != d + 2 or len(w_shape) != d + 2:
            raise ShapeError(f"{who}: Input and Filter must be {d + 2}-D, got Input "
                             f"{list(x_shape)} and Filter {list(w_shape)}")
        self.n, self.c, self.s = x_shape[0], x_shape[1], tuple(x_shape[2:])
        self.m, self.cg, self.k = w_shape[0], w_shape[1], tuple(w_shape[2:])
        self.stride = spatial_tuple(strides, d, f"{who}: strides")
        self.dil = spatial_tuple(dilations, d, f"{who}: dilations")
        self.lo, self.hi = spatial_pads(paddings, d, f"{who}: paddings")
        if min(self.stride + self.dil) < 1:
            raise ShapeError(f"{who}: strides and dilations must be >= 1, got strides "
                             f"{strides} and dilations {dilations}")
        if groups < 1 or (self.m > 0 and self.m % groups):
            raise ShapeError(f"{who}: the number of filters ({self.m}) must be divisible by "
                             f"groups ({groups})")
        if self.c >= 0 and self.c != self.cg * groups:
            raise ShapeError(f"{who}: Input has {self.c} channels but Filter {list(w_shape)} "
                             f"with groups={groups} expects {self.cg * groups}")
        self.groups, self.d = groups, d
        self.o = tuple(self._out(*a) for a in zip(self.s, self.k, self.stride, self.lo,
                                                   self.hi, self.dil))
        if 0 in self.o:
            raise ShapeError(f"{who}: the dilated kernel {list(self.k)} does not fit the padded "
                             f"input {[s + a + b for s, a, b in zip(self.s, self.lo, self.hi)]}")

    @staticmethod
    def _out(size, k, stride, lo, hi, dil):
        if size < 0:
            return -1
        extent = size + lo + hi - (dil * (k - 1) + 1)
        return 0 if extent < 0 else extent // stride + 1


def window_cols(xp, xpad, k, o, stride, dil, groups):
    """Columns ``[N, groups, C/groups * prod(k), prod(o)]`` of the windows of a padded
    channels-first ``xpad`` (one copy)."""
    n, c = xpad.shape[:2]
    sp = xpad.strides[2:]
    shape = (n, c) + tuple(k) + tuple(o)
    strides = xpad.strides[:2] + tuple(s * d for s, d in zip(sp, dil)) + \
        tuple(s * t for s, t in zip(sp, stride))
    # NOTE: a read-only view; the reshape below copies it into fresh columns
    view = xp.lib.stride_tricks.as_strided(xpad, shape=shape, strides=strides)
    return view.reshape(n, groups, (c // groups) * math.prod(k), math.prod(o))


def col2im_nd(xp, cols, padded, k, o, stride, dil):
    """Adjoint of :func:`window_cols`: ``cols`` ``[N, C, *k, *o]`` summed onto a zero image
    ``[N, C, *padded]``, one slice-add per kernel tap."""
    n, c = cols.shape[:2]
    img = xp.zeros((n, c) + tuple(padded), dtype=cols.dtype)
    for tap in np.ndindex(*k):
        idx = tuple(slice(t * dl, t * dl + st * (oo - 1) + 1, st)
                    for t, dl, st, oo in zip(tap, dil, stride, o))
        img[(slice(None), slice(None)) + idx] += cols[(slice(None), slice(None)) + tap]
    return img


def _pad_cf(xp, x, lo, hi):
    """``x`` [N, C, *S] zero-padded by ``lo`` / ``hi`` on the spatial axes."""
    if not any(lo) and not any(hi):
        return x
    out = xp.zeros(x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi)),
                   dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(a, a + s) for a, s in
                                           zip(lo, x.shape[2:]))] = x
    return out


def _crop(img, lo, size):
    return img[(slice(None), slice(None)) + tuple(slice(a, a + s) for a, s in zip(lo, size))]


def _conv_fwd(xp, x, w, g):
    """Convolution of channels-first ``x`` for geometry ``g``: ``[N, M, *O]``."""
    cols = window_cols(xp, _pad_cf(xp, x, g.lo, g.hi), g.k, g.o, g.stride, g.dil, g.groups)
    wg = w.reshape(g.groups, g.m // g.groups, -1)
    return xp.matmul(wg, cols).reshape((x.shape[0], g.m) + g.o)


def _conv_dx(xp, d, w, g, dtype):
    """The convolution's input gradient (channels-first) from ``d`` ``[N, M, *O]``."""
    n = d.shape[0]
    wg = w.reshape(g.groups, g.m // g.groups, -1)
    dcols = xp.matmul(wg.transpose(0, 2, 1), d.reshape(n, g.groups, g.m // g.groups, -1))
    dcols = dcols.reshape((n, g.c) + g.k + g.o).astype(dtype, copy=False)
    padded = tuple(s + a + b for s, a, b in zip(g.s, g.lo, g.hi))
    return _crop(col2im_nd(xp, dcols, padded, g.k, g.o, g.stride, g.dil), g.lo, g.s)


def _conv_dw(xp, x, d, g, w_shape):
    """The convolution's filter gradient from input ``x`` and ``d`` ``[N, M, *O]``."""
    n = x.shape[0]
    cols = window_cols(xp, _pad_cf(xp, x, g.lo, g.hi), g.k, g.o, g.stride, g.dil, g.groups)
    dg = d.reshape(n, g.groups, g.m // g.groups, -1)
    return xp.matmul(dg, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w_shape)


def _check_format(who, data_format, d):
    if data_format not in _FORMATS[d]:
        raise ShapeError(f"{who}: data_format must be one of {list(_FORMATS[d])}, got "
                         f"{data_format!r}")
    return data_format == _FORMATS[d][1]


def _cf_shape(shape, last):
    shape = tuple(shape)
    return (shape[0], shape[-1]) + shape[1:-1] if last and len(shape) > 2 else shape


def _to_cf(x, last):
    return x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1))) if last else x


def _from_cf(x, last):
    return x.transpose((0,) + tuple(range(2, x.ndim)) + (1,)) if last else x


_CONV_ATTRS = {"strides": [1, 1, 1], "paddings": [0, 0, 0], "dilations": [1, 1, 1],
               "groups": 1, "data_format": "NCDHW"}


@register_op
class conv3d(OpDef):
    """``Output[n, m] = sum_c Input[n, c] (*) Filter[m, c]`` over depth, height and width,
    within each group (NCDHW or NDHWC)."""

    inputs = ("Input", "Filter")
    outputs = ("Output",)
    attrs = _CONV_ATTRS

    def _geo(self, x_shape, w_shape, strides, paddings, dilations, groups, data_format):
        last = _check_format("conv3d", data_format, 3)
        return last, _Geo("conv3d", _cf_shape(x_shape, last), w_shape, strides, paddings,
                           dilations, groups, 3)

    def infer(self, x, w, **attrs):
        last, g = self._geo(x.shape, w.shape, **attrs)
        shape = _from_cf_shape((g.n, g.m) + g.o, last)
        return Meta(shape, ufunc_dtype(np.multiply, x.dtype, w.dtype))

    def forward(self, ctx, x, w, **attrs):
        last, g = self._geo(x.shape, w.shape, **attrs)
        out = _conv_fwd(ctx.xp, _to_cf(x, last), w, g)
        return ctx.xp.ascontiguousarray(_from_cf(out, last))

    def backward(self, ctx, ins, outs, douts, **attrs):
        xp, (x, w) = ctx.xp, ins
        last, g = self._geo(x.shape, w.shape, **attrs)
        d = _to_cf(douts[0], last)
        need_x, need_w = ctx.needs_grad
        dx = _from_cf(_conv_dx(xp, d, w, g, x.dtype), last) if need_x else None
        dw = _conv_dw(xp, _to_cf(x, last), d, g, w.shape) if need_w else None
        return (None if dx is None else xp.ascontiguousarray(dx)), dw


def _from_cf_shape(shape, last):
    return (shape[0],) + tuple(shape[2:]) + (shape[1],) if last else tuple(shape)


class _ConvTranspose(OpDef):
    """The adjoint of a ``D``-d convolution: ``Input`` ``[N, C, *S]``, ``Filter``
    ``[C, M / groups, *K]``, ``Output`` ``[N, M, *O]`` with
    ``O = (S - 1) * stride - pad_lo - pad_hi + dilation * (K - 1) + 1 + output_padding``."""

    inputs = ("Input", "Filter")
    outputs = ("Output",)
    dims = 2

    def _geo(self, x_shape, w_shape, strides, paddings, output_padding, dilations, groups,
             data_format):
        who, d = self.type, self.dims
        last = _check_format(who, data_format, d)
        x_shape = _cf_shape(x_shape, last)
        if len(x_shape) != d + 2 or len(w_shape) != d + 2:
            raise ShapeError(f"{who}: Input and Filter must be {d + 2}-D, got Input "
                             f"{list(x_shape)} and Filter {list(w_shape)}")
        c_in, mg, k = w_shape[0], w_shape[1], tuple(w_shape[2:])
        if x_shape[1] >= 0 and x_shape[1] != c_in:
            raise ShapeError(f"{who}: Input has {x_shape[1]} channels but Filter "
                             f"{list(w_shape)} expects {c_in} (its first dim)")
        if groups < 1 or c_in % groups:
            raise ShapeError(f"{who}: the input channels ({c_in}) must be divisible by groups "
                             f"({groups})")
        stride = spatial_tuple(strides, d, f"{who}: strides")
        dil = spatial_tuple(dilations, d, f"{who}: dilations")
        lo, hi = spatial_pads(paddings, d, f"{who}: paddings")
        opad = spatial_tuple(output_padding, d, f"{who}: output_padding")
        if min(stride + dil) < 1:
            raise ShapeError(f"{who}: strides and dilations must be >= 1, got strides "
                             f"{strides} and dilations {dilations}")
        if any(p < 0 or (p >= s and p >= dl) for p, s, dl in zip(opad, stride, dil)):
            raise ShapeError(f"{who}: output_padding must be >= 0 and smaller than the stride "
                             f"or the dilation, got {list(opad)} with strides {list(stride)}")
        full = tuple(-1 if s < 0 else (s - 1) * st + dl * (kk - 1) + 1 + p
                     for s, st, dl, kk, p in zip(x_shape[2:], stride, dil, k, opad))
        out = tuple(-1 if f < 0 else f - a - b for f, a, b in zip(full, lo, hi))
        if any(0 <= o < 1 for o in out):
            raise ShapeError(f"{who}: paddings {list(paddings)} leave no output for Input "
                             f"{list(x_shape)} and Filter {list(w_shape)}")
        # the convolution this op is the adjoint of: from the output [N, M, *O] (padded to
        # `full`) to [N, C, *S]; its windows are the input's S positions (output_padding
        # may leave room for more)
        g = None
        if min(out) >= 0:
            pads = [p for pair in zip(lo, hi) for p in pair]
            g = _Geo(who, (x_shape[0], mg * groups) + out, (c_in, mg) + k, stride, pads, dil,
                     groups, d)
            g.o = tuple(x_shape[2:])
        return last, (x_shape[0], mg * groups) + out, g

    def infer(self, x, w, **attrs):
        last, shape, _ = self._geo(x.shape, w.shape, **attrs)
        return Meta(_from_cf_shape(shape, last), ufunc_dtype(np.multiply, x.dtype, w.dtype))

    def forward(self, ctx, x, w, **attrs):
        xp = ctx.xp
        last, _, g = self._geo(x.shape, w.shape, **attrs)
        dtype = ufunc_dtype(np.multiply, x.dtype, w.dtype)
        out = _conv_dx(xp, _to_cf(x, last), w, g, dtype)
        return xp.ascontiguousarray(_from_cf(out, last))

    def backward(self, ctx, ins, outs, douts, **attrs):
        xp, (x, w) = ctx.xp, ins
        last, _, g = self._geo(x.shape, w.shape, **attrs)
        d = _to_cf(douts[0], last)
        need_x, need_w = ctx.needs_grad
        dx = dw = None
        if need_x:  # the convolution's forward pass on the output gradient
            dx = xp.ascontiguousarray(_from_cf(_conv_fwd(xp, d, w, g), last))
        if need_w:  # the convolution's filter gradient, with input and output swapped
            dw = _conv_dw(xp, d, _to_cf(x, last), g, w.shape)
        return dx, dw


@register_op
class conv2d_transpose(_ConvTranspose):
    """2-D transposed convolution (NCHW or NHWC); see :class:`_ConvTranspose`."""

    dims = 2
    attrs = {"strides": [1, 1], "paddings": [0, 0], "output_padding": [0, 0],
             "dilations": [1, 1], "groups": 1, "data_format": "NCHW"}


@register_op
class conv3d_transpose(_ConvTranspose):
    """3-D transposed convolution (NCDHW or NDHWC); see :class:`_ConvTranspose`."""

    dims = 3
    attrs = {"strides": [1, 1, 1], "paddings": [0, 0, 0], "output_padding": [0, 0, 0],
             "dilations": [1, 1, 1], "groups": 1, "data_format": "NCDHW"}

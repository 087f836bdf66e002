"""2-D convolution (``conv2d``), vectorised as im2col + matmul; two column layouts.

Both copy the padded input's windows (a strided view, see ``_windows``) once, choosing the
layout whose copy runs over the longer contiguous stretches of memory:

* rows (``groups == 1`` and ``C * kw`` at least ``OW``, e.g. 20 -> 50 channels on 12x12): the
  input goes channels-last and the windows become rows ``[N*OH*OW, kh*kw*C]``, copied in runs
  of ``kw * C``; one GEMM with the ``[M, kh*kw*C]`` filter gives the output channels-last. The
  backward pass never rebuilds all the columns (see ``_rows_grads``): ``dFilter`` takes one
  kernel row's windows at a time, the input gradient one tap at a time as a contiguous
  ``[N, OH, OW, C]`` block added onto a channels-last image in long runs.
* per sample (few channels, e.g. an MNIST image, or ``groups > 1``): columns
  ``[N, groups, C/groups*kh*kw, OH*OW]`` copied in runs of ``OW``; a matmul broadcast over the
  batch gives ``[N, M, OH*OW]``, already NCHW, and ``dFilter`` is a batched matmul summed over
  the batch, so neither pass transposes the (large) output or its gradient.

The op keeps no state between passes, so the per-sample backward pass rebuilds the columns
(one copy) when ``dFilter`` is wanted; each of ``dInput`` and ``dFilter`` is skipped when
``ctx.needs_grad`` says it is not wanted (a network's image input). ``fast_kernel`` binds the
parsed attributes and fixed shapes for the static executor.
"""
import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from ._windows import col2im, out_size, pad_nchw, padded_nhwc, pads4, pair, window_view
from .registry import KernelContext, Meta, OpDef, register_op

__all__ = ["conv2d"]


def _geometry(x_shape, w_shape, strides, paddings, dilations, groups, who="conv2d"):
    """Validated ``(N, C, H, W, M, kh, kw, OH, OW, (sh, sw), (t, b, lft, r), (dh, dw))``."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ShapeError(f"{who}: Input and Filter must be 4-D, got Input {list(x_shape)} and "
                         f"Filter {list(w_shape)}")
    n, c, h, w = x_shape
    m, cg, kh, kw = w_shape
    sh, sw = pair(strides, f"{who}: strides")
    dh, dw = pair(dilations, f"{who}: dilations")
    t, b, lft, r = pads4(paddings, f"{who}: paddings")
    if min(sh, sw, dh, dw) < 1:
        raise ShapeError(f"{who}: strides and dilations must be >= 1, got strides {strides} "
                         f"and dilations {dilations}")
    if groups < 1 or (m > 0 and m % groups):
        raise ShapeError(f"{who}: the number of filters ({m}) must be divisible by groups "
                         f"({groups})")
    if c >= 0 and cg >= 0 and c != cg * groups:
        raise ShapeError(f"{who}: Input has {c} channels but Filter {list(w_shape)} with "
                         f"groups={groups} expects {cg * groups}")
    oh = out_size(h, kh, sh, t, b, dh)
    ow = out_size(w, kw, sw, lft, r, dw)
    if oh == 0 or ow == 0:
        raise ShapeError(f"{who}: the dilated kernel {[kh, kw]} does not fit the padded input "
                         f"{[h + t + b, w + lft + r]}")
    return n, c, h, w, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw)


def _uses_rows(g, groups):
    """Whether the rows layout copies longer contiguous runs than the per-sample one."""
    c, kw, ow, (_, sw), (_, dw) = g[1], g[6], g[8], g[9], g[11]
    return groups == 1 and c * (kw if dw == 1 else 1) >= (ow if sw == 1 else 1)


def _rows(xp, x_nhwc, g):
    """Windows of a channels-last image as rows ``[N*OH*OW, kh*kw*C]`` (one copy)."""
    n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    xpad = padded_nhwc(xp, x_nhwc, t, b, lft, r)
    view = window_view(xp, xpad.transpose(0, 3, 1, 2), kh, kw, oh, ow, sh, sw, dh, dw,
                       order="nhwijc")
    return view.reshape(n * oh * ow, kh * kw * c)


def _per_sample(xp, x_nchw, g, groups):
    """Windows as per-sample columns ``[N, groups, C/groups*kh*kw, OH*OW]`` (one copy)."""
    n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    xpad = pad_nchw(xp, x_nchw, t, b, lft, r)
    view = window_view(xp, xpad, kh, kw, oh, ow, sh, sw, dh, dw, order="ncijhw")
    return view.reshape(n, groups, (c // groups) * kh * kw, oh * ow)


def _conv(xp, x, w, g, groups, nhwc):
    """The forward pass for validated geometry ``g``; ``x`` in its own layout."""
    n, m, oh, ow = g[0], g[4], g[7], g[8]
    if _uses_rows(g, groups):
        cols = _rows(xp, x if nhwc else x.transpose(0, 2, 3, 1), g)
        out = xp.matmul(cols, w.transpose(0, 2, 3, 1).reshape(m, -1).T).reshape(n, oh, ow, m)
        return out if nhwc else xp.ascontiguousarray(out.transpose(0, 3, 1, 2))
    cols = _per_sample(xp, x.transpose(0, 3, 1, 2) if nhwc else x, g, groups)
    out = xp.matmul(w.reshape(groups, m // groups, -1), cols).reshape(n, m, oh, ow)
    return xp.ascontiguousarray(out.transpose(0, 2, 3, 1)) if nhwc else out


def _nchw_shape(shape, nhwc):
    shape = tuple(shape)
    return (shape[0], shape[3], shape[1], shape[2]) if nhwc and len(shape) == 4 else shape


def _check_format(data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    return data_format == "NHWC"


@register_op
class conv2d(OpDef):
    """``Output[n, m] = sum_c Input[n, c] (*) Filter[m, c]`` within each group."""

    inputs = ("Input", "Filter")
    outputs = ("Output",)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "dilations": [1, 1], "groups": 1,
             "data_format": "NCHW"}

    def infer(self, x, w, strides, paddings, dilations, groups, data_format):
        nhwc = _check_format(data_format)
        n, _, _, _, m, _, _, oh, ow, *_ = _geometry(_nchw_shape(x.shape, nhwc), w.shape,
                                                     strides, paddings, dilations, groups)
        shape = (n, oh, ow, m) if nhwc else (n, m, oh, ow)
        return Meta(shape, ufunc_dtype(np.multiply, x.dtype, w.dtype))

    def forward(self, ctx, x, w, strides, paddings, dilations, groups, data_format):
        nhwc = _check_format(data_format)
        g = _geometry(_nchw_shape(x.shape, nhwc), w.shape, strides, paddings, dilations,
                      groups)
        return _conv(ctx.xp, x, w, g, groups, nhwc)

    def fast_kernel(self, xp, metas, strides, paddings, dilations, groups, data_format):
        x, w = metas
        if x is None or w is None or len(x.shape) != 4 or min(x.shape[1:]) < 0 or \
                min(w.shape) < 0:
            return None
        nhwc = _check_format(data_format)
        g = _geometry(_nchw_shape(x.shape, nhwc), w.shape, strides, paddings, dilations,
                      groups)
        x_rest, w_shape, forward = tuple(x.shape[1:]), tuple(w.shape), self.forward
        ctx = KernelContext(xp, None)
        attrs = dict(strides=strides, paddings=paddings, dilations=dilations, groups=groups,
                     data_format=data_format)

        def kernel(x, w):
            # NOTE: the bound geometry holds only for the declared shapes; anything else (a
            # wrongly declared feed) takes the checked path.
            if x.shape[1:] != x_rest or w.shape != w_shape:
                return forward(ctx, x, w, **attrs)
            return _conv(xp, x, w, (x.shape[0],) + g[1:], groups, nhwc)

        return kernel

    def backward(self, ctx, ins, outs, douts, strides, paddings, dilations, groups,
                 data_format):
        xp = ctx.xp
        x, w = ins
        nhwc = _check_format(data_format)
        g = _geometry(_nchw_shape(x.shape, nhwc), w.shape, strides, paddings, dilations,
                      groups)
        need_x, need_w = ctx.needs_grad
        if _uses_rows(g, groups):
            return _rows_grads(xp, x, w, douts[0], g, nhwc, need_x, need_w)
        return _per_sample_grads(xp, x, w, douts[0], g, groups, nhwc, need_x, need_w)


def _rows_grads(xp, x, w, dout, g, nhwc, need_x, need_w):
    """Both gradients of the rows layout, without the [N*OH*OW, kh*kw*C] columns.

    ``dFilter`` goes one kernel row at a time: the row's windows ``[N*OH*OW, kw*C]`` are
    copied into a buffer reused by every row (runs of ``kw * C`` floats) and one GEMM
    ``d.T @ rows`` gives ``dFilter[:, :, i, :]`` (measured: faster than ``kh * kw`` GEMMs of
    ``C`` columns each, as fast as one GEMM over all the columns with a ``kh``-th of their
    memory). The input gradient goes tap
    by tap: tap ``(i, j)``'s gradient ``d @ Filter[:, :, i, j]`` is a contiguous
    ``[N, OH, OW, C]`` block in a reused buffer, added onto a channels-last image at once."""
    n, c, h, wd, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    d = xp.ascontiguousarray(dout if nhwc else dout.transpose(0, 2, 3, 1)).reshape(-1, m)
    dx = dw_ = None
    if need_w:
        xpad = padded_nhwc(xp, x if nhwc else x.transpose(0, 2, 3, 1), t, b, lft, r)
        view = window_view(xp, xpad.transpose(0, 3, 1, 2), kh, kw, oh, ow, sh, sw, dh, dw,
                           order="inhwjc")
        rows = xp.empty((n, oh, ow, kw, c), dtype=x.dtype)
        dw_ = xp.empty((kh, m, kw * c), dtype=xp.result_type(d.dtype, x.dtype))
        dt = d.T
        for i in range(kh):
            rows[...] = view[i]
            xp.matmul(dt, rows.reshape(-1, kw * c), out=dw_[i])
        dw_ = xp.ascontiguousarray(dw_.reshape(kh, m, kw, c).transpose(1, 3, 0, 2))
    if need_x:
        wt = w.transpose(2, 3, 0, 1)
        tbuf = xp.empty((n, oh, ow, c), dtype=xp.result_type(d.dtype, w.dtype))
        img = xp.zeros((n, h + t + b, wd + lft + r, c), dtype=tbuf.dtype)
        for i in range(kh):
            rows_i = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            for j in range(kw):
                cols_j = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                xp.matmul(d, wt[i, j], out=tbuf.reshape(-1, c))
                img[:, rows_i, cols_j] += tbuf
        dx = img[:, t:t + h, lft:lft + wd]
        dx = xp.ascontiguousarray(dx if nhwc else dx.transpose(0, 3, 1, 2))
    return dx, dw_


def _per_sample_grads(xp, x, w, dout, g, groups, nhwc, need_x, need_w):
    n, c, h, wd, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    x_nchw = x.transpose(0, 3, 1, 2) if nhwc else x
    d = (dout.transpose(0, 3, 1, 2) if nhwc else dout).reshape(n, groups, m // groups, oh * ow)
    dx = dw_ = None
    if need_w:
        cols = _per_sample(xp, x_nchw, g, groups)
        dw_ = xp.matmul(d, cols.transpose(0, 1, 3, 2)).sum(axis=0).reshape(w.shape)
    if need_x:
        wg = w.reshape(groups, m // groups, -1)
        dcols = xp.matmul(wg.transpose(0, 2, 1), d).reshape(n, c, kh, kw, oh, ow)
        img = col2im(xp, dcols.transpose(2, 3, 0, 1, 4, 5), h + t + b, wd + lft + r,
                     sh, sw, dh, dw)
        dx = img[:, :, t:t + h, lft:lft + wd]
        dx = xp.ascontiguousarray(dx.transpose(0, 2, 3, 1) if nhwc else dx)
    return dx, dw_

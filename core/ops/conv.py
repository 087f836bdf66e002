"""2-D convolution (``conv2d``, ``conv2d_fusion``), vectorised as im2col + matmul.

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

``conv2d_fusion`` (what an eager ``Conv2D`` with a bias and no or a ReLU activation runs) is
``act(conv2d + Bias)`` as one GEMM: the windows get a column (row) of ones, the filter matrix
the bias, and the ReLU runs in place on the GEMM's result. With ``groups == 1`` the GEMM gives
channels-last rows ``[N*OH*OW, M]`` (from rows, or for few channels from tap-major columns
``[C*kh*kw + 1, N*OH*OW]`` copied in runs of ``OW``), returned as an NCHW-shaped view: no
transposing copy, and the elementwise and pooling kernels that follow keep that layout. The
windows are a second output, ``Columns`` (no gradient), so the backward pass gets ``[dFilter |
dBias]`` from one GEMM without copying them again.
"""
import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from ._windows import col2im, out_size, pad_nchw, padded_nhwc, pads4, pair, window_view
from .registry import KernelContext, Meta, OpDef, register_op

__all__ = ["conv2d", "conv2d_fusion"]


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


def _phase_split(view, axis_h, phases):
    """``view`` with its output-position axes ``axis_h`` (OH) and ``axis_h + 1`` (OW) split
    into ``(OH / ph, ph)`` and ``(OW / pw, pw)`` and reordered as ``(ph, pw, OH / ph,
    OW / pw)`` (a view): positions in tile-phase order, see :mod:`core.ops.conv_pool`."""
    ph, pw = phases
    s = view.shape
    oh, ow = s[axis_h], s[axis_h + 1]
    v = view.reshape(s[:axis_h] + (oh // ph, ph, ow // pw, pw) + s[axis_h + 2:])
    a = axis_h
    order = tuple(range(a)) + (a + 1, a + 3, a, a + 2) + tuple(range(a + 4, v.ndim))
    return v.transpose(order)


def _rows(xp, x_nhwc, g, ones=False, phases=None):
    """Windows of a channels-last image as rows ``[N*OH*OW, kh*kw*C]`` (one copy); with
    ``ones`` a last column of ones follows (``[..., kh*kw*C + 1]``, the bias's column); with
    ``phases`` ``(ph, pw)`` the rows are in tile-phase order (see :func:`_phase_split`)."""
    n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    xpad = padded_nhwc(xp, x_nhwc, t, b, lft, r)
    view = window_view(xp, xpad.transpose(0, 3, 1, 2), kh, kw, oh, ow, sh, sw, dh, dw,
                       order="nhwijc")
    if phases is not None:
        view = _phase_split(view, 1, phases)
    if not ones:
        return view.reshape(n * oh * ow, kh * kw * c)
    return _with_ones(xp, view, (n * oh * ow, kh * kw * c), axis=1)


def _taps(xp, x_nchw, g, phases=None):
    """Windows as tap-major columns ``[C*kh*kw + 1, N*OH*OW]`` ending with a row of ones
    (one copy, in runs of ``OW``); with ``phases`` the columns are in tile-phase order."""
    n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    xpad = pad_nchw(xp, x_nchw, t, b, lft, r)
    view = window_view(xp, xpad, kh, kw, oh, ow, sh, sw, dh, dw, order="cijnhw")
    if phases is not None:
        view = _phase_split(view, 4, phases)
    return _with_ones(xp, view, (c * kh * kw, n * oh * ow), axis=0)


def _per_sample(xp, x_nchw, g, groups, ones=False):
    """Windows as per-sample columns ``[N, groups, C/groups*kh*kw, OH*OW]`` (one copy); with
    ``ones`` each group's columns end with a row of ones (the bias's row)."""
    n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    xpad = pad_nchw(xp, x_nchw, t, b, lft, r)
    view = window_view(xp, xpad, kh, kw, oh, ow, sh, sw, dh, dw, order="ncijhw")
    shape = (n, groups, (c // groups) * kh * kw, oh * ow)
    if not ones:
        return view.reshape(shape)
    # NOTE: the channel axis split into its groups, so that the copy below only splits axes
    view = view.reshape((n, groups, c // groups) + view.shape[2:])
    return _with_ones(xp, view, shape, axis=2)


def _with_ones(xp, view, shape, axis):
    """The windows ``view`` copied into a new array laid out as ``shape`` (each axis of
    ``shape`` a run of ``view``'s axes), followed along ``axis`` by one slice of ones: the
    bias's row or column of the GEMM."""
    k = shape[axis]
    lead = (slice(None),) * axis
    cols = xp.empty(shape[:axis] + (k + 1,) + shape[axis + 1:], dtype=view.dtype)
    # NOTE: reshaping `body` only splits axes, which is always a view: the copy lands in cols
    body = cols[lead + (slice(0, k),)]
    body.reshape(view.shape)[...] = view
    cols[lead + (k,)] = 1
    return cols


def _biased_gemm(xp, x, w, bias, g, nhwc, phases=None):
    """``(rows, cols)`` for ``groups == 1``: one GEMM of the windows ``cols`` (with their
    ones) and the C-contiguous filter matrix ``[K + 1, M]`` (filter taps, then the bias row)
    gives ``conv2d + Bias`` as channels-last rows ``[N*OH*OW, M]``, by position or, with
    ``phases``, in tile-phase order."""
    c, m, kh, kw = g[1], g[4], g[5], g[6]
    k = c * kh * kw
    wb = xp.empty((k + 1, m), dtype=xp.result_type(w.dtype, bias.dtype))
    wb[k] = bias
    if _uses_rows(g, 1):  # K runs over (i, j, c)
        cols = _rows(xp, x if nhwc else x.transpose(0, 2, 3, 1), g, ones=True, phases=phases)
        wb[:k].reshape(kh, kw, c, m)[...] = w.transpose(2, 3, 1, 0)
        return xp.matmul(cols, wb), cols
    # K runs over (c, i, j)
    cols = _taps(xp, x.transpose(0, 3, 1, 2) if nhwc else x, g, phases=phases)
    wb[:k].reshape(c, kh, kw, m)[...] = w.transpose(1, 2, 3, 0)
    return xp.matmul(cols.T, wb), cols


def _fused_gemm(xp, x, w, bias, g, nhwc, activation):
    """``conv2d_fusion``'s forward for ``groups == 1`` (see :func:`_biased_gemm`)."""
    n, m, oh, ow = g[0], g[4], g[7], g[8]
    out, cols = _biased_gemm(xp, x, w, bias, g, nhwc)
    if activation == "relu":
        xp.maximum(out, 0, out=out)
    out = out.reshape(n, oh, ow, m)
    # NOTE: for NCHW a transposed view; its memory stays channels-last
    return (out if nhwc else out.transpose(0, 3, 1, 2)), cols


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
    memory). The input gradient: :func:`_rows_dx`."""
    n, c, _, _, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
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
        dx = _rows_dx(xp, d, w, g, nhwc)
    return dx, dw_


def _rows_dx(xp, d, w, g, nhwc):
    """The rows layout's input gradient (see :func:`_rows_input_grad` for ``d``), cut out of
    the padded image and copied out channels-last (``nhwc``) or NCHW."""
    (t, _, lft, _), h, wd = g[10], g[2], g[3]
    dx = _rows_input_grad(xp, d, w, g)[:, t:t + h, lft:lft + wd]
    return xp.ascontiguousarray(dx if nhwc else dx.transpose(0, 3, 1, 2))


def _rows_input_grad(xp, d, w, g):
    """The padded input gradient ``[N, Hp, Wp, C]`` of the rows layout (any memory layout)
    from ``d`` ``[N*OH*OW, M]`` (or any view shaped ``[N, OH / ph, ph, OW / pw, pw, M]``, as
    ``conv2d_pool2d_fusion`` passes its phase-ordered gradient): tap ``(i, j)``'s gradient
    ``d @ Filter[:, :, i, j]`` added onto the image, taps in row-major order.

    * batch-last (unit column stride and ``N >= C``, e.g. 20 -> 50 channels at batch 64):
      ``d`` copied as ``[OH, OW, N, M]`` (small), one GEMM ``Filter.T @ d.T`` gives every
      tap's block ``[C, OH, OW, N]`` at once (measured faster than ``kh * kw`` GEMMs of
      ``C`` columns each), added onto a ``[C, Hp, Wp, N]`` image in runs of ``OW * N``
      floats;
    * otherwise one batched GEMM gives every tap's ``[N, OH, OW, C]`` block, added onto a
      channels-last image in runs of ``OW * C`` (unit stride) or ``C`` floats."""
    n, c, h, wd, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
    hp, wp = h + t + b, wd + lft + r
    dtype = xp.result_type(d.dtype, w.dtype)
    if sw == 1 and n >= c:
        # NOTE: d's rows reordered to (h, w, n) in runs of M floats and passed transposed
        # (measured: the GEMM runs as fast as from a [M, OH*OW*N] copy, the copy twice as fast)
        dt = xp.empty((oh, ow, n, m), dtype=d.dtype)
        if d.ndim == 6:  # [N, QH, ph, QW, pw, M]: OH splits as (QH, ph), OW as (QW, pw)
            dt.reshape(d.shape[1:5] + (n, m))[...] = d.transpose(1, 2, 3, 4, 0, 5)
        else:
            dt[...] = d.reshape(n, oh, ow, m).transpose(1, 2, 0, 3)
        wt = w.transpose(2, 3, 1, 0).reshape(kh * kw * c, m)
        taps = xp.matmul(wt, dt.reshape(-1, m).T).reshape(kh, kw, c, oh, ow, n)
        img = xp.zeros((c, hp, wp, n), dtype=dtype)
        for i in range(kh):
            rows_i = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            for j in range(kw):
                img[:, rows_i, j * dw:j * dw + ow] += taps[i, j]
        return img.transpose(3, 1, 2, 0)
    # NOTE: one batched GEMM gives every tap's [N*OH*OW, C] block at once (measured
    # faster than a GEMM per tap into a reused buffer, at kh*kw times the memory)
    d = d.reshape(-1, m)  # NOTE: a copy for a phase-ordered view (rows by position)
    taps = xp.matmul(d, w.transpose(2, 3, 0, 1).reshape(kh * kw, m, c))
    taps = taps.reshape(kh, kw, n, oh, ow, c)
    img = xp.zeros((n, hp, wp, c), dtype=dtype)
    for i in range(kh):
        rows_i = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
        for j in range(kw):
            img[:, rows_i, j * dw:j * dw + sw * (ow - 1) + 1:sw] += taps[i, j]
    return img


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


_FUSED_ACTS = ("identity", "relu")


def _fused_setup(who, x_shape, w_shape, b_shape, strides, paddings, dilations, groups,
                 data_format, activation):
    """``(nhwc, geometry)`` of a fused convolution ``who``, its activation and its bias (one
    value per filter) checked."""
    nhwc = _check_format(data_format)
    if activation not in _FUSED_ACTS:
        raise ShapeError(f"{who}: activation must be one of {list(_FUSED_ACTS)}, got "
                         f"{activation!r}")
    g = _geometry(_nchw_shape(x_shape, nhwc), w_shape, strides, paddings, dilations, groups,
                  who=who)
    if tuple(b_shape) != (g[4],):
        raise ShapeError(f"{who}: Bias must have shape [{g[4]}] (one value per filter), got "
                         f"{list(b_shape)}")
    return nhwc, g


def _filter_bias_grads(xp, d, cols, w_shape, rows, need_w, need_b):
    """``(dFilter, dBias)`` of a fused convolution (each None unless wanted) from the output
    gradient rows ``d`` ``[R, M]`` and the windows ``cols`` the forward kept (rows
    ``[R, K + 1]`` or tap-major ``[K + 1, R]``, in the same row order as ``d``): one GEMM
    gives ``[dFilter | dBias]``."""
    dw_ = db = None
    if need_w:
        dwb = xp.matmul(d.T, cols) if rows else xp.matmul(cols, d).T  # [M, K + 1]
        m, c, kh, kw = w_shape
        if rows:  # K runs over (i, j, c)
            dw_ = dwb[:, :-1].reshape(m, kh, kw, c).transpose(0, 3, 1, 2)
        else:  # K runs over (c, i, j)
            dw_ = dwb[:, :-1].reshape(w_shape)
        dw_ = xp.ascontiguousarray(dw_)
        db = dwb[:, -1].copy() if need_b else None
    elif need_b:
        db = d.sum(axis=0)
    return dw_, db


@register_op
class conv2d_fusion(OpDef):
    """``act(conv2d(Input, Filter) + Bias)`` in one kernel (after Paddle's ``conv2d_fusion``),
    ``activation`` ``"identity"`` or ``"relu"``; see the module docstring. Eager ``Conv2D``
    layers use it; static programs keep Paddle's ``conv2d``, ``elementwise_add``, activation
    sequence, whose values and gradients it matches."""

    inputs = ("Input", "Filter", "Bias")
    outputs = ("Output", "Columns")
    nondiff_outputs = ("Columns",)
    attrs = dict(conv2d.attrs, activation="identity")

    def _setup(self, x_shape, w_shape, b_shape, strides, paddings, dilations, groups,
               data_format, activation):
        return _fused_setup("conv2d_fusion", x_shape, w_shape, b_shape, strides, paddings,
                            dilations, groups, data_format, activation)

    def infer(self, x, w, b, strides, paddings, dilations, groups, data_format, activation):
        nhwc, g = self._setup(x.shape, w.shape, b.shape, strides, paddings, dilations, groups,
                              data_format, activation)
        n, c, _, _, m, kh, kw, oh, ow = g[:9]
        out = (n, oh, ow, m) if nhwc else (n, m, oh, ow)
        if _uses_rows(g, groups):
            cols = (n * oh * ow if n >= 0 else -1, kh * kw * c + 1)
        elif groups == 1:
            cols = (kh * kw * c + 1, n * oh * ow if n >= 0 else -1)
        else:
            cols = (n, groups, c // groups * kh * kw + 1, oh * ow)
        dtype = ufunc_dtype(np.multiply, x.dtype, w.dtype)
        return Meta(out, dtype), Meta(cols, x.dtype)

    def forward(self, ctx, x, w, bias, strides, paddings, dilations, groups, data_format,
                activation):
        xp = ctx.xp
        nhwc, g = self._setup(x.shape, w.shape, bias.shape, strides, paddings, dilations,
                              groups, data_format, activation)
        if groups == 1:
            return _fused_gemm(xp, x, w, bias, g, nhwc, activation)
        # per sample and group: [N, groups, M/groups, OH*OW], NCHW
        n, m, oh, ow = g[0], g[4], g[7], g[8]
        cols = _per_sample(xp, x.transpose(0, 3, 1, 2) if nhwc else x, g, groups, ones=True)
        wb = xp.concatenate([w.reshape(groups, m // groups, -1),
                             bias.reshape(groups, m // groups, 1)], axis=2)
        out = xp.matmul(wb, cols).reshape(n, m, oh, ow)
        if activation == "relu":
            xp.maximum(out, 0, out=out)
        return (out.transpose(0, 2, 3, 1) if nhwc else out), cols

    def fast_kernel(self, xp, metas, strides, paddings, dilations, groups, data_format,
                    activation):
        x, w, b = metas
        if groups != 1 or x is None or w is None or b is None or len(x.shape) != 4 or \
                min(x.shape[1:]) < 0 or min(w.shape) < 0:
            return None
        nhwc, g = self._setup(x.shape, w.shape, b.shape, strides, paddings, dilations, groups,
                              data_format, activation)
        x_rest, w_shape, forward = tuple(x.shape[1:]), tuple(w.shape), self.forward
        ctx = KernelContext(xp, None)
        attrs = dict(strides=strides, paddings=paddings, dilations=dilations, groups=groups,
                     data_format=data_format, activation=activation)

        def kernel(x, w, bias):
            # NOTE: the bound geometry holds only for the declared shapes (see conv2d's)
            if x.shape[1:] != x_rest or w.shape != w_shape or bias.shape != w_shape[:1]:
                return forward(ctx, x, w, bias, **attrs)
            return _fused_gemm(xp, x, w, bias, (x.shape[0],) + g[1:], nhwc, activation)

        return kernel

    def backward(self, ctx, ins, outs, douts, strides, paddings, dilations, groups, data_format,
                 activation):
        xp = ctx.xp
        x, w, bias = ins
        out, cols = outs
        nhwc, g = self._setup(x.shape, w.shape, bias.shape, strides, paddings, dilations,
                              groups, data_format, activation)
        if groups > 1:
            return self._grouped_grads(xp, x, w, out, cols, douts[0], g, groups, nhwc,
                                       activation, ctx.needs_grad)
        n, m, oh, ow = g[0], g[4], g[7], g[8]
        need_x, need_w, need_b = ctx.needs_grad
        # rows and taps layouts: the output is channels-last rows [N*OH*OW, M] in memory
        d = xp.ascontiguousarray(douts[0] if nhwc else douts[0].transpose(0, 2, 3, 1))
        d = d.reshape(-1, m)
        if activation == "relu":
            d = d * ((out if nhwc else out.transpose(0, 2, 3, 1)).reshape(-1, m) > 0)
        dx = None
        rows = _uses_rows(g, groups)
        dw_, db = _filter_bias_grads(xp, d, cols, w.shape, rows, need_w, need_b)
        if need_x:
            d = d.reshape(n, oh, ow, m)
            if rows:
                dx = _rows_grads(xp, x, w, d, g, True, True, False)[0]
                dx = dx if nhwc else dx.transpose(0, 3, 1, 2)
            else:
                dx = _per_sample_grads(xp, x, w, d if nhwc else d.transpose(0, 3, 1, 2), g, 1,
                                       nhwc, True, False)[0]
        return dx, dw_, db

    @staticmethod
    def _grouped_grads(xp, x, w, out, cols, dout, g, groups, nhwc, activation, needs):
        need_x, need_w, need_b = needs
        m = g[4]
        d = dout * (out > 0) if activation == "relu" else dout
        d_nchw = d.transpose(0, 3, 1, 2) if nhwc else d
        dx = dw_ = db = None
        if need_w:
            d4 = d_nchw.reshape(g[0], groups, m // groups, -1)
            dwb = xp.matmul(d4, cols.transpose(0, 1, 3, 2)).sum(axis=0)
            dw_ = xp.ascontiguousarray(dwb[..., :-1]).reshape(w.shape)
            db = dwb[..., -1].reshape(m) if need_b else None
        elif need_b:
            db = d_nchw.sum(axis=(0, 2, 3))
        if need_x:
            dx = _per_sample_grads(xp, x, w, d, g, groups, nhwc, True, False)[0]
        return dx, dw_, db

"""``conv2d_pool2d_fusion``: ``max_pool(act(conv2d(Input, Filter) + Bias))`` in one kernel, for
max pooling whose windows tile the convolution's output exactly (window == stride, no padding),
``act`` ``"identity"`` or ``"relu"``.

The optimisation passes make it from a ``conv2d_fusion`` followed by a max ``pool2d`` that
alone reads its output (see :mod:`core.static.passes.fuse_conv`); eager layers never run it.

Why one op: pooling a channels-last map ``[N, OH, OW, M]`` over 2x2 tiles compares elements
``M`` floats apart, so every pooling pass (forward, and the four per-tap passes of its
gradient) runs over pieces of ``M`` contiguous floats. Here the GEMM writes the
convolution's output rows in *tile-phase order* ``(n, a, b, qy, qx)`` (output position
``(qy*ph + a, qx*pw + b)``) instead of ``(n, y, x)``: only the order of the window rows (or
tap-major columns) changes, the GEMM does not. Tap ``(a, b)`` of every window is then one
contiguous block ``[QH*QW*M]`` per sample, and pooling, the ReLU and the pooling gradient run
over those long blocks. The pooled output comes out channels-last, as ``conv2d_fusion``'s
does.

Outputs: ``Output`` (the pooled map), ``Columns`` (the windows, phase-ordered, as
``conv2d_fusion`` keeps them) and ``ConvOut`` (the pre-activation convolution output as
phase-ordered rows ``[N*OH*OW, M]``); the last two carry no gradient and serve the backward
pass: the pooling gradient (to each window's first maximum in row-major tap order, as
``pool2d`` routes it; with ReLU only windows whose maximum is positive pass anything), then
``[dFilter | dBias]`` as one GEMM with ``Columns``, and the input gradient with
``conv2d``'s kernels (the batch-last one reads the phase-ordered gradient directly).
"""
import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from ._windows import pair, pads4
from .conv import (_biased_gemm, _filter_bias_grads, _fused_setup, _per_sample_grads,
                   _rows_dx, _uses_rows)
from .pool import _max_grad
from .registry import KernelContext, Meta, OpDef, register_op

__all__ = ["conv2d_pool2d_fusion", "tiles_exactly"]

_POOL_ATTRS = {"pooling_type": "max", "ksize": [2, 2], "pool_strides": [2, 2],
               "pool_paddings": [0, 0]}


def tiles_exactly(oh, ow, ksize, strides, paddings):
    """Whether max-pooling windows ``ksize`` with ``strides`` and ``paddings`` tile an
    ``[oh, ow]`` map exactly (window == stride, no padding, sides divisible), which is what
    ``conv2d_pool2d_fusion`` supports."""
    ph, pw = pair(ksize, "ksize")
    if pair(strides, "strides") != (ph, pw) or any(pads4(paddings)) or min(ph, pw) < 1:
        return False
    return oh > 0 and ow > 0 and oh % ph == 0 and ow % pw == 0


def _forward(xp, x, w, bias, g, nhwc, activation, ph, pw, zeros=None):
    """``(Output, Columns, ConvOut)`` for validated geometry ``g`` (``groups == 1``);
    ``zeros(shape, dtype)``, when given, returns a read-only array of zeros for the ReLU."""
    n, m, oh, ow = g[0], g[4], g[7], g[8]
    pre, cols = _biased_gemm(xp, x, w, bias, g, nhwc, phases=(ph, pw))
    taps = pre.reshape(n, ph * pw, -1)  # [N, tap, QH*QW*M]
    out = xp.maximum(taps[:, 0], taps[:, 1]) if ph * pw > 1 else taps[:, 0].copy()
    for p in range(2, ph * pw):
        xp.maximum(out, taps[:, p], out=out)
    if activation == "relu":
        # NOTE: numpy's maximum against an array of zeros takes about half the time it takes
        # against the scalar 0 (same values, NaN kept)
        xp.maximum(out, 0 if zeros is None else zeros(out.shape, out.dtype), out=out)
    out = out.reshape(n, oh // ph, ow // pw, m)
    return (out if nhwc else out.transpose(0, 3, 1, 2)), cols, pre


def _pool_grad(xp, pre, out, dout, n, ph, pw, relu):
    """The gradient of the phase-ordered ``pre`` [N*OH*OW, M]: ``pool2d``'s max-pool gradient
    (each window's ``dout`` to its first maximum, taps in row-major order; with ``relu`` only
    windows whose activated maximum ``out`` is positive), run on the phase blocks seen as
    ``[N, QH*QW*M, ph, pw]``: one window per block element, whose taps are the blocks, so
    every pass runs over ``[QH*QW*M]`` contiguous floats."""
    s = out.size // n

    def windows(a):  # [N, ph*pw, S] memory as [N, S, ph, pw] (a view)
        return a.reshape(n, ph * pw, s).transpose(0, 2, 1).reshape(n, s, ph, pw)

    dpre = xp.empty_like(pre)
    _max_grad(xp, windows(pre), out.reshape(n, s, 1, 1), dout.reshape(n, s, 1, 1),
              windows(dpre), ph, pw, ph, pw, positive_only=relu)
    return dpre


def _backward(xp, x, w, out, cols, pre, dout, g, nhwc, activation, ph, pw, needs):
    need_x, need_w, need_b = needs
    n, m, oh, ow = g[0], g[4], g[7], g[8]
    qh, qw = oh // ph, ow // pw
    # the pooled map and its gradient channels-last, as the phase blocks hold them
    o = out if nhwc else out.transpose(0, 2, 3, 1)
    dl = xp.ascontiguousarray(dout if nhwc else dout.transpose(0, 2, 3, 1))
    d = _pool_grad(xp, pre, xp.ascontiguousarray(o), dl, n, ph, pw, activation == "relu")
    rows = _uses_rows(g, 1)
    dx = None
    dw_, db = _filter_bias_grads(xp, d, cols, w.shape, rows, need_w, need_b)
    if need_x:
        # [N, QH, ph, QW, pw, M]: the gradient by output position (a view of the phases)
        d6 = d.reshape(n, ph, pw, qh, qw, m).transpose(0, 3, 1, 4, 2, 5)
        if rows:
            dx = _rows_dx(xp, d6, w, g, True)  # channels-last
            dx = dx if nhwc else dx.transpose(0, 3, 1, 2)
        else:
            d4 = d6.reshape(n, oh, ow, m)  # NOTE: a copy (the phases interleave)
            dx = _per_sample_grads(xp, x, w, d4 if nhwc else d4.transpose(0, 3, 1, 2), g, 1,
                                   nhwc, True, False)[0]
    return dx, dw_, db


@register_op
class conv2d_pool2d_fusion(OpDef):
    """``max_pool(act(conv2d(Input, Filter) + Bias))`` with tiling max-pool windows
    (``ksize`` == ``pool_strides``, no ``pool_paddings``), ``groups == 1``, ``activation``
    ``"identity"`` or ``"relu"``; see the module docstring."""

    inputs = ("Input", "Filter", "Bias")
    outputs = ("Output", "Columns", "ConvOut")
    nondiff_outputs = ("Columns", "ConvOut")
    attrs = {"strides": [1, 1], "paddings": [0, 0], "dilations": [1, 1], "groups": 1,
             "data_format": "NCHW", "activation": "relu", **_POOL_ATTRS}

    def _setup(self, x_shape, w_shape, b_shape, strides, paddings, dilations, groups,
               data_format, activation, pooling_type, ksize, pool_strides, pool_paddings):
        who = "conv2d_pool2d_fusion"
        nhwc, g = _fused_setup(who, x_shape, w_shape, b_shape, strides, paddings, dilations,
                               groups, data_format, activation)
        if groups != 1:
            raise ShapeError(f"{who}: groups must be 1, got {groups}")
        if pooling_type != "max":
            raise ShapeError(f"{who}: pooling_type must be 'max', got {pooling_type!r}")
        oh, ow = g[7], g[8]
        if oh >= 0 and ow >= 0 and not tiles_exactly(oh, ow, ksize, pool_strides,
                                                     pool_paddings):
            raise ShapeError(f"{who}: the pooling windows must tile the convolution's "
                             f"[{oh}, {ow}] output exactly (ksize == pool_strides, no "
                             f"pool_paddings, sides divisible by ksize), got ksize {ksize}, "
                             f"pool_strides {pool_strides}, pool_paddings {pool_paddings}")
        ph, pw = pair(ksize, f"{who}: ksize")
        return nhwc, g, ph, pw

    def infer(self, x, w, b, **attrs):
        nhwc, g, ph, pw = self._setup(x.shape, w.shape, b.shape, **attrs)
        n, c, _, _, m, kh, kw, oh, ow = g[:9]
        qh = oh // ph if oh >= 0 else -1
        qw = ow // pw if ow >= 0 else -1
        out = (n, qh, qw, m) if nhwc else (n, m, qh, qw)
        rows = n * oh * ow if min(n, oh, ow) >= 0 else -1
        cols = (rows, kh * kw * c + 1) if _uses_rows(g, 1) else (kh * kw * c + 1, rows)
        dtype = ufunc_dtype(np.multiply, x.dtype, w.dtype)
        return Meta(out, dtype), Meta(cols, x.dtype), Meta((rows, m), dtype)

    def forward(self, ctx, x, w, bias, **attrs):
        nhwc, g, ph, pw = self._setup(x.shape, w.shape, bias.shape, **attrs)
        return _forward(ctx.xp, x, w, bias, g, nhwc, attrs["activation"], ph, pw)

    def fast_kernel(self, xp, metas, **attrs):
        x, w, b = metas
        if x is None or w is None or b is None or len(x.shape) != 4 or \
                min(x.shape[1:]) < 0 or min(w.shape) < 0:
            return None
        nhwc, g, ph, pw = self._setup(x.shape, w.shape, b.shape, **attrs)
        x_rest, w_shape, forward = tuple(x.shape[1:]), tuple(w.shape), self.forward
        ctx, activation = KernelContext(xp, None), attrs["activation"]
        kept = {}

        def zeros(shape, dtype):
            # NOTE: one per batch size and dtype, never written (only maximum reads it)
            z = kept.get((shape, dtype))
            if z is None:
                z = kept[(shape, dtype)] = xp.zeros(shape, dtype)
            return z

        def kernel(x, w, bias):
            # NOTE: the bound geometry holds only for the declared shapes (see conv2d's)
            if x.shape[1:] != x_rest or w.shape != w_shape or bias.shape != w_shape[:1]:
                return forward(ctx, x, w, bias, **attrs)
            return _forward(xp, x, w, bias, (x.shape[0],) + g[1:], nhwc, activation, ph, pw,
                            zeros)

        return kernel

    def backward(self, ctx, ins, outs, douts, **attrs):
        x, w, bias = ins
        out, cols, pre = outs
        nhwc, g, ph, pw = self._setup(x.shape, w.shape, bias.shape, **attrs)
        return _backward(ctx.xp, x, w, out, cols, pre, douts[0], g, nhwc, attrs["activation"],
                         ph, pw, ctx.needs_grad)

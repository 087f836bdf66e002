"""2-D convolution (``conv2d``), vectorised as im2col + one batched matmul over groups.

Layout: the padded input's windows are viewed (no copy) as ``[C, kh, kw, N, OH, OW]`` and
copied once into columns ``[groups, C/groups * kh * kw, N * OH * OW]``; the filter is
``[groups, M/groups, C/groups * kh * kw]``; one ``matmul`` gives ``[groups, M/groups, N*OH*OW]``.
Putting the long ``N * OH * OW`` axis last keeps the copy's inner loop long and the GEMM wide.
The op keeps no state between passes, so the backward pass rebuilds the columns from the
input (one copy) for ``dFilter`` (one matmul); ``dInput`` is one matmul plus ``col2im``, and
either is skipped when ``ctx.needs_grad`` says it is not wanted (a network's image input).
"""
import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from ._windows import col2im, out_size, pad_nchw, pads4, pair, window_view
from .registry import Meta, OpDef, register_op

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


def _group_matmul(xp, a, b):
    """``a @ b`` for stacks [g, ., .]; one plain 2-D GEMM when there is one group."""
    if a.shape[0] == 1:
        # NOTE: numpy's stacked matmul can be several times slower than the 2-D BLAS call.
        return xp.matmul(a[0], b[0])[None]
    return xp.matmul(a, b)


def _to_nchw(x, data_format):
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _from_nchw(x, data_format):
    return x.transpose(0, 2, 3, 1) if data_format == "NHWC" else x


def _check_format(data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"conv2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


@register_op
class conv2d(OpDef):
    """``Output[n, m] = sum_c Input[n, c] (*) Filter[m, c]`` within each group."""

    inputs = ("Input", "Filter")
    outputs = ("Output",)
    attrs = {"strides": [1, 1], "paddings": [0, 0], "dilations": [1, 1], "groups": 1,
             "data_format": "NCHW"}

    def infer(self, x, w, strides, paddings, dilations, groups, data_format):
        _check_format(data_format)
        xs = tuple(x.shape)
        if data_format == "NHWC" and len(xs) == 4:
            xs = (xs[0], xs[3], xs[1], xs[2])
        n, _, _, _, m, _, _, oh, ow, *_ = _geometry(xs, w.shape, strides, paddings, dilations,
                                                     groups)
        shape = (n, oh, ow, m) if data_format == "NHWC" else (n, m, oh, ow)
        return Meta(shape, ufunc_dtype(np.multiply, x.dtype, w.dtype))

    def forward(self, ctx, x, w, strides, paddings, dilations, groups, data_format):
        _check_format(data_format)
        xp = ctx.xp
        x = _to_nchw(x, data_format)
        g = _geometry(x.shape, w.shape, strides, paddings, dilations, groups)
        n, m, oh, ow = g[0], g[4], g[7], g[8]
        cols = self._cols(xp, x, g, groups)
        out = _group_matmul(xp, w.reshape(groups, m // groups, -1), cols)
        # NOTE: [g, M/g, N*OH*OW] -> [N, M, OH, OW] is the one transposing copy of the output.
        out = out.reshape(m, n, oh, ow).transpose(1, 0, 2, 3)
        return xp.ascontiguousarray(_from_nchw(out, data_format))

    @staticmethod
    def _cols(xp, x, g, groups):
        n, c, _, _, _, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
        xpad = pad_nchw(xp, x, t, b, lft, r)
        view = window_view(xp, xpad, kh, kw, oh, ow, sh, sw, dh, dw, order="cijnhw")
        return view.reshape(groups, (c // groups) * kh * kw, n * oh * ow)

    def backward(self, ctx, ins, outs, douts, strides, paddings, dilations, groups,
                 data_format):
        xp = ctx.xp
        x, w = ins
        x = _to_nchw(x, data_format)
        dout = _to_nchw(douts[0], data_format)
        g = _geometry(x.shape, w.shape, strides, paddings, dilations, groups)
        n, c, h, wd, m, kh, kw, oh, ow, (sh, sw), (t, b, lft, r), (dh, dw) = g
        need_x, need_w = ctx.needs_grad
        d2 = dout.transpose(1, 0, 2, 3).reshape(groups, m // groups, n * oh * ow)
        dw_ = dx = None
        if need_w:
            cols = self._cols(xp, x, g, groups)
            dw_ = _group_matmul(xp, d2, cols.transpose(0, 2, 1)).reshape(w.shape)
        if need_x:
            wg = w.reshape(groups, m // groups, -1)
            dcols = _group_matmul(xp, wg.transpose(0, 2, 1), d2).reshape(c, kh, kw, n, oh, ow)
            img = col2im(xp, dcols.transpose(1, 2, 0, 3, 4, 5), h + t + b, wd + lft + r,
                         sh, sw, dh, dw)
            dx = img[:, :, t:t + h, lft:lft + wd].transpose(1, 0, 2, 3)
            dx = xp.ascontiguousarray(_from_nchw(dx, data_format))
        return dx, dw_

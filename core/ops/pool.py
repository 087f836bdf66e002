"""2-D max / average pooling (``pool2d``), vectorised.

Four paths, chosen from the attributes:

* tiles (stride equal to ksize, no padding, every window inside the image, e.g. the common
  2x2/2 pool): the image is viewed (no copy) as ``[N, C, OH, kh, OW, kw]``; the forward pass
  combines the ``kh`` rows of each window over whole contiguous rows, then the ``kw`` columns
  (the gradient takes the windows path: a mask-based variant measured slower);
* windows (any ksize, stride, padding, ``ceil_mode``): one loop over the ``kh * kw`` kernel
  taps, each a strided slice of the padded image covering every output position at once,
  combined with ``maximum`` / ``+`` (cheap strided passes, where
  numpy reduces a ``[N, C, OH, 2, OW, 2]`` reshape over axes (3, 5) tens of times slower);
* global pooling: a reduction over the two contiguous spatial axes;
* ``adaptive``: ``ksize`` is the output size and window ``i`` covers
  ``[floor(i*H/OH), ceil((i+1)*H/OH))``; average pooling is then two small matrix products,
  max pooling a gather of the (padded-by-repetition) windows.

Max pooling sends the gradient to the first maximum of a window in row-major order (Paddle's
rule), so tied inputs, common after a ReLU, never receive it twice.

The kernels keep the memory layout of their input: an NCHW-shaped array whose memory is
channels-last (what ``conv2d_fusion`` returns) gives an output and a gradient laid out the
same way, so the taps run over runs of C contiguous floats rather than over strided rows.
"""
import numpy as np

from ._shapes import ShapeError
from ._windows import empty_like_layout, memory_order, out_size, pad_nchw, pads4, pair, tap
from .registry import KernelContext, Meta, OpDef, register_op

__all__ = ["pool2d"]


def _plan(shape, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode, adaptive):
    """``(mode, kh, kw, sh, sw, (t, b, lft, r), OH, OW)`` for an NCHW input ``shape``."""
    if len(shape) != 4:
        raise ShapeError(f"pool2d: X must be 4-D, got shape {list(shape)}")
    if pooling_type not in ("max", "avg"):
        raise ShapeError(f"pool2d: pooling_type must be 'max' or 'avg', got {pooling_type!r}")
    h, w = shape[2], shape[3]
    if global_pooling:
        return "global", h, w, 1, 1, (0, 0, 0, 0), 1, 1
    kh, kw = pair(ksize, "pool2d: ksize")
    if min(kh, kw) < 1:
        raise ShapeError(f"pool2d: ksize must be >= 1, got {ksize}")
    if adaptive:
        return "adaptive", kh, kw, 1, 1, (0, 0, 0, 0), kh, kw
    sh, sw = pair(strides, "pool2d: strides")
    if min(sh, sw) < 1:
        raise ShapeError(f"pool2d: strides must be >= 1, got {strides}")
    pads = pads4(paddings, "pool2d: paddings")
    t, b, lft, r = pads
    oh = out_size(h, kh, sh, t, b, ceil_mode=ceil_mode)
    ow = out_size(w, kw, sw, lft, r, ceil_mode=ceil_mode)
    if oh == 0 or ow == 0:
        raise ShapeError(f"pool2d: window {[kh, kw]} does not fit the padded input "
                         f"{[h + t + b, w + lft + r]}")
    return "window", kh, kw, sh, sw, pads, oh, ow


def _first_max_onehot(xp, windows, dout):
    """``windows`` [..., K] and ``dout`` [...] -> ``dout`` placed at each first argmax."""
    idx = windows.argmax(axis=-1)
    hit = xp.arange(windows.shape[-1]) == idx[..., None]
    return hit * dout[..., None]


def _adaptive_bounds(xp, size, n_out):
    """Window starts and lengths of adaptive pooling along one axis."""
    o = xp.arange(n_out)
    start = (o * size) // n_out
    end = -((-(o + 1) * size) // n_out)
    return start, end - start


class _Geometry:
    """The padded image geometry of the general window path."""

    def __init__(self, x_shape, kh, kw, sh, sw, pads, oh, ow):
        _, _, h, w = x_shape
        t, b, lft, r = pads
        # NOTE: ceil_mode may let the last window run past the padding; pad that much more.
        b = max(b, (oh - 1) * sh + kh - h - t)
        r = max(r, (ow - 1) * sw + kw - w - lft)
        self.pads, self.h, self.w = (t, b, lft, r), h, w
        self.hp, self.wp = h + t + b, w + lft + r


def _exclusive_count(xp, h, w, kh, kw, sh, sw, t, lft, oh, ow, dtype):
    """Paddle's divisor for exclusive average pooling: in-image elements of each window."""
    hs = xp.arange(oh) * sh - t
    ws = xp.arange(ow) * sw - lft
    ch = xp.minimum(hs + kh, h) - xp.maximum(hs, 0)
    cw = xp.minimum(ws + kw, w) - xp.maximum(ws, 0)
    count = xp.maximum(ch[:, None] * cw[None, :], 1)  # an all-padding window divides by 1
    return count.astype(dtype)


@register_op
class pool2d(OpDef):
    """Max or average pooling over ``ksize`` windows of an NCHW (or NHWC) image."""

    attrs = {"pooling_type": "max", "ksize": [1, 1], "strides": [1, 1], "paddings": [0, 0],
             "global_pooling": False, "ceil_mode": False, "exclusive": True, "adaptive": False,
             "data_format": "NCHW"}

    def infer(self, x, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode,
              exclusive, adaptive, data_format):
        shape = _nchw_shape(x.shape, data_format)
        plan = _plan(shape, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode,
                     adaptive)
        out = (shape[0], shape[1], plan[6], plan[7])
        if data_format == "NHWC":
            out = (out[0], out[2], out[3], out[1])
        return Meta(out, x.dtype)

    def fast_kernel(self, xp, metas, pooling_type, ksize, strides, paddings, global_pooling,
                    ceil_mode, exclusive, adaptive, data_format):
        x = metas[0]
        if x is None or len(x.shape) != 4 or min(x.shape[1:]) < 0 or global_pooling or \
                adaptive or data_format != "NCHW":
            return None
        _, kh, kw, sh, sw, pads, oh, ow = _plan(x.shape, pooling_type, ksize, strides, paddings,
                                                global_pooling, ceil_mode, adaptive)
        is_max, rest = pooling_type == "max", tuple(x.shape[1:])
        if not _tiles(rest[1], rest[2], np.dtype(x.dtype), kh, kw, sh, sw, pads, oh, ow,
                      is_max):
            return None
        attrs = dict(pooling_type=pooling_type, ksize=ksize, strides=strides, paddings=paddings,
                     global_pooling=False, ceil_mode=ceil_mode, exclusive=exclusive,
                     adaptive=False, data_format=data_format)
        forward, ctx = self.forward, KernelContext(xp, None)

        def kernel(x):
            if x.shape[1:] != rest:  # NOTE: not the declared shape: take the checked path
                return forward(ctx, x, **attrs)
            return _tiled_pool(xp, x, kh, kw, oh, ow, is_max).astype(x.dtype, copy=False)

        return kernel

    def forward(self, ctx, x, pooling_type, ksize, strides, paddings, global_pooling, ceil_mode,
                exclusive, adaptive, data_format):
        xp = ctx.xp
        x = _to_nchw(x, data_format)
        mode, kh, kw, sh, sw, pads, oh, ow = _plan(x.shape, pooling_type, ksize, strides,
                                                   paddings, global_pooling, ceil_mode,
                                                   adaptive)
        is_max = pooling_type == "max"
        if mode == "global":
            out = x.max(axis=(2, 3), keepdims=True) if is_max else \
                x.mean(axis=(2, 3), keepdims=True, dtype=x.dtype)
        elif mode == "adaptive":
            out = _adaptive_max(xp, x, oh, ow)[0] if is_max else \
                xp.einsum("oh,nchw,pw->ncop", *_adaptive_mats(xp, x, oh, ow))
        elif _tiles(x.shape[2], x.shape[3], x.dtype, kh, kw, sh, sw, pads, oh, ow, is_max):
            out = _tiled_pool(xp, x, kh, kw, oh, ow, is_max)
        else:
            geo = _Geometry(x.shape, kh, kw, sh, sw, pads, oh, ow)
            t, b, lft, r = geo.pads
            xpad = pad_nchw(xp, x, t, b, lft, r, _lowest(xp, x.dtype) if is_max else 0)
            out = xpad[tap(0, 0, oh, ow, sh, sw)].copy(order="K")  # keep the layout
            combine = xp.maximum if is_max else xp.add
            for i in range(kh):
                for j in range(kw):
                    if i or j:
                        combine(out, xpad[tap(i, j, oh, ow, sh, sw)], out=out)
            if not is_max:
                out /= self._divisor(xp, geo, kh, kw, sh, sw, oh, ow, exclusive, x.dtype)
        return _from_nchw(out.astype(x.dtype, copy=False), data_format)

    @staticmethod
    def _divisor(xp, geo, kh, kw, sh, sw, oh, ow, exclusive, dtype):
        if not exclusive:
            return dtype.type(kh * kw)
        t, _, lft, _ = geo.pads
        return _exclusive_count(xp, geo.h, geo.w, kh, kw, sh, sw, t, lft, oh, ow, dtype)

    def backward(self, ctx, ins, outs, douts, pooling_type, ksize, strides, paddings,
                 global_pooling, ceil_mode, exclusive, adaptive, data_format):
        return self.grad(ctx, ins[0], outs[0], douts[0], pooling_type, ksize, strides,
                         paddings, global_pooling, ceil_mode, exclusive, adaptive, data_format)

    def grad(self, ctx, x, out, dout, pooling_type, ksize, strides, paddings, global_pooling,
             ceil_mode, exclusive, adaptive, data_format, positive_only=False):
        """``(dX,)``; with ``positive_only`` (max pooling only) windows whose ``out`` is not
        positive pass nothing, as if ``dout`` were masked with ``out > 0`` first: what the
        gradient of ``relu(max_pool(X))`` is, given its output ``out``."""
        xp = ctx.xp
        x = _to_nchw(x, data_format)
        dout = _to_nchw(dout, data_format)
        out = _to_nchw(out, data_format)
        mode, kh, kw, sh, sw, pads, oh, ow = _plan(x.shape, pooling_type, ksize, strides,
                                                   paddings, global_pooling, ceil_mode,
                                                   adaptive)
        is_max = pooling_type == "max"
        if positive_only and (not is_max or mode != "window"):
            dout = dout * (out > 0)
            positive_only = False
        n, c, h, w = x.shape
        if mode == "global":
            if is_max:
                dx = _first_max_onehot(xp, x.reshape(n, c, h * w), dout.reshape(n, c))
            else:
                dx = xp.broadcast_to(dout / x.dtype.type(h * w), x.shape)
            dx = dx.reshape(x.shape)
        elif mode == "adaptive":
            dx = _adaptive_max_grad(xp, x, dout, oh, ow) if is_max else \
                _adaptive_avg_grad(xp, x, dout, oh, ow)
        else:
            geo = _Geometry(x.shape, kh, kw, sh, sw, pads, oh, ow)
            t, b, lft, r = geo.pads
            # NOTE: max windows that tile the padded image exactly write every pixel once.
            exact = is_max and (sh, sw) == (kh, kw) and (geo.hp, geo.wp) == (oh * kh, ow * kw)
            img = empty_like_layout(xp, (n, c, geo.hp, geo.wp), x.dtype, x)
            if not exact:
                img[...] = 0
            if is_max:
                _max_grad(xp, pad_nchw(xp, x, t, b, lft, r, _lowest(xp, x.dtype)), out, dout,
                          img, kh, kw, sh, sw, positive_only)
            else:
                d = dout / self._divisor(xp, geo, kh, kw, sh, sw, oh, ow, exclusive, x.dtype)
                for i in range(kh):
                    for j in range(kw):
                        img[tap(i, j, oh, ow, sh, sw)] += d.astype(x.dtype, copy=False)
            dx = img[:, :, t:t + h, lft:lft + w]
        return (_from_nchw(dx.astype(x.dtype, copy=False), data_format),)


def _max_grad(xp, xpad, out, dout, img, kh, kw, sh, sw, positive_only=False):
    """Write (disjoint windows) or add ``dout`` into ``img`` at each window's first maximum,
    tap by tap. With ``positive_only`` only windows whose maximum ``out`` is positive take
    part (the gradient of ``relu(max_pool(X))``): ``dout`` needs no mask, and a window
    still unmatched at the last tap has its maximum there, so that tap needs no comparison.

    Each written value is ``hit * dout`` (``0 * dout`` where nothing is hit, a zero of
    ``dout``'s sign), as the masked ``dout * (out > 0)`` gave."""
    oh, ow = out.shape[2:]
    disjoint = sh >= kh and sw >= kw
    # NOTE: `free` marks windows whose maximum was not met yet; scanning the taps in
    # row-major order gives the first maximum, with no argmax copy of the windows.
    free = xp.greater(out, 0) if positive_only else xp.ones_like(out, dtype=bool)
    hit = xp.empty_like(free)
    if memory_order(dout) != memory_order(out):
        dout2 = xp.empty_like(out)
        dout2[...] = dout
        dout = dout2
    last = (kh - 1, kw - 1)
    for i in range(kh):
        for j in range(kw):
            idx = tap(i, j, oh, ow, sh, sw)
            if positive_only and (i, j) == last:
                hit = free  # NOTE: every window still free has its (positive) maximum here
            else:
                xp.equal(xpad[idx], out, out=hit)
                hit &= free
            if disjoint:  # each pixel is in at most one window: write, do not add
                xp.multiply(hit, dout, out=img[idx])
            else:
                img[idx] += hit * dout
            if hit is not free:
                free ^= hit  # hit is a subset of free


def _tiles(h, w, dtype, kh, kw, sh, sw, pads, oh, ow, is_max):
    """Whether the windows tile the [h, w] image: stride == ksize, no padding, all inside."""
    return (sh, sw) == (kh, kw) and not any(pads) and oh * kh <= h and ow * kw <= w and \
        (is_max or dtype.kind == "f")


def _tile_view(x, kh, kw, oh, ow):
    """The windows of a tiled pool as a view ``[N, C, OH, kh, OW, kw]`` of ``x``."""
    n, c = x.shape[:2]
    return x[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw)


def _tiled_pool(xp, x, kh, kw, oh, ow, is_max):
    v = _tile_view(x, kh, kw, oh, ow)
    combine = xp.maximum if is_max else xp.add
    rows = combine(v[:, :, :, 0], v[:, :, :, 1]) if kh > 1 else v[:, :, :, 0]
    for i in range(2, kh):
        combine(rows, v[:, :, :, i], out=rows)
    out = combine(rows[..., 0], rows[..., 1]) if kw > 1 else rows[..., 0].copy(order="K")
    for j in range(2, kw):
        combine(out, rows[..., j], out=out)
    if not is_max:
        out /= x.dtype.type(kh * kw)
    return out


def _adaptive_max(xp, x, oh, ow):
    """``(out, windows, row index, column index)`` of adaptive max pooling."""
    ih = _adaptive_index(xp, x.shape[2], oh)
    iw = _adaptive_index(xp, x.shape[3], ow)
    # NOTE: shorter windows repeat their last element, which changes no maximum.
    wins = x[:, :, ih[:, :, None, None], iw[None, None, :, :]]  # [N, C, OH, Lh, OW, Lw]
    return wins.max(axis=(3, 5)), wins, ih, iw


def _adaptive_max_grad(xp, x, dout, oh, ow):
    n, c = x.shape[:2]
    _, wins, ih, iw = _adaptive_max(xp, x, oh, ow)
    lh, lw = ih.shape[1], iw.shape[1]
    flat = wins.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, lh * lw)
    g = _first_max_onehot(xp, flat, dout).reshape(n, c, oh, ow, lh, lw)
    rows = xp.broadcast_to(ih[:, None, :, None], (oh, ow, lh, lw))
    colz = xp.broadcast_to(iw[None, :, None, :], (oh, ow, lh, lw))
    dx = xp.zeros_like(x)
    xp.add.at(dx, (slice(None), slice(None), rows, colz), g)
    return dx


def _adaptive_index(xp, size, n_out):
    """[n_out, L] input indices of each adaptive window, the last one repeated to length L."""
    start, length = _adaptive_bounds(xp, size, n_out)
    longest = int(length.max())
    steps = xp.minimum(xp.arange(longest)[None, :], (length - 1)[:, None])
    return start[:, None] + steps


def _adaptive_mats(xp, x, oh, ow):
    """``(A_h [OH, H], x, A_w [OW, W])`` whose product is adaptive average pooling."""
    return _avg_matrix(xp, x.shape[2], oh, x.dtype), x, _avg_matrix(xp, x.shape[3], ow, x.dtype)


def _avg_matrix(xp, size, n_out, dtype):
    start, length = _adaptive_bounds(xp, size, n_out)
    i = xp.arange(size)[None, :]
    inside = (i >= start[:, None]) & (i < (start + length)[:, None])
    return (inside / length[:, None]).astype(dtype)


def _adaptive_avg_grad(xp, x, dout, oh, ow):
    a_h, _, a_w = _adaptive_mats(xp, x, oh, ow)
    return xp.einsum("oh,ncop,pw->nchw", a_h, dout, a_w)


def _lowest(xp, dtype):
    return -xp.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _nchw_shape(shape, data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"pool2d: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    shape = tuple(shape)
    if data_format == "NHWC" and len(shape) == 4:
        return shape[0], shape[3], shape[1], shape[2]
    return shape


def _to_nchw(x, data_format):
    _nchw_shape(x.shape, data_format)
    return x.transpose(0, 3, 1, 2) if data_format == "NHWC" else x


def _from_nchw(x, data_format):
    return x.transpose(0, 2, 3, 1) if data_format == "NHWC" else x

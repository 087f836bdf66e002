"""Sliding-window helpers shared by the convolution and pooling kernels.

Windows are strided *views* of a padded NCHW array (``as_strided`` of ``ctx.xp``), so forming
them copies nothing; a kernel copies once when it lays the windows out for a matmul or a
reduction. ``col2im`` is the adjoint: it adds per-window gradients back onto the image with
one vectorised slice-add per kernel position (``kh * kw`` of them), never per pixel.
"""
from ._shapes import ShapeError

__all__ = ["col2im", "empty_like_layout", "memory_order", "out_size", "pad_nchw", "padded_nhwc",
           "pads4", "pair", "tap", "window_view"]


def pair(v, what):
    """An int or a 1/2-element list as a 2-tuple of int."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return int(v[0]), int(v[0])
        if len(v) == 2:
            return int(v[0]), int(v[1])
        raise ShapeError(f"{what} must have 2 elements, got {list(v)}")
    return int(v), int(v)


def pads4(paddings, what="paddings"):
    """``[ph, pw]`` or ``[top, bottom, left, right]`` as ``(top, bottom, left, right)``."""
    if isinstance(paddings, (list, tuple)) and len(paddings) == 4:
        t, b, lft, r = (int(p) for p in paddings)
    else:
        ph, pw = pair(paddings, what)
        t, b, lft, r = ph, ph, pw, pw
    if min(t, b, lft, r) < 0:
        raise ShapeError(f"{what} must be >= 0, got {list(paddings)}")
    return t, b, lft, r


def out_size(size, k, stride, pad_lo, pad_hi, dilation=1, ceil_mode=False):
    """Output length of a window of ``k`` taps over ``size`` (-1 when ``size`` is -1)."""
    if size < 0:
        return -1
    span = dilation * (k - 1) + 1
    extent = size + pad_lo + pad_hi - span
    if extent < 0:
        return 0
    if ceil_mode:
        return -(-extent // stride) + 1
    return extent // stride + 1


def memory_order(a):
    """The axes of ``a`` from the outermost to the innermost in memory (ties keep their
    order): ``(0, 1, 2, 3)`` for a C-contiguous NCHW array, ``(0, 2, 3, 1)`` for one whose
    memory is channels-last."""
    return tuple(sorted(range(a.ndim), key=lambda i: -abs(a.strides[i])))


def empty_like_layout(xp, shape, dtype, like):
    """An uninitialised array of ``shape`` whose memory orders the axes as ``like`` does
    (``like`` may differ in size, e.g. the unpadded image of a padded gradient)."""
    order = memory_order(like)
    buf = xp.empty(tuple(shape[a] for a in order), dtype=dtype)
    return buf.transpose(tuple(order.index(a) for a in range(len(order))))


def pad_nchw(xp, x, t, b, lft, r, value=0):
    """``x`` [N, C, H, W] padded on H and W, in ``x``'s memory layout (no copy when nothing
    is padded)."""
    if not (t or b or lft or r):
        return x
    n, c, h, w = x.shape
    out = empty_like_layout(xp, (n, c, h + t + b, w + lft + r), x.dtype, x)
    out[...] = value
    out[:, :, t:t + h, lft:lft + w] = x
    return out


def padded_nhwc(xp, x, t, b, lft, r):
    """A contiguous channels-last copy of ``x`` [N, H, W, C] (any strides) padded with zeros on
    H and W; ``x`` itself when it is already contiguous and nothing is padded."""
    if not (t or b or lft or r):
        return xp.ascontiguousarray(x)
    n, h, w, c = x.shape
    out = xp.zeros((n, h + t + b, w + lft + r, c), dtype=x.dtype)
    out[:, t:t + h, lft:lft + w] = x
    return out


def window_view(xp, x, kh, kw, oh, ow, sh, sw, dh=1, dw=1, order="nchwij"):
    """A strided view of the windows of ``x`` [N, C, H, W] (already padded).

    ``order`` names the view's axes: ``n`` batch, ``c`` channel, ``h``/``w`` output position,
    ``i``/``j`` kernel tap. The view reads ``x[n, c, h*sh + i*dh, w*sw + j*dw]``.
    """
    sn, sc, s_h, s_w = x.strides
    dims = {"n": (x.shape[0], sn), "c": (x.shape[1], sc), "h": (oh, s_h * sh),
            "w": (ow, s_w * sw), "i": (kh, s_h * dh), "j": (kw, s_w * dw)}
    shape = tuple(dims[a][0] for a in order)
    strides = tuple(dims[a][1] for a in order)
    # NOTE: a read-only view; every caller copies (reshape/max/sum) before writing anything.
    return xp.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)


def tap(i, j, oh, ow, sh, sw, dh=1, dw=1):
    """The index ``(..., rows, cols)`` of kernel tap ``(i, j)`` across all output positions:
    ``img[tap(...)]`` is the [..., OH, OW] array of the pixels that tap reads."""
    hs, ws = i * dh, j * dw
    return (Ellipsis, slice(hs, hs + sh * (oh - 1) + 1, sh), slice(ws, ws + sw * (ow - 1) + 1, sw))


def col2im(xp, cols, hp, wp, sh, sw, dh=1, dw=1, channels_last=False):
    """Adjoint of :func:`window_view` with order ``"ijnchw"``-like input.

    ``cols`` has shape [kh, kw, A, B, OH, OW] (A, B any leading image axes, any strides);
    returns the padded image gradient [A, B, hp, wp], summing overlapping windows. With
    ``channels_last`` the result is a view of a contiguous [A, hp, wp, B] array: pass ``cols``
    whose [A, OH, OW, B] taps are contiguous and every slice-add runs over long rows.
    """
    kh, kw, a, b, oh, ow = cols.shape
    if channels_last:
        img = xp.zeros((a, hp, wp, b), dtype=cols.dtype).transpose(0, 3, 1, 2)
    else:
        img = xp.zeros((a, b, hp, wp), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            img[tap(i, j, oh, ow, sh, sw, dh, dw)] += cols[i, j]
    return img

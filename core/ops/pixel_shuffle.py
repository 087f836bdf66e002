"""``pixel_shuffle``: the sub-pixel rearrangement of ESPCN super-resolution, as Paddle defines it.

With ``r = upscale_factor``, ``X`` ``[N, C * r * r, H, W]`` becomes ``[N, C, H * r, W * r]``:
``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]`` (NHWC: the channel
axis last, the same channel order). The gradient is the inverse rearrangement.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["pixel_shuffle"]


def _check(shape, r, data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"pixel_shuffle: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if len(shape) != 4:
        raise ShapeError(f"pixel_shuffle: X must be 4-D, got shape {list(shape)}")
    if r < 1:
        raise ShapeError(f"pixel_shuffle: upscale_factor must be >= 1, got {r}")
    c = shape[3] if data_format == "NHWC" else shape[1]
    if c >= 0 and c % (r * r):
        raise ShapeError(f"pixel_shuffle: the channel dim of X ({c}) must be divisible by "
                         f"upscale_factor ** 2 ({r * r})")


def _shuffle(x, r, nhwc):
    if nhwc:
        n, h, w, c = x.shape
        y = x.reshape(n, h, w, c // (r * r), r, r).transpose(0, 1, 4, 2, 5, 3)
        return y.reshape(n, h * r, w * r, c // (r * r))
    n, c, h, w = x.shape
    y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (r * r), h * r, w * r)


def _unshuffle(y, r, nhwc):
    """The adjoint (and inverse) of :func:`_shuffle`."""
    if nhwc:
        n, hr, wr, c = y.shape
        x = y.reshape(n, hr // r, r, wr // r, r, c).transpose(0, 1, 3, 5, 2, 4)
        return x.reshape(n, hr // r, wr // r, c * r * r)
    n, c, hr, wr = y.shape
    x = y.reshape(n, c, hr // r, r, wr // r, r).transpose(0, 1, 3, 5, 2, 4)
    return x.reshape(n, c * r * r, hr // r, wr // r)


def _times(d, k):
    return d * k if d >= 0 else -1


@register_op
class pixel_shuffle(OpDef):
    """Paddle's ``pixel_shuffle``; see the module docstring."""

    attrs = {"upscale_factor": 1, "data_format": "NCHW"}

    def infer(self, x, upscale_factor, data_format):
        r = upscale_factor
        _check(x.shape, r, data_format)
        if data_format == "NHWC":
            n, h, w, c = x.shape
            return Meta((n, _times(h, r), _times(w, r), c // (r * r) if c >= 0 else -1),
                        x.dtype)
        n, c, h, w = x.shape
        return Meta((n, c // (r * r) if c >= 0 else -1, _times(h, r), _times(w, r)), x.dtype)

    def forward(self, ctx, x, upscale_factor, data_format):
        _check(x.shape, upscale_factor, data_format)
        return _shuffle(x, upscale_factor, data_format == "NHWC")

    def backward(self, ctx, ins, outs, douts, upscale_factor, data_format):
        return (_unshuffle(douts[0], upscale_factor, data_format == "NHWC"),)

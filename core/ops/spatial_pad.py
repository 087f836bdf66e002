"""Padding of the spatial axes: ``pad2d`` (fluid's op, ``[top, bottom, left, right]``) and
``pad3d`` (Paddle 2.x's, ``[left, right, top, bottom, front, back]``), in four modes.

* ``constant``: ``pad_value`` around the input;
* ``reflect``: mirrored without repeating the edge (``d c b | a b c d | c b a``), each pad
  smaller than its axis;
* ``replicate`` (fluid's ``edge``): the edge value repeated;
* ``circular``: the axis wrapped around (``b c d | a b c d | a b c``), each pad at most its
  axis.

Every mode but ``constant`` is a gather along each padded axis with a precomputed source
index (``take``), and its gradient is the adjoint scatter: one ``[out, in]`` 0/1 matrix per
axis applied to the output gradient (a GEMM, no loop over elements).
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["pad2d", "pad3d", "pad_source_index"]

_MODES = ("constant", "reflect", "replicate", "edge", "circular")


def pad_source_index(xp, size, lo, hi, mode):
    """The input index each of the ``lo + size + hi`` output positions reads along one axis."""
    i = xp.arange(-lo, size + hi)
    if mode == "reflect":
        period = 2 * (size - 1)
        j = xp.abs(i) % period if period else xp.zeros_like(i)
        return xp.where(j >= size, period - j, j)
    if mode == "circular":
        return i % size
    return xp.clip(i, 0, size - 1)


class _SpatialPad(OpDef):
    """Shared kernel of ``pad2d`` and ``pad3d``: ``order`` maps the ``paddings`` attribute
    to ``(lo, hi)`` per spatial axis, outermost first."""

    formats = ()
    order = ()

    def _plan(self, shape, paddings, mode, data_format):
        who = self.type
        if mode not in _MODES:
            raise ShapeError(f"{who}: mode must be one of {list(_MODES)}, got {mode!r}")
        if data_format not in self.formats:
            raise ShapeError(f"{who}: data_format must be one of {list(self.formats)}, got "
                             f"{data_format!r}")
        d = len(self.order)
        if len(shape) != d + 2:
            raise ShapeError(f"{who}: X must be {d + 2}-D ({data_format}), got shape "
                             f"{list(shape)}")
        if len(paddings) != 2 * d or min(paddings) < 0:
            raise ShapeError(f"{who}: paddings must be {2 * d} ints >= 0, got {list(paddings)}")
        axes = list(range(2, d + 2)) if data_format[1] == "C" else list(range(1, d + 1))
        pads = [(int(paddings[a]), int(paddings[b])) for a, b in self.order]
        for ax, (lo, hi) in zip(axes, pads):
            size = shape[ax]
            if size < 0:
                continue
            if mode == "reflect" and max(lo, hi) >= size:
                raise ShapeError(f"{who}: reflect padding {[lo, hi]} must be smaller than the "
                                 f"padded axis (size {size}) of X {list(shape)}")
            if mode == "circular" and max(lo, hi) > size:
                raise ShapeError(f"{who}: circular padding {[lo, hi]} must not exceed the "
                                 f"padded axis (size {size}) of X {list(shape)}")
        return axes, pads

    def infer(self, x, paddings, mode, pad_value, data_format):
        axes, pads = self._plan(x.shape, paddings, mode, data_format)
        shape = list(x.shape)
        for ax, (lo, hi) in zip(axes, pads):
            shape[ax] = -1 if shape[ax] < 0 else shape[ax] + lo + hi
        return Meta(tuple(shape), x.dtype)

    def forward(self, ctx, x, paddings, mode, pad_value, data_format):
        xp = ctx.xp
        axes, pads = self._plan(x.shape, paddings, mode, data_format)
        if mode == "constant":
            widths = [(0, 0)] * x.ndim
            for ax, p in zip(axes, pads):
                widths[ax] = p
            return xp.pad(x, widths, mode="constant", constant_values=pad_value)
        for ax, (lo, hi) in zip(axes, pads):
            x = xp.take(x, pad_source_index(xp, x.shape[ax], lo, hi, mode), axis=ax)
        return x

    def backward(self, ctx, ins, outs, douts, paddings, mode, pad_value, data_format):
        xp = ctx.xp
        x, d = ins[0], douts[0]
        axes, pads = self._plan(x.shape, paddings, mode, data_format)
        if mode == "constant":
            crop = [slice(None)] * x.ndim
            for ax, (lo, _), size in zip(axes, pads, [x.shape[a] for a in axes]):
                crop[ax] = slice(lo, lo + size)
            return (xp.ascontiguousarray(d[tuple(crop)]),)
        for ax, (lo, hi) in zip(axes, pads):
            size = x.shape[ax]
            idx = pad_source_index(xp, size, lo, hi, mode)
            scatter = (idx[None, :] == xp.arange(size)[:, None]).astype(d.dtype)  # [in, out]
            d = xp.moveaxis(xp.matmul(xp.moveaxis(d, ax, -1), scatter.T), -1, ax)
        return (xp.ascontiguousarray(d),)


@register_op
class pad2d(_SpatialPad):
    """Pad H and W of an NCHW / NHWC ``X``; ``paddings`` is ``[top, bottom, left, right]``."""

    attrs = {"paddings": [0, 0, 0, 0], "mode": "constant", "pad_value": 0.0,
             "data_format": "NCHW"}
    formats = ("NCHW", "NHWC")
    order = ((0, 1), (2, 3))


@register_op
class pad3d(_SpatialPad):
    """Pad D, H and W of an NCDHW / NDHWC ``X``; ``paddings`` is ``[left, right, top, bottom,
    front, back]`` (Paddle's order: the last axis first)."""

    attrs = {"paddings": [0, 0, 0, 0, 0, 0], "mode": "constant", "pad_value": 0.0,
             "data_format": "NCDHW"}
    formats = ("NCDHW", "NDHWC")
    order = ((4, 5), (2, 3), (0, 1))

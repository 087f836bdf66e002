"""Ops whose result size depends on the values: ``where_index`` (the indices of the non-zero
entries, ``paddle.nonzero``), ``masked_select`` (the entries where a mask holds) and ``unique``
(the distinct entries).

A static program cannot know that size while it is built, so ``infer`` gives -1 for it and
the kernel makes the real shape when the op runs (as ``range_tensor`` does).
"""
import numpy as np

from ._shapes import ShapeError, broadcast_shapes, unbroadcast
from .registry import Meta, OpDef, register_op

__all__ = ["masked_select", "unique", "where_index"]


@register_op
class where_index(OpDef):
    """``[count, rank]`` int64 indices of the non-zero (true) entries of Condition, in
    row-major order."""

    inputs = ("Condition",)
    differentiable = False

    def infer(self, cond):
        return Meta((-1, len(cond.shape)), np.dtype(np.int64))

    def forward(self, ctx, cond):
        # NOTE: argwhere of a 0-d array gives [1, 0] or [0, 0]: a count and no index columns.
        return ctx.xp.argwhere(cond).astype(np.int64, copy=False)


def _mask_shape(x_shape, mask_shape, mask_dtype):
    if np.dtype(mask_dtype) != np.bool_:
        raise ShapeError(f"masked_select: Mask must be bool, got {np.dtype(mask_dtype)}")
    return broadcast_shapes(x_shape, mask_shape, "masked_select (X and Mask)")


@register_op
class masked_select(OpDef):
    """The entries of X where the bool Mask holds (X and Mask broadcast together), row-major,
    as a 1-D array. The gradient scatters back into zeros of X's shape (summed over the dims
    that broadcasting added)."""

    inputs = ("X", "Mask")
    outputs = ("Y",)
    nondiff_inputs = ("Mask",)

    def infer(self, x, mask):
        _mask_shape(x.shape, mask.shape, mask.dtype)
        return Meta((-1,), x.dtype)

    def forward(self, ctx, x, mask):
        xp = ctx.xp
        shape = _mask_shape(x.shape, mask.shape, mask.dtype)
        return xp.broadcast_to(x, shape)[xp.broadcast_to(mask, shape)]

    def backward(self, ctx, ins, outs, douts, **attrs):
        x, mask = ins
        xp = ctx.xp
        shape = _mask_shape(x.shape, mask.shape, mask.dtype)
        g = xp.zeros(shape, dtype=douts[0].dtype)
        g[xp.broadcast_to(mask, shape)] = douts[0]
        return unbroadcast(g, x.shape), None


def _unique_axis(x_shape, axis):
    if not axis:
        return None
    a = int(axis[0])
    if not -len(x_shape) <= a < max(len(x_shape), 1):
        raise ShapeError(f"op 'unique': axis {a} is out of range for X of shape "
                         f"{list(x_shape)}")
    return a % len(x_shape)


@register_op
class unique(OpDef):
    """The sorted distinct entries of X (``axis`` empty: of X flattened; ``[a]``: the distinct
    slices along axis a), with ``Indices`` (where each first occurs), ``Index`` (which distinct
    entry each entry of X is) and ``Counts``, all of ``dtype``. Their lengths are -1 until the
    op runs."""

    outputs = ("Out", "Indices", "Index", "Counts")
    attrs = {"axis": [], "dtype": "int64"}
    differentiable = False

    def infer(self, x, axis, dtype):
        a, dt = _unique_axis(x.shape, axis), np.dtype(dtype)
        if a is None:
            n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
            out = Meta((-1,), x.dtype)
        else:
            n = x.shape[a]
            out = Meta(tuple(-1 if i == a else d for i, d in enumerate(x.shape)), x.dtype)
        return out, Meta((-1,), dt), Meta((n,), dt), Meta((-1,), dt)

    def forward(self, ctx, x, axis, dtype):
        a, dt = _unique_axis(x.shape, axis), np.dtype(dtype)
        out, first, inverse, counts = ctx.xp.unique(
            x.reshape(-1) if a is None else x, return_index=True, return_inverse=True,
            return_counts=True, axis=a)
        return (out, first.astype(dt), inverse.reshape(-1).astype(dt), counts.astype(dt))

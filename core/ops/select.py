"""Ops whose result size depends on the values: ``where_index`` (the indices of the non-zero
entries, ``paddle.nonzero``) and ``masked_select`` (the entries where a mask holds).

A static program cannot know that size while it is built, so ``infer`` gives -1 for it and
the kernel makes the real shape when the op runs (as ``range_tensor`` does).
"""
import numpy as np

from ._shapes import ShapeError, broadcast_shapes, unbroadcast
from .registry import Meta, OpDef, register_op

__all__ = ["masked_select", "where_index"]


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

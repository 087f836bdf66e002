"""``temporal_shift``: the Temporal Shift Module (TSM) of video models, as Paddle defines it.

``X`` is ``[N * T, C, H, W]`` (or NHWC), ``T = seg_num`` frames per clip. With
``c1 = int(C * shift_ratio)`` and ``c2 = int(C * 2 * shift_ratio)``, frame ``t`` of the output
takes channels ``[0, c1)`` from frame ``t - 1``, channels ``[c1, c2)`` from frame ``t + 1`` and
the rest from frame ``t``; a frame outside the clip reads zeros. The gradient shifts back the
other way.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["temporal_shift"]


def _plan(shape, seg_num, shift_ratio, data_format):
    if data_format not in ("NCHW", "NHWC"):
        raise ShapeError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if len(shape) != 4:
        raise ShapeError(f"temporal_shift: X must be 4-D [N * seg_num, C, H, W], got shape "
                         f"{list(shape)}")
    if seg_num < 1:
        raise ShapeError(f"temporal_shift: seg_num must be >= 1, got {seg_num}")
    if not 0 <= shift_ratio <= 0.5:
        raise ShapeError(f"temporal_shift: shift_ratio must be in [0, 0.5], got {shift_ratio}")
    if shape[0] >= 0 and shape[0] % seg_num:
        raise ShapeError(f"temporal_shift: the batch dim of X ({shape[0]}) must be a multiple "
                         f"of seg_num ({seg_num})")
    c = shape[3] if data_format == "NHWC" else shape[1]
    return int(c * shift_ratio), int(c * 2 * shift_ratio)


def _shift(xp, x, seg_num, c1, c2, data_format, sign):
    """Shift channel blocks along time: ``sign = 1`` is the forward pass, ``-1`` its adjoint."""
    nhwc = data_format == "NHWC"
    v = x.reshape((-1, seg_num) + x.shape[1:])  # [N, T, C, H, W] or [N, T, H, W, C]
    out = xp.zeros_like(v)

    def frames(a, b, chans):
        """Index of frames ``[a, b)`` and channels ``chans`` of the 5-D view."""
        return (slice(None), slice(a, b), Ellipsis, chans) if nhwc else \
            (slice(None), slice(a, b), chans)

    back, fwd = (slice(0, c1), slice(c1, c2)) if sign > 0 else (slice(c1, c2), slice(0, c1))
    # frames 1.. read frame t - 1 on `back`; frames ..T-2 read frame t + 1 on `fwd`
    out[frames(1, seg_num, back)] = v[frames(0, seg_num - 1, back)]
    out[frames(0, seg_num - 1, fwd)] = v[frames(1, seg_num, fwd)]
    out[frames(0, seg_num, slice(c2, None))] = v[frames(0, seg_num, slice(c2, None))]
    return out.reshape(x.shape)


@register_op
class temporal_shift(OpDef):
    """Paddle's ``temporal_shift`` (TSM); see the module docstring."""

    attrs = {"seg_num": 1, "shift_ratio": 0.25, "data_format": "NCHW"}

    def infer(self, x, seg_num, shift_ratio, data_format):
        _plan(x.shape, seg_num, shift_ratio, data_format)
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, seg_num, shift_ratio, data_format):
        c1, c2 = _plan(x.shape, seg_num, shift_ratio, data_format)
        return _shift(ctx.xp, x, seg_num, c1, c2, data_format, 1)

    def backward(self, ctx, ins, outs, douts, seg_num, shift_ratio, data_format):
        c1, c2 = _plan(ins[0].shape, seg_num, shift_ratio, data_format)
        return (_shift(ctx.xp, douts[0], seg_num, c1, c2, data_format, -1),)

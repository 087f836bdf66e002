"""Sequence ops over variable-length batches.

A batch of sequences is a padded tensor ``X`` of shape ``[batch, time, ...]`` plus an integer
``Length`` of shape ``[batch]`` with ``0 <= Length[b] <= time``: steps ``t >= Length[b]`` of
sequence ``b`` are padding. (What PaddlePaddle calls a LoD tensor, packed rows plus offsets, is
the same data; :mod:`core.lod` converts between the two.) Padding never reaches a result:
pools, softmax and reversal read only the valid steps, outputs are zero (or ``pad_value``)
there, and padding receives no gradient.

* ``sequence_mask``: ``Y[..., t] = t < X[...]`` (no gradient).
* ``sequence_pool``: one row per sequence: SUM, AVERAGE, SQRT (sum / sqrt(length)), MAX, LAST,
  FIRST; an empty sequence gives ``pad_value``.
* ``sequence_softmax``: softmax over the valid steps of each row of ``X`` ``[batch, time]``.
* ``sequence_reverse``: the valid steps of each sequence in reverse order.
* ``sequence_expand``: row ``X[b]`` repeated over the valid steps of sequence ``b`` of ``Y``.
* ``sequence_pad``: the steps past the length set to ``PadValue``, time cut or extended to
  ``padded_length``.
* ``sequence_unpad``: the valid steps of all sequences packed into ``[sum(Length), ...]``.
"""
import numpy as np

from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["sequence_expand", "sequence_mask", "sequence_pad", "sequence_pool",
           "sequence_reverse", "sequence_softmax", "sequence_unpad"]

POOL_TYPES = ("SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST")


def check_lengths(op, length, batch, time):
    """``Length`` must be ``[batch]`` integers in ``[0, time]``; returns it as int64."""
    if length.dtype.kind not in "iu":
        raise ShapeError(f"{op}: Length must be an integer tensor, got dtype {length.dtype}")
    if length.ndim != 1 or length.shape[0] != batch:
        raise ShapeError(f"{op}: Length must have shape [{batch}] (one length per sequence of "
                         f"the [batch, time, ...] input), got {list(length.shape)}")
    if length.size and (int(length.min()) < 0 or int(length.max()) > time):
        raise ValueError(f"{op}: Length must lie in [0, {time}] (the input's time dim), got "
                         f"values in [{int(length.min())}, {int(length.max())}]")
    return length.astype(np.int64, copy=False)


def _check_meta(op, x, length, min_rank=2):
    if len(x.shape) < min_rank:
        raise ShapeError(f"{op}: X must be [batch, time, ...] (rank >= {min_rank}), got "
                         f"{list(x.shape)}")
    if len(length.shape) != 1:
        raise ShapeError(f"{op}: Length must be 1-D [batch], got {list(length.shape)}")
    if np.dtype(length.dtype).kind not in "iu":
        raise ShapeError(f"{op}: Length must be an integer tensor, got dtype {length.dtype}")
    b, lb = x.shape[0], length.shape[0]
    if b >= 0 and lb >= 0 and b != lb:
        raise ShapeError(f"{op}: Length must have shape [{b}] (the batch of X {list(x.shape)}),"
                         f" got {list(length.shape)}")


def _valid(xp, length, time, ndim):
    """Bool mask ``[batch, time, 1, ...]`` (rank ``ndim``) of the valid steps."""
    mask = xp.arange(time)[None, :] < length[:, None]
    return mask.reshape(mask.shape + (1,) * (ndim - 2))


@register_op
class sequence_mask(OpDef):
    """``Y[..., t] = t < X[...]`` for ``t < maxlen`` (``maxlen`` -1: the largest length),
    as ``out_dtype``. A one-element integer ``MaxLenTensor``, when given, is ``maxlen``
    (known only when the op runs, as Paddle's input of that name)."""

    inputs = ("X", "MaxLenTensor")
    outputs = ("Y",)
    attrs = {"maxlen": -1, "out_dtype": "int64"}
    differentiable = False

    def infer(self, x, maxlen_t, maxlen, out_dtype):
        if np.dtype(x.dtype).kind not in "iu":
            raise ShapeError(f"sequence_mask: X must hold integer lengths, got dtype {x.dtype}")
        if maxlen_t is not None:
            if np.dtype(maxlen_t.dtype).kind not in "iu" or int(np.prod(maxlen_t.shape)) > 1:
                raise ShapeError("sequence_mask: MaxLenTensor must be one integer, got "
                                 f"{np.dtype(maxlen_t.dtype)}{list(maxlen_t.shape)}")
            maxlen = -1
        return Meta(tuple(x.shape) + (maxlen if maxlen >= 0 else -1,), np.dtype(out_dtype))

    def forward(self, ctx, x, maxlen_t, maxlen, out_dtype):
        xp = ctx.xp
        if x.dtype.kind not in "iu":
            raise ShapeError(f"sequence_mask: X must hold integer lengths, got dtype {x.dtype}")
        if x.size and int(x.min()) < 0:
            raise ValueError(f"sequence_mask: lengths must be >= 0, got {int(x.min())}")
        if maxlen_t is not None:
            if maxlen_t.dtype.kind not in "iu" or maxlen_t.size != 1:
                raise ShapeError("sequence_mask: MaxLenTensor must be one integer, got "
                                 f"{maxlen_t.dtype}{list(maxlen_t.shape)}")
            maxlen = int(maxlen_t.reshape(-1)[0])
            if maxlen < 0:
                raise ValueError(f"sequence_mask: MaxLenTensor must be >= 0, got {maxlen}")
        n = maxlen if maxlen >= 0 else (int(x.max()) if x.size else 0)
        return (xp.arange(n) < x[..., None]).astype(out_dtype)


@register_op
class sequence_pool(OpDef):
    """One row per sequence of ``X`` ``[batch, time, ...]``: ``Out`` ``[batch, ...]``.
    ``MaxIndex`` (int64, MAX only; zeros otherwise) holds the step each maximum came from."""

    inputs = ("X", "Length")
    outputs = ("Out", "MaxIndex")
    attrs = {"pooltype": "AVERAGE", "pad_value": 0.0}
    nondiff_inputs = ("Length",)
    nondiff_outputs = ("MaxIndex",)

    @staticmethod
    def _check_type(pooltype):
        if pooltype not in POOL_TYPES:
            raise ValueError(f"sequence_pool: pooltype must be one of {POOL_TYPES}, got "
                             f"{pooltype!r}")

    def infer(self, x, length, pooltype, pad_value):
        self._check_type(pooltype)
        _check_meta("sequence_pool", x, length)
        row = (x.shape[0],) + tuple(x.shape[2:])
        return Meta(row, x.dtype), Meta(row, np.dtype(np.int64))

    def forward(self, ctx, x, length, pooltype, pad_value):
        xp = ctx.xp
        self._check_type(pooltype)
        n, t = x.shape[0], x.shape[1]
        length = check_lengths("sequence_pool", length, n, t)
        lens = length.reshape((n,) + (1,) * (x.ndim - 2)).astype(x.dtype)
        empty = lens == 0
        index = xp.zeros((n,) + x.shape[2:], dtype=np.int64)
        valid = _valid(xp, length, t, x.ndim)
        if pooltype in ("SUM", "AVERAGE", "SQRT"):
            out = xp.where(valid, x, 0).sum(axis=1)
            if pooltype == "AVERAGE":
                out = out / xp.maximum(lens, 1)
            elif pooltype == "SQRT":
                out = out / xp.sqrt(xp.maximum(lens, 1))
        elif pooltype == "MAX":
            low = xp.asarray(-np.inf, dtype=x.dtype)
            index = xp.argmax(xp.where(valid, x, low), axis=1).astype(np.int64)
            out = xp.take_along_axis(x, index[:, None], axis=1)[:, 0]
        else:
            step = xp.maximum(length - 1, 0) if pooltype == "LAST" else xp.zeros_like(length)
            out = x[xp.arange(n), step]
        out = xp.where(empty, xp.asarray(pad_value, dtype=x.dtype), out)
        return out.astype(x.dtype, copy=False), index

    def backward(self, ctx, ins, outs, douts, pooltype, pad_value):
        xp = ctx.xp
        x, length = ins
        dout = douts[0]
        n, t = x.shape[0], x.shape[1]
        length = length.astype(np.int64, copy=False)
        lens = length.reshape((n,) + (1,) * (x.ndim - 2)).astype(x.dtype)
        dout = xp.where(lens == 0, 0, dout)
        valid = _valid(xp, length, t, x.ndim)
        if pooltype in ("SUM", "AVERAGE", "SQRT"):
            if pooltype == "AVERAGE":
                dout = dout / xp.maximum(lens, 1)
            elif pooltype == "SQRT":
                dout = dout / xp.sqrt(xp.maximum(lens, 1))
            dx = xp.where(valid, dout[:, None], 0)
        else:
            if pooltype == "MAX":
                step = outs[1][:, None]
            else:
                last = xp.maximum(length - 1, 0) if pooltype == "LAST" else xp.zeros_like(length)
                step = xp.broadcast_to(last.reshape((n, 1) + (1,) * (x.ndim - 2)),
                                       (n, 1) + x.shape[2:])
            hit = xp.arange(t).reshape((1, t) + (1,) * (x.ndim - 2)) == step
            dx = xp.where(hit, dout[:, None], 0)
        return dx.astype(x.dtype, copy=False), None


@register_op
class sequence_softmax(OpDef):
    """Softmax over the valid steps of each row of ``X`` ``[batch, time]``; zero on padding."""

    inputs = ("X", "Length")
    outputs = ("Out",)
    nondiff_inputs = ("Length",)

    def infer(self, x, length):
        _check_meta("sequence_softmax", x, length)
        if len(x.shape) != 2:
            raise ShapeError(f"sequence_softmax: X must be [batch, time], got {list(x.shape)}")
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, length):
        xp = ctx.xp
        if x.ndim != 2:
            raise ShapeError(f"sequence_softmax: X must be [batch, time], got {list(x.shape)}")
        length = check_lengths("sequence_softmax", length, x.shape[0], x.shape[1])
        valid = _valid(xp, length, x.shape[1], 2)
        low = xp.asarray(-np.inf, dtype=x.dtype)
        top = xp.max(xp.where(valid, x, low), axis=1, keepdims=True)
        e = xp.where(valid, xp.exp(x - xp.where(xp.isfinite(top), top, 0)), 0)
        total = e.sum(axis=1, keepdims=True)
        return (e / xp.where(total > 0, total, 1)).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, **attrs):
        out, dout = outs[0], douts[0]
        return (out * (dout - (dout * out).sum(axis=1, keepdims=True))).astype(
            out.dtype, copy=False), None


def _reverse_index(xp, length, time):
    """``idx[b, t]``: the step read for output step ``t`` (reversed inside the length)."""
    steps = xp.arange(time)[None, :]
    return xp.where(steps < length[:, None], length[:, None] - 1 - steps, steps)


@register_op
class sequence_reverse(OpDef):
    """``Y[b, t] = X[b, Length[b] - 1 - t]`` for valid steps; padding stays in place."""

    inputs = ("X", "Length")
    outputs = ("Y",)
    nondiff_inputs = ("Length",)

    def infer(self, x, length):
        _check_meta("sequence_reverse", x, length)
        return Meta(tuple(x.shape), x.dtype)

    def _permute(self, xp, a, length):
        n, t = a.shape[0], a.shape[1]
        idx = _reverse_index(xp, length, t).reshape((n, t) + (1,) * (a.ndim - 2))
        return xp.take_along_axis(a, xp.broadcast_to(idx, a.shape), axis=1)

    def forward(self, ctx, x, length):
        length = check_lengths("sequence_reverse", length, x.shape[0], x.shape[1])
        return self._permute(ctx.xp, x, length)

    def backward(self, ctx, ins, outs, douts):
        # The permutation is its own inverse.
        return self._permute(ctx.xp, douts[0], ins[1].astype(np.int64, copy=False)), None


@register_op
class sequence_expand(OpDef):
    """``Out[b, t] = X[b]`` for ``t < Length[b]``, zero after; ``Out`` is ``[batch, time,
    ...]`` with ``time`` from ``Y`` ``[batch, time, ...]`` (only its shape is read)."""

    inputs = ("X", "Y", "Length")
    outputs = ("Out",)
    nondiff_inputs = ("Y", "Length")

    def infer(self, x, y, length):
        _check_meta("sequence_expand", y, length)
        if len(x.shape) < 1 or (x.shape[0] >= 0 and y.shape[0] >= 0 and x.shape[0] != y.shape[0]):
            raise ShapeError(f"sequence_expand: X must be [batch, ...] with Y's batch "
                             f"({y.shape[0]}), got {list(x.shape)}")
        return Meta((x.shape[0], y.shape[1]) + tuple(x.shape[1:]), x.dtype)

    def forward(self, ctx, x, y, length):
        xp = ctx.xp
        if x.shape[0] != y.shape[0]:
            raise ShapeError(f"sequence_expand: X must be [batch, ...] with Y's batch "
                             f"({y.shape[0]}), got {list(x.shape)}")
        t = y.shape[1]
        length = check_lengths("sequence_expand", length, x.shape[0], t)
        out = xp.broadcast_to(x[:, None], (x.shape[0], t) + x.shape[1:])
        return xp.where(_valid(xp, length, t, x.ndim + 1), out, 0).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        xp = ctx.xp
        x, _, length = ins
        dout = douts[0]
        valid = _valid(xp, length.astype(np.int64, copy=False), dout.shape[1], dout.ndim)
        return xp.where(valid, dout, 0).sum(axis=1).astype(x.dtype, copy=False), None, None


@register_op
class sequence_pad(OpDef):
    """``Out[b, t] = X[b, t]`` for ``t < Length[b]``, ``PadValue`` (a scalar or one step's
    shape) after; the time dim becomes ``padded_length`` (-1: keep X's), which must be at
    least the largest length."""

    inputs = ("X", "PadValue", "Length")
    outputs = ("Out",)
    attrs = {"padded_length": -1}
    nondiff_inputs = ("Length",)

    def infer(self, x, pad, length, padded_length):
        _check_meta("sequence_pad", x, length)
        t = padded_length if padded_length >= 0 else x.shape[1]
        return Meta((x.shape[0], t) + tuple(x.shape[2:]), x.dtype)

    def forward(self, ctx, x, pad, length, padded_length):
        xp = ctx.xp
        n, t = x.shape[0], x.shape[1]
        length = check_lengths("sequence_pad", length, n, t)
        out_t = padded_length if padded_length >= 0 else t
        if length.size and int(length.max()) > out_t:
            raise ValueError(f"sequence_pad: padded_length ({out_t}) is shorter than the longest "
                             f"sequence ({int(length.max())})")
        if out_t <= t:
            src = x[:, :out_t]
        else:
            src = xp.concatenate([x, xp.zeros((n, out_t - t) + x.shape[2:], x.dtype)], axis=1)
        pad = xp.asarray(pad, dtype=x.dtype)
        return xp.where(_valid(xp, length, out_t, x.ndim), src, pad).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, padded_length):
        xp = ctx.xp
        x, pad, length = ins
        dout = douts[0]
        t = x.shape[1]
        out_t = dout.shape[1]
        valid = _valid(xp, length.astype(np.int64, copy=False), out_t, dout.ndim)
        inside = xp.where(valid, dout, 0)
        dx = xp.zeros_like(x)
        k = min(t, out_t)
        dx[:, :k] = inside[:, :k]
        dpad = xp.where(valid, 0, dout)
        pad = xp.asarray(pad)
        # the pad value broadcast over every padded position: sum back to its shape
        lead = dpad.ndim - pad.ndim
        dpad = dpad.sum(axis=tuple(range(lead))) if lead else dpad
        for axis, size in enumerate(pad.shape):
            if size == 1 and dpad.shape[axis] != 1:
                dpad = dpad.sum(axis=axis, keepdims=True)
        return dx, dpad.reshape(pad.shape).astype(x.dtype, copy=False), None


@register_op
class sequence_unpad(OpDef):
    """The valid steps of every sequence, packed in order: ``Out`` ``[sum(Length), ...]``."""

    inputs = ("X", "Length")
    outputs = ("Out",)
    nondiff_inputs = ("Length",)

    def infer(self, x, length):
        _check_meta("sequence_unpad", x, length)
        return Meta((-1,) + tuple(x.shape[2:]), x.dtype)

    def forward(self, ctx, x, length):
        xp = ctx.xp
        length = check_lengths("sequence_unpad", length, x.shape[0], x.shape[1])
        mask = xp.arange(x.shape[1])[None, :] < length[:, None]
        return x[mask]

    def backward(self, ctx, ins, outs, douts):
        xp = ctx.xp
        x, length = ins
        mask = xp.arange(x.shape[1])[None, :] < length.astype(np.int64)[:, None]
        dx = xp.zeros_like(x)
        dx[mask] = douts[0]
        return dx, None

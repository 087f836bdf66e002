"""Shape ops: reshape, transpose, concat/split, stack/unstack, squeeze/unsqueeze, flatten,
expand/tile/expand_v2, pad and shape.

Static shapes may hold -1 (unknown); ``infer`` keeps a dim unknown whenever it depends on an
unknown one and checks only what is known. Kernels accept negative axes.
"""
import numpy as np

from ._shapes import ShapeError, normalize_axis, unbroadcast
from .registry import Meta, OpDef, register_op

__all__ = ["concat", "expand", "expand_v2", "expand_v2_shape", "flatten", "flatten2d_shape",
           "flatten_contiguous_range", "flatten_shape", "pad", "pad_pairs", "prod_or_unknown",
           "reshape", "reshape_target", "shape", "split", "split_sizes", "squeeze", "squeeze_shape",
           "stack", "tile", "tile_layout", "tile_tensor", "transpose", "unsqueeze",
           "unsqueeze_shape", "unstack"]


def prod_or_unknown(dims):
    """Product of ``dims``; -1 when any of them is unknown."""
    total = 1
    for d in dims:
        if d < 0:
            return -1
        total *= int(d)
    return total


def reshape_target(in_shape, shape, what="reshape"):
    """The output shape of Paddle's reshape: 0 copies the input dim, one -1 is inferred. Dims
    of ``in_shape`` may be -1 (unknown); the result then holds -1 where it cannot be known."""
    shape = [int(s) for s in shape]
    if sum(1 for s in shape if s == -1) > 1 or any(s < -1 for s in shape):
        raise ShapeError(f"{what}: shape {shape} may hold one -1 and no other negative dim")
    out = []
    for i, s in enumerate(shape):
        if s == 0 and i >= len(in_shape):
            raise ShapeError(f"{what}: shape {shape} has 0 at position {i}, but the input shape "
                             f"{list(in_shape)} has no dim {i} to copy")
        out.append(int(in_shape[i]) if s == 0 else s)
    # NOTE: dims copied by a 0 appear on both sides and cancel, even when unknown.
    copied = {i for i, s in enumerate(shape) if s == 0}
    total = prod_or_unknown([d for i, d in enumerate(in_shape) if i not in copied])
    infer_at = shape.index(-1) if -1 in shape else None
    rest = prod_or_unknown([d for i, d in enumerate(out) if i != infer_at and i not in copied])
    if total < 0 or rest < 0:
        return tuple(out)
    if infer_at is not None:
        if rest == 0 or total % rest:
            raise ShapeError(f"{what}: cannot reshape input of shape {list(in_shape)} "
                             f"({prod_or_unknown(in_shape)} elements) to {shape}")
        out[infer_at] = total // rest
    elif rest != total:
        raise ShapeError(f"{what}: cannot reshape input of shape {list(in_shape)} "
                         f"({prod_or_unknown(in_shape)} elements) to {shape} "
                         f"({prod_or_unknown(out)} elements)")
    return tuple(out)


@register_op
class reshape(OpDef):
    attrs = {"shape": []}

    def infer(self, x, shape):
        return Meta(reshape_target(x.shape, shape), x.dtype)

    def forward(self, ctx, x, shape):
        return ctx.xp.reshape(x, reshape_target(x.shape, shape))

    def fast_kernel(self, xp, metas, shape):
        if 0 in shape:
            return None  # copied dims depend on the input: forward resolves them
        # NOTE: without 0s Paddle's rule is numpy's (one -1 inferred); infer validated it.
        target = tuple(int(d) for d in shape)
        return lambda x: x.reshape(target)

    def backward(self, ctx, ins, outs, douts, shape):
        return (douts[0].reshape(ins[0].shape),)


@register_op
class reshape_tensor(OpDef):
    """``reshape`` whose target shape is the 1-D int tensor ``Shape``, known only at run time
    (Paddle's ShapeTensor): ``x.reshape([x.shape[0], -1])`` with an unknown batch dim. The
    ``shape`` attr is the static view: -1 where the tensor decides."""

    inputs = ("X", "Shape")
    nondiff_inputs = ("Shape",)
    attrs = {"shape": []}

    def infer(self, x, target, shape):
        if len(target.shape) != 1 or target.shape[0] not in (-1, len(shape)):
            raise ShapeError(f"reshape: the shape tensor has shape {list(target.shape)}, "
                             f"expected [{len(shape)}]")
        # NOTE: several dims may be unknown here; the run-time shape has at most one -1.
        if sum(1 for d in shape if d == -1) > 1:
            return Meta(tuple(int(x.shape[i]) if d == 0 else d for i, d in enumerate(shape)),
                        x.dtype)
        return Meta(reshape_target(x.shape, shape), x.dtype)

    def forward(self, ctx, x, target, shape):
        dims = [int(d) for d in target.reshape(-1).tolist()]
        return ctx.xp.reshape(x, reshape_target(x.shape, dims))

    def backward(self, ctx, ins, outs, douts, shape):
        return douts[0].reshape(ins[0].shape), None


def _check_perm(axis, rank, what):
    if sorted(int(a) % max(rank, 1) for a in axis) != list(range(rank)) or len(axis) != rank:
        raise ShapeError(f"{what}: axis {list(axis)} is not a permutation of the {rank} dims "
                         f"of the input")
    return [int(a) % max(rank, 1) for a in axis]


@register_op
class transpose(OpDef):
    attrs = {"axis": []}

    def infer(self, x, axis):
        perm = _check_perm(axis, len(x.shape), "transpose")
        return Meta(tuple(x.shape[p] for p in perm), x.dtype)

    def forward(self, ctx, x, axis):
        return ctx.xp.transpose(x, _check_perm(axis, x.ndim, "transpose"))

    def backward(self, ctx, ins, outs, douts, axis):
        perm = _check_perm(axis, ins[0].ndim, "transpose")
        return (douts[0].transpose([perm.index(i) for i in range(len(perm))]),)


def _merge_dims(shapes, skip, what):
    """One shape from ``shapes`` that must agree except at dim ``skip`` (-1 dims are wild)."""
    first = list(shapes[0])
    for s in shapes[1:]:
        if len(s) != len(first):
            raise ShapeError(f"{what}: inputs have ranks {[len(t) for t in shapes]}")
        for i, d in enumerate(s):
            if i == skip or d == first[i] or d < 0:
                continue
            if first[i] < 0:
                first[i] = d
            else:
                raise ShapeError(f"{what}: input shapes {[list(t) for t in shapes]} differ at "
                                 f"dim {i}")
    return first


@register_op
class concat(OpDef):
    inputs = ("X*",)
    attrs = {"axis": 0}

    def infer(self, xs, axis):
        shapes = [x.shape for x in xs]
        ax = normalize_axis(axis, len(shapes[0]), "concat: axis")
        out = _merge_dims(shapes, ax, "concat")
        out[ax] = sum(s[ax] for s in shapes) if all(s[ax] >= 0 for s in shapes) else -1
        return Meta(tuple(out), np.result_type(*[x.dtype for x in xs]))

    def forward(self, ctx, xs, axis):
        return ctx.xp.concatenate(xs, axis=axis)

    def backward(self, ctx, ins, outs, douts, axis):
        bounds = np.cumsum([a.shape[axis] for a in ins[0]])[:-1].tolist()
        return (ctx.xp.split(douts[0], bounds, axis=axis),)


def split_sizes(dim, num, sections, what="split"):
    """Part sizes along a dim of size ``dim`` (-1: unknown) for ``num`` equal parts or explicit
    ``sections`` (one -1 inferred)."""
    if sections:
        sections = [int(s) for s in sections]
        if sum(1 for s in sections if s == -1) > 1 or any(s < -1 for s in sections):
            raise ShapeError(f"{what}: sections {sections} may hold one -1 and no other "
                             "negative size")
        if dim < 0:
            return sections
        known = sum(s for s in sections if s >= 0)
        if -1 in sections and known <= dim:
            return [dim - known if s == -1 else s for s in sections]
        if known != dim or -1 in sections:
            raise ShapeError(f"{what}: sections {sections} do not add up to the dim size {dim}")
        return sections
    if num <= 0:
        raise ShapeError(f"{what}: needs num > 0 or a sections list, got num={num}")
    if dim >= 0 and dim % num:
        raise ShapeError(f"{what}: dim of size {dim} does not split into {num} equal parts")
    return [dim // num if dim >= 0 else -1] * num


@register_op
class split(OpDef):
    outputs = ("Out*",)
    attrs = {"num": 0, "sections": [], "axis": 0}

    def infer(self, x, num, sections, axis):
        ax = normalize_axis(axis, len(x.shape), "split: axis")
        sizes = split_sizes(x.shape[ax], num, sections)
        return [Meta(x.shape[:ax] + (s,) + x.shape[ax + 1:], x.dtype) for s in sizes]

    def forward(self, ctx, x, num, sections, axis):
        sizes = split_sizes(x.shape[axis], num, sections)
        return ctx.xp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis)

    def backward(self, ctx, ins, outs, douts, num, sections, axis):
        return (ctx.xp.concatenate(douts[0], axis=axis),)


@register_op
class stack(OpDef):
    inputs = ("X*",)
    outputs = ("Y",)
    attrs = {"axis": 0}

    def infer(self, xs, axis):
        shape = _merge_dims([x.shape for x in xs], None, "stack")
        ax = normalize_axis(axis, len(shape) + 1, "stack: axis")
        return Meta(tuple(shape[:ax] + [len(xs)] + shape[ax:]),
                    np.result_type(*[x.dtype for x in xs]))

    def forward(self, ctx, xs, axis):
        return ctx.xp.stack(xs, axis=axis)

    def backward(self, ctx, ins, outs, douts, axis):
        parts = ctx.xp.split(douts[0], len(ins[0]), axis=axis)
        return ([p.reshape(a.shape) for p, a in zip(parts, ins[0])],)


@register_op
class unstack(OpDef):
    outputs = ("Y*",)
    attrs = {"axis": 0, "num": None}

    def infer(self, x, axis, num):
        ax = normalize_axis(axis, len(x.shape), "unstack: axis")
        n = x.shape[ax] if x.shape[ax] >= 0 else num
        if n is None or (num is not None and n != num):
            raise ShapeError(f"unstack: num={num} does not fit dim {ax} of shape "
                             f"{list(x.shape)}")
        return [Meta(x.shape[:ax] + x.shape[ax + 1:], x.dtype)] * n

    def forward(self, ctx, x, axis, num):
        return [ctx.xp.take(x, i, axis=axis) for i in range(x.shape[axis])]

    def backward(self, ctx, ins, outs, douts, axis, num):
        return (ctx.xp.stack(douts[0], axis=axis),)


def squeeze_shape(shape, axes):
    """Paddle's squeeze: drop the size-1 dims named in ``axes`` (all size-1 dims when empty);
    a named dim whose size is not 1 stays."""
    rank = len(shape)
    named = {normalize_axis(int(a), rank, "squeeze: axes") for a in axes}
    # NOTE: an unknown (-1) dim is dropped only when named: the caller says it is 1.
    return tuple(d for i, d in enumerate(shape)
                 if not ((i in named and d in (1, -1)) or (not axes and d == 1)))


@register_op
class squeeze(OpDef):
    attrs = {"axes": []}

    def infer(self, x, axes):
        return Meta(squeeze_shape(x.shape, axes), x.dtype)

    def forward(self, ctx, x, axes):
        return x.reshape(squeeze_shape(x.shape, axes))

    def backward(self, ctx, ins, outs, douts, axes):
        return (douts[0].reshape(ins[0].shape),)


def unsqueeze_shape(shape, axes):
    """Insert size-1 dims one at a time, each axis counted in the shape built so far (as
    Paddle does; for sorted non-negative axes this equals numpy's ``expand_dims``)."""
    out = list(shape)
    for a in axes:
        out.insert(normalize_axis(int(a), len(out) + 1, "unsqueeze: axes"), 1)
    return tuple(out)


@register_op
class unsqueeze(OpDef):
    attrs = {"axes": []}

    def infer(self, x, axes):
        return Meta(unsqueeze_shape(x.shape, axes), x.dtype)

    def forward(self, ctx, x, axes):
        return x.reshape(unsqueeze_shape(x.shape, axes))

    def backward(self, ctx, ins, outs, douts, axes):
        return (douts[0].reshape(ins[0].shape),)


def flatten_shape(shape, start, stop):
    rank = len(shape)
    if rank == 0:
        return (1,)
    start = normalize_axis(start, rank, "flatten: start_axis")
    stop = normalize_axis(stop, rank, "flatten: stop_axis")
    if start > stop:
        raise ShapeError(f"flatten: start_axis {start} is after stop_axis {stop}")
    merged = prod_or_unknown(shape[start:stop + 1])
    return tuple(shape[:start]) + (merged,) + tuple(shape[stop + 1:])


def flatten2d_shape(shape, axis):
    if not 0 <= axis <= len(shape):
        raise ShapeError(f"flatten: axis {axis} is not in [0, {len(shape)}] for shape "
                         f"{list(shape)}")
    return prod_or_unknown(shape[:axis]), prod_or_unknown(shape[axis:])


@register_op
class flatten(OpDef):
    """fluid's flatten: a 2-D result ``[prod(dims[:axis]), prod(dims[axis:])]``."""

    attrs = {"axis": 1}

    def infer(self, x, axis):
        return Meta(flatten2d_shape(x.shape, axis), x.dtype)

    def forward(self, ctx, x, axis):
        return x.reshape(flatten2d_shape(x.shape, axis))

    def backward(self, ctx, ins, outs, douts, axis):
        return (douts[0].reshape(ins[0].shape),)


@register_op
class flatten_contiguous_range(OpDef):
    attrs = {"start_axis": 0, "stop_axis": -1}

    def infer(self, x, start_axis, stop_axis):
        return Meta(flatten_shape(x.shape, start_axis, stop_axis), x.dtype)

    def forward(self, ctx, x, start_axis, stop_axis):
        return x.reshape(flatten_shape(x.shape, start_axis, stop_axis))

    def backward(self, ctx, ins, outs, douts, start_axis, stop_axis):
        return (douts[0].reshape(ins[0].shape),)


def tile_layout(shape, reps, what):
    """(input shape, repeats) padded with leading 1s to a common rank (Paddle's tile rule)."""
    reps = [int(r) for r in reps]
    if any(r < 1 for r in reps):
        raise ShapeError(f"{what}: repeats {reps} must all be positive")
    n = max(len(shape), len(reps))
    return (1,) * (n - len(shape)) + tuple(shape), [1] * (n - len(reps)) + reps


class _Tile(OpDef):
    rep_attr = None

    def _layout(self, shape, attrs):
        return tile_layout(shape, attrs[self.rep_attr], self.type)

    def infer(self, x, **attrs):
        shape, reps = self._layout(x.shape, attrs)
        return Meta(tuple(d * r if d >= 0 else -1 for d, r in zip(shape, reps)), x.dtype)

    def forward(self, ctx, x, **attrs):
        shape, reps = self._layout(x.shape, attrs)
        return ctx.xp.tile(x.reshape(shape), reps)

    def backward(self, ctx, ins, outs, douts, **attrs):
        shape, reps = self._layout(ins[0].shape, attrs)
        # NOTE: dout viewed as [r0, d0, r1, d1, ...] and summed over every r axis.
        inter = [v for pair in zip(reps, shape) for v in pair]
        g = douts[0].reshape(inter).sum(axis=tuple(range(0, len(inter), 2)))
        return (g.reshape(ins[0].shape),)


@register_op
class tile(_Tile):
    attrs = {"repeat_times": []}
    rep_attr = "repeat_times"


@register_op
class expand(_Tile):
    """fluid's expand: tile by ``expand_times``, one entry per input dim."""

    attrs = {"expand_times": []}
    rep_attr = "expand_times"

    def _layout(self, shape, attrs):
        if len(attrs["expand_times"]) != len(shape):
            raise ShapeError(f"expand: expand_times {list(attrs['expand_times'])} needs one "
                             f"entry per dim of the input shape {list(shape)}")
        return super()._layout(shape, attrs)


@register_op
class tile_tensor(_Tile):
    """``tile`` / fluid ``expand`` whose repeat counts are the 1-D int tensor ``RepeatTimes``
    (Paddle's RepeatTimes / ExpandTimes tensor); the ``repeat_times`` attr is the static view
    (-1 where the tensor decides)."""

    inputs = ("X", "RepeatTimes")
    nondiff_inputs = ("RepeatTimes",)
    attrs = {"repeat_times": []}
    rep_attr = "repeat_times"

    def infer(self, x, reps, repeat_times):
        if len(reps.shape) != 1 or reps.shape[0] not in (-1, len(repeat_times)):
            raise ShapeError(f"tile: the repeat-times tensor has shape {list(reps.shape)}, "
                             f"expected [{len(repeat_times)}]")
        n = max(len(x.shape), len(repeat_times))
        shape = (1,) * (n - len(x.shape)) + tuple(x.shape)
        reps = [1] * (n - len(repeat_times)) + [int(d) for d in repeat_times]
        return Meta(tuple(-1 if d < 0 or k < 0 else d * k for d, k in zip(shape, reps)),
                    x.dtype)

    def _reps(self, reps, repeat_times):
        got = [int(d) for d in reps.reshape(-1).tolist()]
        if len(got) != len(repeat_times) or any(d < 1 for d in got) or \
                any(s != -1 and s != d for s, d in zip(repeat_times, got)):
            raise ShapeError(f"tile: the repeat-times tensor holds {got}, expected "
                             f"{len(repeat_times)} positive ints matching {list(repeat_times)}")
        return {"repeat_times": got}

    def forward(self, ctx, x, reps, repeat_times):
        return _Tile.forward(self, ctx, x, **self._reps(reps, repeat_times))

    def backward(self, ctx, ins, outs, douts, repeat_times):
        (g,) = _Tile.backward(self, ctx, ins[:1], outs, douts,
                              **self._reps(ins[1], repeat_times))
        return g, None


def expand_v2_shape(in_shape, shape):
    """Broadcast target of expand_v2: -1 keeps the input dim; new leading dims are given."""
    lead = len(shape) - len(in_shape)
    if lead < 0:
        raise ShapeError(f"expand_v2: shape {list(shape)} has fewer dims than the input "
                         f"shape {list(in_shape)}")
    out = []
    for i, s in enumerate(shape):
        d = in_shape[i - lead] if i >= lead else 1
        if (s == -1 and i < lead) or s < -1 or s == 0:
            raise ShapeError(f"expand_v2: shape {list(shape)} has an invalid size {s} at {i}")
        if s != -1 and d not in (1, s, -1):
            raise ShapeError(f"expand_v2: input shape {list(in_shape)} cannot expand to "
                             f"{list(shape)} (dim {i}: {d} vs {s})")
        out.append(d if s == -1 else int(s))
    return tuple(out)


@register_op
class expand_v2(OpDef):
    attrs = {"shape": []}

    def infer(self, x, shape):
        return Meta(expand_v2_shape(x.shape, shape), x.dtype)

    def forward(self, ctx, x, shape):
        # NOTE: broadcast_to gives a read-only view; the copy makes an ordinary array.
        return ctx.xp.broadcast_to(x, expand_v2_shape(x.shape, shape)).copy()

    def backward(self, ctx, ins, outs, douts, shape):
        return (unbroadcast(douts[0], ins[0].shape),)


def pad_pairs(paddings, rank, what="pad"):
    paddings = [int(p) for p in paddings]
    if len(paddings) != 2 * rank or any(p < 0 for p in paddings):
        raise ShapeError(f"{what}: paddings {paddings} must be {2 * rank} non-negative ints "
                         f"(before and after for each of the {rank} dims)")
    return [(paddings[2 * i], paddings[2 * i + 1]) for i in range(rank)]


@register_op
class pad(OpDef):
    attrs = {"paddings": [], "pad_value": 0.0}

    def infer(self, x, paddings, pad_value):
        pairs = pad_pairs(paddings, len(x.shape))
        return Meta(tuple(d + a + b if d >= 0 else -1 for d, (a, b) in zip(x.shape, pairs)),
                    x.dtype)

    def forward(self, ctx, x, paddings, pad_value):
        return ctx.xp.pad(x, pad_pairs(paddings, x.ndim), constant_values=pad_value)

    def backward(self, ctx, ins, outs, douts, paddings, pad_value):
        pairs = pad_pairs(paddings, ins[0].ndim)
        return (douts[0][tuple(slice(a, a + d) for (a, _), d in zip(pairs, ins[0].shape))],)


@register_op
class shape(OpDef):
    """The input's shape as an int32 1-D tensor; in static mode known only at run time."""

    inputs = ("Input",)
    differentiable = False

    def infer(self, x):
        return Meta((len(x.shape),), np.dtype(np.int32))

    def forward(self, ctx, x):
        return ctx.xp.asarray(list(x.shape), dtype=ctx.xp.int32)

"""ONNX mappers of the shape, indexing and creation ops: reshape, transpose, concat, split,
stack / unstack, squeeze / unsqueeze, flatten, expand / tile, pad, slice, gather / gather_nd,
where_index / masked_select, scatter, getitem, shape, and the constant-making ops.

Ops without inputs (``fill_constant``, ``range``, ``linspace``, ``assign_value``) become
initializers computed by the op's own numpy kernel, so they equal the executor's values."""
import numpy as np

from ..ops.indexing import check_index as placed_index
from ..ops.registry import KernelContext, get_op
from ..ops.shape import squeeze_shape, split_sizes
from .graph import onnx_dtype
from .registry import ExportError, mapper

_INT_MAX = np.iinfo(np.int64).max


@mapper("fill_constant", "range", "linspace", "assign_value")
def _constant(g, v):
    value = get_op(v.type).forward(KernelContext(np, None), **v.attrs)
    dt = v.out_var("Out").dtype
    return {"Out": g.node("Identity", [g.const(value, dt)], hint=v.out_hint("Out"))}


@mapper("range_tensor")
def _range_tensor(g, v):
    dt = v.out_var("Out").dtype
    bounds = [g.scalar(g.cast(v.x(slot), v.var(slot).dtype, dt)) for slot in
              ("Start", "End", "Step")]
    return {"Out": g.node("Range", bounds, hint=v.out_hint("Out"))}


@mapper("fill_any_like")
def _fill_any_like(g, v):
    dt = v.out_var("Out").dtype
    value = g.const(np.full(1, v.attrs["value"], dtype=dt), dt)
    return {"Out": g.node("Expand", [value, g.shape_of(v.x("X"))], hint=v.out_hint("Out"))}


@mapper("shape")
def _shape(g, v):
    return {"Out": g.node("Cast", [g.shape_of(v.x("Input"))], to=onnx_dtype(np.int32),
                          hint=v.out_hint("Out"))}


@mapper("reshape")
def _reshape(g, v):
    return {"Out": g.reshape(v.x("X"), [int(d) for d in v.attrs["shape"]], hint=v.out_hint("Out"))}


@mapper("reshape_tensor")
def _reshape_tensor(g, v):
    shape = g.cast(v.x("Shape"), v.var("Shape").dtype, np.int64)
    if v.rank("Shape") != 1:
        shape = g.reshape(shape, [-1])
    return {"Out": g.node("Reshape", [v.x("X"), shape], hint=v.out_hint("Out"))}


@mapper("transpose")
def _transpose(g, v):
    rank = v.rank("X")
    perm = [int(a) % max(rank, 1) for a in v.attrs["axis"]]
    return {"Out": g.node("Transpose", [v.x("X")], perm=perm, hint=v.out_hint("Out"))}


@mapper("concat")
def _concat(g, v):
    dt = v.out_var("Out").dtype
    xs = [g.cast(x, var.dtype, dt) for x, var in zip(v.xs("X"), v.vars("X"))]
    return {"Out": g.node("Concat", xs, axis=int(v.attrs["axis"]), hint=v.out_hint("Out"))}


@mapper("split")
def _split(g, v):
    a = v.attrs
    axis = int(a["axis"]) % v.rank("X")
    dim = v.var("X").shape[axis]
    n_out = len(v.out_names("Out"))
    hints = [v.out_hint("Out", i) for i in range(n_out)]
    if a["sections"]:
        sections = [int(s) for s in a["sections"]]
        if -1 in sections and dim < 0:
            raise ExportError("split: sections with -1 need the split dim known in the program")
        sizes = split_sizes(dim, 0, sections, "split")
        outs = g.node("Split", [v.x("X"), g.const(sizes)], outputs=hints, axis=axis)
    else:
        outs = g.node("Split", [v.x("X")], outputs=hints, axis=axis, num_outputs=n_out) \
            if g.opset >= 18 else _split_equal(g, v.x("X"), axis, n_out, dim, hints)
    return {"Out": list(outs)}


def _split_equal(g, x, axis, n, dim, hints):
    if dim >= 0:
        return g.node("Split", [x, g.const([dim // n] * n)], outputs=hints, axis=axis)
    size = g.node("Div", [g.shape_of(x, start=axis, end=axis + 1), g.const([n])])
    return g.node("Split", [x, g.node("Tile", [size, g.const([n])])], outputs=hints, axis=axis)


@mapper("stack")
def _stack(g, v):
    axis = int(v.attrs["axis"])
    rank = v.rank("X") + 1
    axis = axis % rank
    dt = v.out_var("Y").dtype
    xs = [g.unsqueeze(g.cast(x, var.dtype, dt), [axis]) for x, var in zip(v.xs("X"), v.vars("X"))]
    return {"Y": g.node("Concat", xs, axis=axis, hint=v.out_hint("Y"))}


@mapper("unstack")
def _unstack(g, v):
    axis = int(v.attrs["axis"]) % v.rank("X")
    n = len(v.out_names("Y"))
    parts = g.node("Split", [v.x("X"), g.const([1] * n)], outputs=["unstack_part"] * n, axis=axis)
    parts = [parts] if n == 1 else parts
    return {"Y": [g.squeeze(p, [axis]) for p in parts]}


@mapper("squeeze")
def _squeeze(g, v):
    shape = tuple(v.var("X").shape)
    kept = squeeze_shape(shape, v.attrs["axes"])
    if len(kept) == len(shape):
        return {"Out": g.node("Identity", [v.x("X")], hint=v.out_hint("Out"))}
    named = {int(a) % max(len(shape), 1) for a in v.attrs["axes"]}
    axes = [i for i, d in enumerate(shape) if (d == 1 and (not named or i in named)) or
            (d == -1 and i in named)]
    return {"Out": g.node("Squeeze", [v.x("X"), g.const(axes)], hint=v.out_hint("Out"))}


@mapper("unsqueeze")
def _unsqueeze(g, v):
    rank, axes = v.rank("X"), []
    for a in v.attrs["axes"]:
        # NOTE: Paddle inserts one axis at a time, each counted in the shape built so far.
        a = int(a) % (rank + 1)
        axes = [b + 1 if b >= a else b for b in axes] + [a]
        rank += 1
    return {"Out": g.node("Unsqueeze", [v.x("X"), g.const(sorted(axes))], hint=v.out_hint("Out"))}


@mapper("flatten")
def _flatten(g, v):
    return {"Out": g.node("Flatten", [v.x("X")], axis=int(v.attrs["axis"]),
                          hint=v.out_hint("Out"))}


@mapper("flatten_contiguous_range")
def _flatten_range(g, v):
    rank = v.rank("X")
    if rank == 0:
        return {"Out": g.reshape(v.x("X"), [1], hint=v.out_hint("Out"))}
    start, stop = int(v.attrs["start_axis"]) % rank, int(v.attrs["stop_axis"]) % rank
    x = v.x("X")
    parts = [g.const([-1])]
    if start:
        parts.insert(0, g.shape_of(x, end=start))
    if stop + 1 < rank:
        parts.append(g.shape_of(x, start=stop + 1))
    shape = g.node("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
    return {"Out": g.node("Reshape", [x, shape], hint=v.out_hint("Out"))}


def _tile(g, v, reps):
    x, rank = v.x("X"), v.rank("X")
    reps = [int(r) for r in reps]
    if len(reps) > rank:
        x = g.unsqueeze(x, list(range(len(reps) - rank)))
    elif len(reps) < rank:
        reps = [1] * (rank - len(reps)) + reps
    return {"Out": g.node("Tile", [x, g.const(reps)], hint=v.out_hint("Out"))}


@mapper("tile")
def _tile_op(g, v):
    return _tile(g, v, v.attrs["repeat_times"])


@mapper("expand")
def _expand(g, v):
    return _tile(g, v, v.attrs["expand_times"])


@mapper("expand_v2")
def _expand_v2(g, v):
    # NOTE: -1 keeps the input's dim; Expand keeps an input dim where the target says 1.
    shape = [1 if int(d) == -1 else int(d) for d in v.attrs["shape"]]
    return {"Out": g.node("Expand", [v.x("X"), g.const(shape)], hint=v.out_hint("Out"))}


@mapper("pad")
def _pad(g, v):
    p = [int(d) for d in v.attrs["paddings"]]
    pads = p[0::2] + p[1::2]
    dt = v.var("X").dtype
    return {"Out": g.node("Pad", [v.x("X"), g.const(pads), g.const(v.attrs["pad_value"], dt)],
                          mode="constant", hint=v.out_hint("Out"))}


def _slice_bounds(start, end, step):
    """Python slice bounds as ONNX Slice takes them (None: the whole extent)."""
    if step > 0:
        return (0 if start is None else start), (_INT_MAX if end is None else end)
    return (-1 if start is None else start), (-_INT_MAX if end is None else end)


@mapper("slice", "strided_slice")
def _slice(g, v):
    a = v.attrs
    rank = v.rank("Input")
    axes = [int(x) % max(rank, 1) for x in a["axes"]]
    steps = [int(s) for s in a.get("strides") or [1] * len(axes)]
    starts, ends = [], []
    for s, e, st in zip(a["starts"], a["ends"], steps):
        lo, hi = _slice_bounds(int(s), int(e), st)
        starts.append(lo)
        ends.append(hi)
    out = g.node("Slice", [v.x("Input"), g.const(starts), g.const(ends), g.const(axes),
                           g.const(steps)], hint=v.out_hint("Out"))
    return {"Out": out}


@mapper("gather")
def _gather(g, v):
    idx = g.reshape(v.x("Index"), [-1])
    return {"Out": g.node("Gather", [v.x("X"), idx], axis=int(v.attrs["axis"]),
                          hint=v.out_hint("Out"))}


@mapper("gather_nd")
def _gather_nd(g, v):
    ishape = v.var("Index").shape
    if ishape[-1] == 0:
        raise ExportError("gather_nd: an index with an empty last dim has no ONNX form")
    idx = g.cast(v.x("Index"), v.var("Index").dtype, np.int64)
    return {"Out": g.node("GatherND", [v.x("X"), idx], hint=v.out_hint("Out"))}


@mapper("where_index")
def _where_index(g, v):
    """NonZero gives ``[rank, count]``; the op's rows are the transpose."""
    nz = g.node("NonZero", [v.x("Condition")])
    return {"Out": g.node("Transpose", [nz], perm=[1, 0], hint=v.out_hint("Out"))}


@mapper("masked_select")
def _masked_select(g, v):
    """X and Mask broadcast together (a Where of X with itself takes the common shape, Expand
    the mask to it), flattened, then Compress keeps the entries the mask holds."""
    x = v.x("X")
    mask = g.cast(v.x("Mask"), v.var("Mask").dtype, bool)
    full = g.node("Where", [mask, x, x])
    mask = g.node("Expand", [mask, g.shape_of(full)])
    return {"Y": g.node("Compress", [g.reshape(full, [-1]), g.reshape(mask, [-1])], axis=0,
                        hint=v.out_hint("Y"))}


@mapper("scatter")
def _scatter(g, v):
    x, ids, upd = v.x("X"), v.x("Ids"), v.x("Updates")
    ids = g.unsqueeze(g.cast(g.reshape(ids, [-1]), v.var("Ids").dtype, np.int64), [1])
    if v.attrs["overwrite"]:
        return {"Out": g.node("ScatterND", [x, ids, upd], hint=v.out_hint("Out"))}
    # NOTE: without overwrite the rows named are zeroed, then every update is added.
    zeroed = g.node("ScatterND", [x, ids, g.node("Mul", [upd, g.const(0, v.var("X").dtype)])])
    return {"Out": g.node("ScatterND", [zeroed, ids, upd], reduction="add",
                          hint=v.out_hint("Out"))}


@mapper("getitem")
def _getitem(g, v):
    """Python indexing: slices and ints as one Slice (ints then squeezed), ``None`` as
    Unsqueeze, one int index tensor as Gather, one bool mask as GatherND on its NonZero."""
    items = v.attrs["index"]
    x, shape = v.x("X"), tuple(v.var("X").shape)
    tvars = v.vars("Index")
    tinfo = [(tuple(t.shape), t.dtype.kind == "b") for t in tvars]
    placed, _end = placed_index(shape, items, tinfo)
    tensors = [it for it, _, _ in placed if it["kind"] == "tensor"]
    if len(tensors) > 1 or (tensors and any(it["kind"] == "int" for it, _, _ in placed)):
        if any(tinfo[it["input"]][1] for it in tensors):
            raise ExportError("getitem: a bool mask beside other index tensors or ints has no "
                              "ONNX mapping; index in steps")
        return {"Out": g.node("Identity", [_advanced(g, v, x, placed, tinfo, len(shape))],
                              hint=v.out_hint("Out"))}
    axes, starts, ends, steps, drop = [], [], [], [], []
    for it, ax, _ in placed:
        if it["kind"] == "slice":
            step = 1 if it.get("step") is None else int(it["step"])
            lo, hi = _slice_bounds(it.get("start"), it.get("stop"), step)
        elif it["kind"] == "int":
            step, lo = 1, int(it["value"])
            hi = lo + 1 if lo != -1 else _INT_MAX
            drop.append(ax)
        else:
            continue
        axes.append(ax)
        starts.append(lo)
        ends.append(hi)
        steps.append(step)
    if axes:
        x = g.node("Slice", [x, g.const(starts), g.const(ends), g.const(axes), g.const(steps)])
    if drop:
        x = g.squeeze(x, drop)
    news, pos = [], 0
    for it, _ax, w in placed:
        kind = it["kind"]
        if kind == "none":
            news.append(pos)
            pos += 1
        elif kind == "slice":
            pos += 1
        elif kind == "ellipsis":
            pos += w
        elif kind == "tensor":
            k = it["input"]
            ishape, is_bool = tinfo[k]
            idx = v.x("Index", k)
            x = _mask_select(g, x, idx, pos, w, len(shape) - len(drop)) if is_bool else \
                g.node("Gather", [x, idx], axis=pos)
            pos += 1 if is_bool else len(ishape)
    if news:
        x = g.unsqueeze(x, news)
    return {"Out": g.node("Identity", [x], hint=v.out_hint("Out"))}


def _mask_select(g, x, mask, ax, w, rank):
    """``x[..., mask, ...]`` for a bool mask over dims ``ax .. ax+w-1`` of ``x``."""
    idx = g.node("Transpose", [g.node("NonZero", [mask])], perm=[1, 0])
    if ax:
        perm = list(range(ax, ax + w)) + list(range(ax)) + list(range(ax + w, rank))
        x = g.node("Transpose", [x], perm=perm)
    y = g.node("GatherND", [x, idx])
    if ax:
        out_rank = rank - w + 1
        y = g.node("Transpose", [y], perm=list(range(1, ax + 1)) + [0] +
                   list(range(ax + 1, out_rank)))
    return y


def _advanced(g, v, x, placed, tinfo, rank):
    """numpy's advanced indexing (several int tensors, ints among them): slices first, then
    the advanced axes moved to the front and gathered at once with GatherND on the broadcast
    indices, the broadcast dims placed where numpy puts them, then the ``None`` dims."""
    axes, starts, ends, steps, adv, idx = [], [], [], [], [], []
    for it, ax, _ in placed:
        if it["kind"] == "slice":
            step = 1 if it.get("step") is None else int(it["step"])
            lo, hi = _slice_bounds(it.get("start"), it.get("stop"), step)
            axes.append(ax)
            starts.append(lo)
            ends.append(hi)
            steps.append(step)
        elif it["kind"] == "int":
            adv.append(ax)
            idx.append(g.const(int(it["value"]), np.int64))
        elif it["kind"] == "tensor":
            k = it["input"]
            adv.append(ax)
            idx.append(g.cast(v.x("Index", k), v.var("Index", k).dtype, np.int64))
    if axes:
        x = g.node("Slice", [x, g.const(starts), g.const(ends), g.const(axes), g.const(steps)])
    rest = [a for a in range(rank) if a not in adv]
    x = g.node("Transpose", [x], perm=adv + rest)
    zero = g.node("Mul", [idx[0], g.const(0, np.int64)])
    for i in idx[1:]:
        zero = g.node("Add", [zero, g.node("Mul", [i, g.const(0, np.int64)])])
    cols = [g.unsqueeze(g.node("Add", [i, zero]), [-1]) for i in idx]
    y = g.node("GatherND", [x, g.node("Concat", cols, axis=-1)])
    nb = max([len(tinfo[it["input"]][0]) for it, _, _ in placed if it["kind"] == "tensor"] +
             [0])
    kinds = [it["kind"] for it, _, _ in placed]
    adv_pos = [i for i, k in enumerate(kinds) if k in ("int", "tensor")]
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    desired, seen_adv = [], False
    for (_it, _ax, w), kind in zip(placed, kinds):
        if kind == "none":
            desired.append("N")
        elif kind == "slice":
            desired.append("R")
        elif kind == "ellipsis":
            desired.extend("R" * w)
        elif not seen_adv:
            seen_adv = True
            desired.append("B")
    desired.extend("R" * (rank - sum(w for _, _, w in placed)))
    if not adjacent:
        desired = ["B"] + [d for d in desired if d != "B"]
    before = desired[:desired.index("B")]
    p = sum(d == "R" for d in before)
    if p:
        n_rest = len(rest)
        y = g.node("Transpose", [y], perm=list(range(nb, nb + p)) + list(range(nb)) +
                   list(range(nb + p, nb + n_rest)))
    final, news = [], []
    for d in desired:
        if d == "B":
            final.extend(["B"] * nb)
        else:
            if d == "N":
                news.append(len(final))
            final.append(d)
    return g.unsqueeze(y, news) if news else y


class _PositionsView:
    """``getitem``'s view of a ``setitem`` op, reading the flat positions of X instead of X."""

    def __init__(self, v, positions):
        self._v, self._positions = v, positions
        self.attrs = v.attrs

    def x(self, slot, i=0):
        return self._positions if slot == "X" else self._v.x(slot, i)

    def var(self, slot, i=0):
        return self._v.var(slot, i)

    def vars(self, slot):
        return self._v.vars(slot)

    def out_hint(self, slot, i=0):
        return "positions"


@mapper("setitem")
def _setitem(g, v):
    """``X[index] = Value``: the flat positions of X selected by the index (``getitem``'s
    mapping applied to ``arange(size).reshape(shape(X))``) name the elements ScatterND writes
    in the flattened X; Value is cast and expanded to the selection first."""
    x, dt = v.x("X"), v.var("X").dtype
    shape = g.shape_of(x)
    size = g.node("ReduceProd", [shape], keepdims=1)
    flat = g.node("Range", [g.const(0, np.int64), g.node("Squeeze", [size]),
                            g.const(1, np.int64)])
    positions = g.node("Reshape", [flat, shape])
    sel = _getitem(g, _PositionsView(v, positions))["Out"]
    value = g.cast(v.x("Value"), v.var("Value").dtype, dt)
    upd = g.reshape(g.node("Expand", [value, g.shape_of(sel)]), [-1])
    out = g.node("ScatterND", [g.reshape(x, [-1]), g.unsqueeze(g.reshape(sel, [-1]), [1]), upd])
    return {"Out": g.node("Reshape", [out, shape], hint=v.out_hint("Out"))}


def _int64_vector(g, v, slot):
    return g.cast(v.x(slot), v.var(slot).dtype, np.int64)


@mapper("fill_constant_tensor")
def _fill_constant_tensor(g, v):
    dt = v.out_var("Out").dtype
    value = g.const(np.array(v.attrs["value"], dtype=dt), dt)
    shape = _int64_vector(g, v, "ShapeTensor")
    return {"Out": g.node("Expand", [value, shape], hint=v.out_hint("Out"))}


@mapper("tile_tensor")
def _tile_tensor(g, v):
    x, rank = v.x("X"), v.rank("X")
    reps = _int64_vector(g, v, "RepeatTimes")
    n = len(v.attrs["repeat_times"])
    if n > rank:
        x = g.unsqueeze(x, list(range(n - rank)))
    elif n < rank:
        reps = g.node("Concat", [g.const([1] * (rank - n)), reps], axis=0)
    return {"Out": g.node("Tile", [x, reps], hint=v.out_hint("Out"))}


@mapper("slice_tensor")
def _slice_tensor(g, v):
    # NOTE: ONNX Slice counts negative bounds from the end and clamps, as Python slices do.
    rank = v.rank("Input")
    axes = [int(a) % max(rank, 1) for a in v.attrs["axes"]]
    out = g.node("Slice", [v.x("Input"), _int64_vector(g, v, "StartsTensor"),
                           _int64_vector(g, v, "EndsTensor"), g.const(axes)],
                 hint=v.out_hint("Out"))
    return {"Out": out}

"""Indexing ops: slice, strided_slice, gather, gather_nd, scatter, one_hot, where, getitem
(Python's ``x[index]``, with the index encoded as plain data; see :mod:`core.indexing`) and
setitem (``x[index] = value`` as a new value of ``x``).

Index inputs never receive a gradient. Gradients of gathers are zeros plus a scatter-add
(``xp.add.at``), so repeated indices accumulate.
"""
import numpy as np

from ._shapes import ShapeError, broadcast_shapes, normalize_axis, unbroadcast
from .registry import Meta, OpDef, register_op

__all__ = ["check_index", "check_scatter_updates", "decode_index", "gather", "gather_nd", "getitem",
           "getitem_shape", "one_hot", "scatter", "setitem", "setitem_value_shape", "slice",
           "slice_index", "slice_tensor", "strided_slice", "where"]

_pyslice = slice


def slice_index(rank, axes, starts, ends, strides=None, what="slice"):
    """The index tuple of Paddle's (strided_)slice: Python slice semantics per named axis
    (negative bounds count from the end, out-of-range bounds are clamped)."""
    strides = [1] * len(axes) if strides is None else list(strides)
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ShapeError(f"{what}: axes {list(axes)}, starts {list(starts)}, ends {list(ends)} "
                         f"and strides {strides} must have the same length")
    index = [_pyslice(None)] * rank
    for a, s, e, st in zip(axes, starts, ends, strides):
        ax = normalize_axis(int(a), rank, f"{what}: axes entry")
        if index[ax] != _pyslice(None) or int(st) == 0:
            raise ShapeError(f"{what}: axis {ax} is named twice or has stride 0")
        index[ax] = _pyslice(int(s), int(e), int(st))
    return tuple(index)


def _slice_len(dim, sl):
    return len(range(*sl.indices(dim))) if dim >= 0 else -1


class _Slice(OpDef):
    inputs = ("Input",)

    def _index(self, rank, attrs):
        return slice_index(rank, attrs["axes"], attrs["starts"], attrs["ends"],
                           attrs.get("strides"), self.type)

    def infer(self, x, **attrs):
        idx = self._index(len(x.shape), attrs)
        return Meta(tuple(_slice_len(d, s) for d, s in zip(x.shape, idx)), x.dtype)

    def forward(self, ctx, x, **attrs):
        return x[self._index(x.ndim, attrs)].copy()

    def backward(self, ctx, ins, outs, douts, **attrs):
        g = ctx.xp.zeros_like(ins[0])
        g[self._index(ins[0].ndim, attrs)] = douts[0]
        return (g,)


@register_op
class slice(_Slice):
    attrs = {"axes": [], "starts": [], "ends": []}


@register_op
class slice_tensor(_Slice):
    """``slice`` whose starts and ends are the 1-D int tensors ``StartsTensor`` and
    ``EndsTensor`` (one entry per axis, Paddle's StartsTensor / EndsTensor), known only at run
    time. The ``starts`` / ``ends`` attrs are the static view: None where a tensor decides."""

    inputs = ("Input", "StartsTensor", "EndsTensor")
    nondiff_inputs = ("StartsTensor", "EndsTensor")
    attrs = {"axes": [], "starts": [], "ends": []}

    def infer(self, x, starts_t, ends_t, axes, starts, ends):
        for name, t in (("starts", starts_t), ("ends", ends_t)):
            if len(t.shape) != 1 or t.shape[0] not in (-1, len(axes)):
                raise ShapeError(f"slice: the {name} tensor has shape {list(t.shape)}, "
                                 f"expected [{len(axes)}]")
        known = [(a, s, e) for a, s, e in zip(axes, starts, ends)
                 if s is not None and e is not None]
        idx = slice_index(len(x.shape), [k[0] for k in known], [k[1] for k in known],
                          [k[2] for k in known], None, "slice")
        out = [_slice_len(d, sl) for d, sl in zip(x.shape, idx)]
        for a, s, e in zip(axes, starts, ends):
            if s is None or e is None:
                out[normalize_axis(int(a), len(x.shape), "slice: axes entry")] = -1
        return Meta(tuple(out), x.dtype)

    def _bounds(self, starts_t, ends_t, attrs):
        starts = [int(v) for v in starts_t.reshape(-1).tolist()]
        ends = [int(v) for v in ends_t.reshape(-1).tolist()]
        return {"axes": attrs["axes"], "starts": starts, "ends": ends}

    def forward(self, ctx, x, starts_t, ends_t, **attrs):
        return _Slice.forward(self, ctx, x, **self._bounds(starts_t, ends_t, attrs))

    def backward(self, ctx, ins, outs, douts, **attrs):
        (g,) = _Slice.backward(self, ctx, ins[:1], outs, douts,
                               **self._bounds(ins[1], ins[2], attrs))
        return g, None, None


@register_op
class strided_slice(_Slice):
    attrs = {"axes": [], "starts": [], "ends": [], "strides": []}


def _check_ids(xp, ids, size, what):
    """Every id in ``[0, size)``; the error names the first offender."""
    if ids.size:
        bad = (ids < 0) | (ids >= size)
        if bool(bad.any()):
            v = int(ids[bad].reshape(-1)[0])
            raise IndexError(f"{what}: index {v} is out of range [0, {size})")


@register_op
class gather(OpDef):
    """Rows (entries along ``axis``) of X picked by a 1-D int Index ([N, 1] is read as [N])."""

    inputs = ("X", "Index")
    nondiff_inputs = ("Index",)
    attrs = {"axis": 0}

    def infer(self, x, index, axis):
        ax = normalize_axis(axis, len(x.shape), "gather: axis")
        n = -1 if -1 in index.shape else int(np.prod(index.shape))
        return Meta(x.shape[:ax] + (n,) + x.shape[ax + 1:], x.dtype)

    def forward(self, ctx, x, index, axis):
        ids = index.reshape(-1)
        _check_ids(ctx.xp, ids, x.shape[axis], f"gather along axis {axis} of {list(x.shape)}")
        return ctx.xp.take(x, ids, axis=axis)

    def backward(self, ctx, ins, outs, douts, axis):
        xp = ctx.xp
        g = xp.zeros_like(ins[0])
        xp.add.at(xp.moveaxis(g, axis, 0), ins[1].reshape(-1), xp.moveaxis(douts[0], axis, 0))
        return g, None


@register_op
class gather_nd(OpDef):
    """``Out[i...] = X[Index[i..., 0], ..., Index[i..., k-1]]``: Index's last dim indexes the
    first ``k`` dims of X."""

    inputs = ("X", "Index")
    nondiff_inputs = ("Index",)

    def infer(self, x, index):
        k = index.shape[-1]
        if k < 0 or k > len(x.shape):
            raise ShapeError(f"gather_nd: index shape {list(index.shape)} needs a known last "
                             f"dim <= rank of X {list(x.shape)}")
        return Meta(tuple(index.shape[:-1]) + tuple(x.shape[k:]), x.dtype)

    def _cols(self, xp, x, index):
        k = index.shape[-1]
        for i in range(k):
            _check_ids(xp, index[..., i], x.shape[i], f"gather_nd on {list(x.shape)}, dim {i}")
        return tuple(index[..., i] for i in range(k))

    def forward(self, ctx, x, index):
        if index.shape[-1] == 0:  # NOTE: an empty last dim picks the whole X for every row
            return ctx.xp.broadcast_to(x, index.shape[:-1] + x.shape).copy()
        return x[self._cols(ctx.xp, x, index)]

    def backward(self, ctx, ins, outs, douts, **attrs):
        x, index = ins
        if index.shape[-1] == 0:
            return unbroadcast(douts[0], x.shape), None
        g = ctx.xp.zeros_like(x)
        ctx.xp.add.at(g, self._cols(ctx.xp, x, index), douts[0])
        return g, None


def check_scatter_updates(x_shape, ids_shape, upd_shape):
    n = int(np.prod(ids_shape)) if -1 not in ids_shape else -1
    want = (n,) + tuple(x_shape[1:])
    if len(upd_shape) != len(want) or any(a != b and a >= 0 and b >= 0
                                          for a, b in zip(upd_shape, want)):
        raise ShapeError(f"scatter: updates of shape {list(upd_shape)} do not fit ids of shape "
                         f"{list(ids_shape)} into X of shape {list(x_shape)} (expected "
                         f"{list(want)})")


@register_op
class scatter(OpDef):
    """Rows ``Ids`` of X replaced by (``overwrite``) or set to the sum of (not ``overwrite``)
    the rows of Updates."""

    inputs = ("X", "Ids", "Updates")
    nondiff_inputs = ("Ids",)
    attrs = {"overwrite": True}

    def infer(self, x, ids, updates, overwrite):
        check_scatter_updates(x.shape, ids.shape, updates.shape)
        return Meta(tuple(x.shape), x.dtype)

    def _last(self, xp, ids):
        """Mask of the entries that are the last occurrence of their id: they win overwrites."""
        # NOTE: explicit, so repeated ids resolve the same way on every device.
        _, first_rev = xp.unique(ids[::-1], return_index=True)
        mask = xp.zeros(ids.shape, dtype=bool)
        mask[ids.shape[0] - 1 - first_rev] = True
        return mask

    def forward(self, ctx, x, ids, updates, overwrite):
        xp, ids = ctx.xp, ids.reshape(-1)
        check_scatter_updates(x.shape, ids.shape, updates.shape)
        _check_ids(xp, ids, x.shape[0], f"scatter into {list(x.shape)}")
        out = x.copy()
        if overwrite:
            last = self._last(xp, ids)
            out[ids[last]] = updates[last]
        else:
            out[ids] = 0
            xp.add.at(out, ids, updates)
        return out

    def backward(self, ctx, ins, outs, douts, overwrite):
        ids = ins[1].reshape(-1)
        gx = douts[0].copy()
        gx[ids] = 0
        gu = douts[0][ids]
        if overwrite:
            gu = gu * self._last(ctx.xp, ids).reshape((-1,) + (1,) * (gu.ndim - 1))
        return gx, None, gu


@register_op
class one_hot(OpDef):
    """Int X of shape S to float32 of shape S + [depth]."""

    differentiable = False
    attrs = {"depth": 1, "allow_out_of_range": False}

    def infer(self, x, depth, allow_out_of_range):
        return Meta(tuple(x.shape) + (int(depth),), np.dtype(np.float32))

    def forward(self, ctx, x, depth, allow_out_of_range):
        xp = ctx.xp
        if not allow_out_of_range:
            _check_ids(xp, x, depth, f"one_hot with depth {depth}")
        # NOTE: out-of-range ids (allowed) match no column and give an all-zero row.
        return (x[..., None] == xp.arange(depth)).astype(xp.float32)


@register_op
class where(OpDef):
    """``X`` where Condition holds, else ``Y``; the three broadcast as in numpy."""

    inputs = ("Condition", "X", "Y")
    nondiff_inputs = ("Condition",)

    def infer(self, cond, x, y):
        shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape, "where"), y.shape,
                                 "where")
        return Meta(shape, np.result_type(x.dtype, y.dtype))

    def forward(self, ctx, cond, x, y):
        return ctx.xp.where(cond, x, y)

    def backward(self, ctx, ins, outs, douts, **attrs):
        cond, x, y = ins
        dout = douts[0]
        gx = unbroadcast(dout * cond, getattr(x, "shape", ())) if ctx.needs_grad[1] else None
        gy = unbroadcast(dout * ctx.xp.logical_not(cond), getattr(y, "shape", ())) \
            if ctx.needs_grad[2] else None
        return None, gx, gy


# -- getitem ---------------------------------------------------------------------------------
# ``index`` is a list of items: {"kind": "int", "value": v}, {"kind": "slice", "start": a,
# "stop": b, "step": c} (None allowed), {"kind": "none"}, {"kind": "ellipsis"} and
# {"kind": "tensor", "input": k} (the k-th Index input: an int array or a bool mask).

def _width(item, tinfo):
    """How many dims of X the item consumes."""
    kind = item["kind"]
    if kind == "tensor":
        shape, is_bool = tinfo[item["input"]]
        return len(shape) if is_bool else 1
    return 1 if kind in ("int", "slice") else 0


def _placed(shape, items, tinfo):
    """``(item, first axis, dims consumed)`` per item, with the ellipsis expanded."""
    rank = len(shape)
    used = sum(_width(it, tinfo) for it in items)
    if sum(it["kind"] == "ellipsis" for it in items) > 1:
        raise IndexError("getitem: an index can only have a single ellipsis ('...')")
    if used > rank:
        raise IndexError(f"getitem: too many indices for a tensor of shape {list(shape)}: "
                         f"{used} dims indexed")
    placed, axis = [], 0
    for it in items:
        w = rank - used if it["kind"] == "ellipsis" else _width(it, tinfo)
        placed.append((it, axis, w))
        axis += w
    return placed, axis


def check_index(shape, items, tinfo, arrays=None):
    """Bounds and shapes of an encoded index against X's ``shape`` (-1 dims are not checked;
    int index values only when ``arrays`` are given). Errors name the index and the shape."""
    placed, end = _placed(shape, items, tinfo)
    for it, ax, w in placed:
        kind, dim = it["kind"], (shape[ax] if ax < len(shape) else -1)
        if kind == "int" and dim >= 0 and not -dim <= it["value"] < dim:
            raise IndexError(f"getitem: index {it['value']} is out of range for axis {ax} "
                             f"with size {dim} (tensor shape {list(shape)})")
        if kind == "slice" and it.get("step") == 0:
            raise ValueError("getitem: slice step cannot be zero")
        if kind != "tensor":
            continue
        ishape, is_bool = tinfo[it["input"]]
        if is_bool and any(a != b and a >= 0 and b >= 0
                           for a, b in zip(ishape, shape[ax:ax + w])):
            raise IndexError(f"getitem: bool mask of shape {list(ishape)} does not match dims "
                             f"{list(shape[ax:ax + w])} (from axis {ax}) of tensor shape "
                             f"{list(shape)}")
        arr = None if arrays is None else arrays[it["input"]]
        if not is_bool and arr is not None and arr.size and dim >= 0:
            lo, hi = int(arr.min()), int(arr.max())
            if lo < -dim or hi >= dim:
                raise IndexError(f"getitem: index {hi if hi >= dim else lo} (in an index "
                                 f"tensor) is out of range for axis {ax} with size {dim} "
                                 f"(tensor shape {list(shape)})")
    return placed, end


def getitem_shape(shape, items, tinfo):
    """numpy's result shape for the encoded index; -1 where it depends on unknown dims or on
    the number of True entries of a bool mask."""
    placed, end = check_index(shape, items, tinfo)
    has_adv = any(it["kind"] == "tensor" for it in items)
    out, adv, first, prev, adjacent = [], [], None, None, True
    for i, (it, ax, w) in enumerate(placed):
        kind = it["kind"]
        if kind == "none":
            out.append(1)
        elif kind == "slice":
            sl = _pyslice(it.get("start"), it.get("stop"), it.get("step"))
            out.append(_slice_len(shape[ax], sl))
        elif kind == "ellipsis":
            out.extend(shape[ax:ax + w])
        elif kind == "int" and not has_adv:
            continue
        else:
            # NOTE: with any tensor index, ints are advanced indices too (numpy's rule), and
            # the advanced dims go first unless the advanced items are adjacent.
            ishape, is_bool = tinfo[it["input"]] if kind == "tensor" else ((), False)
            adv.append((-1,) if is_bool else tuple(ishape))
            first = len(out) if first is None else first
            adjacent = adjacent and (prev is None or prev == i - 1)
            prev = i
    out.extend(shape[end:])
    if adv:
        b = ()
        for s in adv:
            b = broadcast_shapes(b, s, "getitem: index tensors")
        pos = first if adjacent else 0
        out[pos:pos] = list(b)
    return tuple(out)


def decode_index(items, arrays, xp):
    """The Python index tuple for an encoded index; bool masks become their ``nonzero()``
    int arrays (the same selection, and the form ``xp.add.at`` takes)."""
    index = []
    for it in items:
        kind = it["kind"]
        if kind == "int":
            index.append(int(it["value"]))
        elif kind == "slice":
            index.append(_pyslice(it.get("start"), it.get("stop"), it.get("step")))
        elif kind == "none":
            index.append(None)
        elif kind == "ellipsis":
            index.append(Ellipsis)
        elif kind == "tensor":
            a = arrays[it["input"]]
            index.extend(xp.nonzero(a) if a.dtype.kind == "b" else [a])
        else:
            raise ValueError(f"getitem: unknown index item kind {kind!r} in {it}")
    return tuple(index)


_basic_cache = {}


def _basic_index(items):
    """:func:`decode_index` for an index without tensors, memoised per attribute list (a
    compiled program passes the same list on every run)."""
    hit = _basic_cache.get(id(items))
    if hit is not None and hit[0] is items:
        return hit[1]
    decoded = decode_index(items, (), None)
    if len(_basic_cache) > 512:
        _basic_cache.clear()
    _basic_cache[id(items)] = (items, decoded)
    return decoded


def _tinfo(items_or_metas):
    return [(tuple(m.shape), np.dtype(m.dtype).kind == "b") for m in items_or_metas]


@register_op
class getitem(OpDef):
    inputs = ("X", "Index*")
    nondiff_inputs = ("Index",)
    attrs = {"index": []}

    def infer(self, x, index_metas, index):
        return Meta(getitem_shape(tuple(x.shape), index, _tinfo(index_metas)), x.dtype)

    def fast_kernel(self, xp, metas, index):
        # NOTE: inside a compiled plan a view is safe: plan kernels never write their inputs.
        if any(m is None or np.dtype(m.dtype).kind == "b" for m in metas[1]):
            return None  # bool masks decode through nonzero(): the general kernel
        if not metas[1]:
            idx = decode_index(index, (), None)
            return lambda x, arrays: x[idx]
        if len(index) == 1:
            return lambda x, arrays: x[arrays[0]]
        template = [None if it["kind"] == "tensor" else decode_index([it], (), None)[0]
                    for it in index]
        slots = [(k, it["input"]) for k, it in enumerate(index) if it["kind"] == "tensor"]

        def kernel(x, arrays):
            idx = list(template)
            for k, j in slots:
                idx[k] = arrays[j]
            return x[tuple(idx)]

        return kernel

    def forward(self, ctx, x, arrays, index):
        # NOTE: bounds are checked before the op runs (eager: core.indexing.getitem; static:
        # infer), so a compiled program's loop pays only for the decoded index. The result is
        # a copy, never a view of X (basic indexing would alias X's memory).
        if arrays:
            return ctx.xp.array(x[decode_index(index, arrays, ctx.xp)])
        return ctx.xp.array(x[_basic_index(index)])

    def backward(self, ctx, ins, outs, douts, index):
        x, arrays = ins
        idx = decode_index(index, arrays, ctx.xp)
        g = ctx.xp.zeros_like(x)
        if any(it["kind"] == "tensor" for it in index):
            ctx.xp.add.at(g, idx, douts[0])  # repeated indices accumulate
        else:
            g[idx] += douts[0]  # basic indexing never selects an element twice
        return g, None


# -- setitem ---------------------------------------------------------------------------------

def setitem_value_shape(sel, vshape, what="setitem"):
    """Check that a value of shape ``vshape`` broadcasts to the selected shape ``sel``
    (numpy's assignment rule: extra leading dims of size 1 are dropped); -1 dims match any."""
    vshape = tuple(vshape)
    lead = len(vshape) - len(sel)
    if lead > 0 and all(d == 1 for d in vshape[:lead]):
        vshape = vshape[lead:]
    ok = len(vshape) <= len(sel) and all(
        v in (1, -1) or s == -1 or v == s for v, s in zip(reversed(vshape), reversed(sel)))
    if not ok:
        raise ShapeError(f"{what}: a value of shape {list(vshape)} cannot be assigned to the "
                         f"selection of shape {list(sel)} (it must broadcast to it)")


@register_op
class setitem(OpDef):
    """``Out`` is a copy of ``X`` with ``Out[index] = Value`` (Value broadcast to the selection
    and cast to X's dtype; the index is encoded as for ``getitem``). Gradients: X gets
    ``dOut`` with the selection zeroed, Value the selection of ``dOut`` summed back to its
    shape. With repeated entries in an index tensor the last write wins, as in numpy, and
    each repeated position passes its gradient to Value."""

    inputs = ("X", "Value", "Index*")
    nondiff_inputs = ("Index",)
    attrs = {"index": []}

    def infer(self, x, value, index_metas, index):
        sel = getitem_shape(tuple(x.shape), index, _tinfo(index_metas))
        setitem_value_shape(sel, tuple(getattr(value, "shape", ())))
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, value, arrays, index):
        out = ctx.xp.array(x)
        out[decode_index(index, arrays, ctx.xp) if arrays else _basic_index(index)] = value
        return out

    def backward(self, ctx, ins, outs, douts, index):
        _x, value, arrays = ins
        idx = decode_index(index, arrays, ctx.xp)
        dout = douts[0]
        gx = gv = None
        if ctx.needs_grad[0]:
            gx = ctx.xp.array(dout)
            gx[idx] = 0
        if ctx.needs_grad[1]:
            vshape = tuple(getattr(value, "shape", ()))
            g = dout[idx]
            if len(vshape) > g.ndim:
                g = g.reshape((1,) * (len(vshape) - g.ndim) + g.shape)
            gv = unbroadcast(g, vshape)
        return gx, gv, None

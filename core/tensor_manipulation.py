"""PaddlePaddle 2.x manipulation functions beyond the fluid ones (``paddle.roll``,
``paddle.unbind``, ``paddle.meshgrid``, ``paddle.unique``, ``paddle.gather_nd``,
``paddle.scatter_nd_add``, ``paddle.index_sample``, ``paddle.multiplex``, ...) and the small
ones about tensors themselves (``paddle.assign``, ``paddle.clone``, ``paddle.is_tensor``,
``paddle.rank``, ``paddle.tolist``).

They are compositions of registered ops (``unique`` is an op of its own, with a data-dependent
length like ``masked_select``), so they run eagerly, in static programs and in converted code
with the gradients of the ops they are made of. ``scatter_nd_add`` flattens the indexed leading
axes into one row index and adds with ``scatter(overwrite=False)`` into zeros; ``roll`` joins two
slices per axis; ``index_sample`` and ``multiplex`` are ``gather_nd`` with row numbers.
"""
import builtins

import numpy as np

from . import layers as _L
from . import mode as _mode
from .checks import check_variable, is_variable_like
from .dispatch import apply as _apply
from .dtypes import convert_dtype
from .tensor import to_tensor
from .tensor_search import flip

__all__ = ["assign", "clone", "crop_tensor", "gather_nd", "index_sample", "is_tensor",
           "meshgrid", "multiplex", "rank", "reverse", "roll", "scatter_nd", "scatter_nd_add",
           "shard_index", "strided_slice", "tolist", "unbind", "unique"]


def _constant(array):
    return to_tensor(array) if _mode.in_dynamic_mode() else _L.assign(array)


def _ints(value, arg, api):
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{api}(): argument '{arg}' must be an int or a list of ints, got "
                            f"{value!r}")
    return [int(v) for v in values]


def _known(shape, api, what="x"):
    shape = list(shape)
    if builtins.any(d is None or d < 0 for d in shape):
        raise ValueError(f"{api}(): the shape of {what} must be known, got {shape}")
    return shape


def assign(x, output=None):
    """``paddle.assign``: a copy of ``x`` (a Tensor, ndarray, list or number), written into
    ``output`` when given (an eager ``output`` takes the value, shape included)."""
    return _L.assign(x, output)


def clone(x, name=None):
    """``paddle.clone``: a copy of ``x`` that keeps the gradient path to it."""
    check_variable(x, "x", "clone")
    return _apply("assign", [x])


def is_tensor(x):
    """``paddle.is_tensor``: whether ``x`` is a Tensor (or a static Variable)."""
    return is_variable_like(x)


def rank(input):
    """``paddle.rank``: the number of dimensions of ``input``, an int32 tensor of shape []."""
    check_variable(input, "input", "rank")
    return _L.fill_constant([], "int32", len(input.shape))


def tolist(x):
    """``paddle.tolist``: the values of eager tensor ``x`` as nested Python lists."""
    check_variable(x, "x", "tolist")
    if not hasattr(x, "numpy") or not _mode.in_dynamic_mode():
        raise TypeError("tolist(): x must be an eager Tensor; a static Variable has no values "
                        "until the program runs")
    return x.numpy().tolist()


def reverse(x, axis, name=None):
    """``paddle.reverse`` (fluid's name of :func:`flip`): ``x`` reversed along ``axis``."""
    return flip(x, axis)


def unbind(input, axis=0):
    """``paddle.unbind``: the slices of ``input`` along ``axis`` (removed), as a list."""
    check_variable(input, "input", "unbind")
    return _L.unstack(input, axis)


def roll(x, shifts, axis=None, name=None):
    """``paddle.roll``: ``x`` with the entries shifted by ``shifts`` along ``axis`` (ints or
    lists of the same length), wrapping around; with ``axis`` None, of ``x`` flattened (the
    shape is kept)."""
    check_variable(x, "x", "roll")
    shifts = _ints(shifts, "shifts", "roll")
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"roll(): with axis None, 'shifts' must be one int, got {shifts}")
        shape = _known(x.shape, "roll")
        return _L.reshape(roll(_L.reshape(x, [-1]), shifts, 0), shape)
    axes = _ints(axis, "axis", "roll")
    if len(axes) != len(shifts):
        raise ValueError(f"roll(): 'shifts' {shifts} and 'axis' {axes} differ in length")
    rank_, out = len(x.shape), x
    for s, a in zip(shifts, axes):
        if not -rank_ <= a < rank_:
            raise ValueError(f"roll(): axis {a} is out of range for x of shape {list(x.shape)}")
        n = x.shape[a]
        if n is None or n < 0:
            raise ValueError(f"roll(): the size of axis {a} must be known, got {list(x.shape)}")
        s %= builtins.max(n, 1)
        if s:
            tail = _L.slice(out, axes=[a], starts=[n - s], ends=[n])
            head = _L.slice(out, axes=[a], starts=[0], ends=[n - s])
            out = _L.concat([tail, head], axis=a)
    return out if out is not x else _L.assign(x)


def meshgrid(*args, name=None):
    """``paddle.meshgrid``: for 1-D tensors of sizes n0, n1, ..., the tensors of shape
    [n0, n1, ...] that repeat each along the other axes ('ij' indexing)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    sizes = []
    for t in args:
        check_variable(t, "args", "meshgrid")
        if len(t.shape) != 1:
            raise ValueError(f"meshgrid(): every input must be 1-D, got shape {list(t.shape)}")
        sizes.append(_known(t.shape, "meshgrid", "each input")[0])
    outs = []
    for k, t in enumerate(args):
        shaped = _L.reshape(t, [n if i == k else 1 for i, n in enumerate(sizes)])
        outs.append(_L.expand(shaped, [1 if i == k else n for i, n in enumerate(sizes)]))
    return outs


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """``paddle.unique``: the sorted distinct entries of ``x`` (flattened, or the distinct
    slices along ``axis``), and as asked the index of each one's first occurrence, the index
    into the result of every entry of ``x`` and the counts (all of ``dtype``). The length is
    -1 in a static program until it runs."""
    check_variable(x, "x", "unique")
    dt = convert_dtype(dtype).name
    if dt not in ("int32", "int64"):
        raise TypeError(f"unique(): argument 'dtype' must be int32 or int64, got {dtype!r}")
    attrs = {"axis": [] if axis is None else _ints(axis, "axis", "unique")[:1], "dtype": dt}
    out, first, inverse, counts = _apply("unique", [x], attrs)
    extra = [t for t, want in ((first, return_index), (inverse, return_inverse),
                               (counts, return_counts)) if want]
    return tuple([out] + extra) if extra else out


def gather_nd(x, index, name=None):
    """``paddle.gather_nd``: the entries (or slices) of ``x`` at the coordinates held in the
    last axis of ``index``."""
    return _L.gather_nd(x, index)


def strided_slice(x, axes, starts, ends, strides, name=None):
    """``paddle.strided_slice``: ``x`` from ``starts`` to ``ends`` by ``strides`` along
    ``axes``."""
    return _L.strided_slice(x, axes, starts, ends, strides)


def scatter_nd_add(x, index, updates, name=None):
    """``paddle.scatter_nd_add``: ``x`` plus ``updates`` added at the coordinates in the last
    axis of ``index`` (``[..., k]`` addressing the first k axes of ``x``; repeated coordinates
    add up). ``updates`` has shape ``index.shape[:-1] + x.shape[k:]``."""
    check_variable(x, "x", "scatter_nd_add")
    check_variable(index, "index", "scatter_nd_add", ("int32", "int64"))
    check_variable(updates, "updates", "scatter_nd_add")
    shape = _known(x.shape, "scatter_nd_add")
    k = index.shape[-1] if index.shape else -1
    if k is None or k < 0 or k > len(shape):
        raise ValueError(f"scatter_nd_add(): the last axis of 'index' (shape "
                         f"{list(index.shape)}) must be known and at most x's rank "
                         f"{len(shape)}")
    want = list(index.shape[:-1]) + shape[k:]
    if len(updates.shape) != len(want) or builtins.any(
            u != w and u >= 0 and w >= 0 for u, w in zip(updates.shape, want)):
        raise ValueError(f"scatter_nd_add(): 'updates' must have shape {want} (index.shape[:-1]"
                         f" + x.shape[{k}:]), got {list(updates.shape)}")
    rows, rest = int(np.prod(shape[:k])), shape[k:]
    strides = np.array([int(np.prod(shape[j + 1:k])) for j in range(k)], dtype="int64")
    ids = _L.cast(index, "int64")
    if k:
        ids = _L.reduce_sum(_L.elementwise_mul(ids, _constant(strides)), dim=[-1])
    else:
        ids = _L.reduce_sum(ids, dim=[-1])  # NOTE: k == 0: every update adds to all of x
    flat_x = _L.reshape(x, [rows] + rest)
    added = _L.scatter(_L.zeros_like(flat_x), _L.reshape(ids, [-1]),
                       _L.reshape(updates, [-1] + rest), overwrite=False)
    return _L.reshape(_L.elementwise_add(flat_x, added), shape)


def scatter_nd(index, updates, shape, name=None):
    """``paddle.scatter_nd``: :func:`scatter_nd_add` into zeros of ``shape``."""
    check_variable(updates, "updates", "scatter_nd")
    return scatter_nd_add(_L.fill_constant(_ints(shape, "shape", "scatter_nd"), updates.dtype,
                                           0), index, updates)


def _row_numbers(x, cols, api):
    """``[N, cols]`` int64 row numbers for the rows of ``x`` (N known, or read when run)."""
    n = x.shape[0]
    if n is not None and n >= 0:
        rows = _constant(np.arange(n, dtype="int64").reshape(n, 1))
    else:
        count = _L.cast(_L.slice(_L.shape(x), axes=[0], starts=[0], ends=[1]), "float64")
        rows = _L.unsqueeze(_L.range(0, count, 1, "int64"), [1])
    return _L.expand(rows, [1, cols]) if cols != 1 else rows


def index_sample(x, index):
    """``paddle.index_sample``: ``out[i, j] = x[i, index[i, j]]`` for x ``[N, M]`` and index
    ``[N, K]``."""
    check_variable(x, "x", "index_sample")
    check_variable(index, "index", "index_sample", ("int32", "int64"))
    if len(x.shape) != 2 or len(index.shape) != 2:
        raise ValueError(f"index_sample(): x and index must be 2-D, got shapes "
                         f"{list(x.shape)} and {list(index.shape)}")
    k = index.shape[1]
    if k is None or k < 0:
        raise ValueError(f"index_sample(): the second axis of 'index' must be known, got "
                         f"{list(index.shape)}")
    coords = _L.stack([_row_numbers(x, k, "index_sample"), _L.cast(index, "int64")], axis=-1)
    return _L.gather_nd(x, coords)


def multiplex(inputs, index, name=None):
    """``paddle.multiplex``: row i of the result is row i of ``inputs[index[i]]`` (``inputs``
    equally shaped ``[N, ...]`` tensors, ``index`` an int ``[N, 1]`` tensor)."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
        raise TypeError("multiplex(): argument 'inputs' must be a list of at least 2 tensors")
    check_variable(index, "index", "multiplex", ("int32", "int64"))
    stacked = _L.stack(list(inputs), axis=0)
    coords = _L.concat([_L.reshape(_L.cast(index, "int64"), [-1, 1]),
                        _row_numbers(inputs[0], 1, "multiplex")], axis=1)
    return _L.gather_nd(stacked, coords)


def crop_tensor(x, shape=None, offsets=None, name=None):
    """``paddle.crop_tensor``: the part of ``x`` of ``shape`` (-1: to the end; None: x's
    shape) starting at ``offsets`` (None: zeros). Python ints only."""
    check_variable(x, "x", "crop_tensor")
    rank_ = len(x.shape)
    shape = list(x.shape) if shape is None else _ints(shape, "shape", "crop_tensor")
    offsets = [0] * rank_ if offsets is None else _ints(offsets, "offsets", "crop_tensor")
    if len(shape) != rank_ or len(offsets) != rank_:
        raise ValueError(f"crop_tensor(): 'shape' {shape} and 'offsets' {offsets} must have "
                         f"x's rank {rank_}")
    ends = [2 ** 31 - 1 if s == -1 else o + s for s, o in zip(shape, offsets)]
    return _L.slice(x, axes=list(range(rank_)), starts=offsets, ends=ends)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """``paddle.shard_index``: ids in ``[0, index_num)`` split into ``nshards`` shards of
    ``ceil(index_num / nshards)``; an id in shard ``shard_id`` becomes its offset there, any
    other ``ignore_value``."""
    check_variable(input, "input", "shard_index", ("int32", "int64"))
    index_num, nshards, shard_id = (_ints(v, a, "shard_index")[0] for v, a in (
        (index_num, "index_num"), (nshards, "nshards"), (shard_id, "shard_id")))
    if nshards < 1 or not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index(): need nshards >= 1 and 0 <= shard_id < nshards, got "
                         f"nshards={nshards}, shard_id={shard_id}")
    size = (index_num + nshards - 1) // nshards
    dt = input.dtype
    shard = _L.elementwise_floordiv(input, _L.fill_constant([1], dt, size))
    inside = _L.equal(shard, _L.fill_constant([1], dt, shard_id))
    moved = _L.elementwise_sub(input, _L.fill_constant([1], dt, shard_id * size))
    return _L.where(inside, moved, _L.scale(_L.zeros_like(input), 1.0, float(ignore_value)))

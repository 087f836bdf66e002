"""PaddlePaddle 2.x searching, sorting and selecting functions (``paddle.sort``, ``paddle.topk``,
``paddle.gather(axis=)``, ``paddle.masked_select``, ...), composed of registered ops.

Ops that work on the last axis (``topk``) or the first (``gather``) reach any other axis by
moving it there with ``transpose`` and back; smallest-first orders are the largest-first order
of ``-x``. So every function works eagerly, in static programs and in converted code, with the
gradients of the ops it is made of. ``masked_select`` and ``nonzero`` have a result whose size
depends on the values: their ops (``masked_select``, ``where_index``) give a static Variable -1
in that dimension and make the real shape when the program runs.
"""
import numpy as np

from . import layers as _L
from . import mode as _mode
from .checks import check_variable
from .dispatch import apply as _apply
from .ops._shapes import ShapeError, broadcast_shapes
from .tensor import to_tensor

__all__ = ["argsort", "flip", "gather", "index_select", "masked_select", "nonzero", "scatter",
           "sort", "topk"]


def _axis(x, axis, api):
    rank = len(x.shape)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{api}(): argument 'axis' must be an int, got {type(axis).__name__}")
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{api}(): argument 'axis' must be in [{-rank}, {rank}) for a tensor "
                         f"of rank {rank}, got {axis}")
    return int(axis) % max(rank, 1)


def _move(x, src, dst):
    """``x`` with axis ``src`` moved to position ``dst`` (and the permutation that undoes it)."""
    perm = [i for i in range(len(x.shape)) if i != src]
    perm.insert(dst, src)
    back = [perm.index(i) for i in range(len(perm))]
    return (x if perm == sorted(perm) else _L.transpose(x, perm)), back


def _restore(x, back):
    return x if back == sorted(back) else _L.transpose(x, back)


def gather(x, index, axis=None, name=None):
    """``paddle.gather``: the entries of ``x`` at ``index`` (a 1-D int tensor) along ``axis``
    (0 when None)."""
    axis = 0 if axis is None else _axis(x, axis, "gather")
    if axis == 0:
        return _L.gather(x, index)
    moved, back = _move(x, axis, 0)
    return _restore(_L.gather(moved, index), back)


def index_select(x, index, axis=0, name=None):
    """``paddle.index_select``: :func:`gather` with ``axis`` 0 by default."""
    return gather(x, index, axis=axis)


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """``paddle.topk``: ``(values, indices)`` of the ``k`` largest (or smallest) entries along
    ``axis`` (the last when None), largest first (smallest first with ``largest=False``)."""
    rank = len(x.shape)
    axis = rank - 1 if axis is None else _axis(x, axis, "topk")
    k = int(k)
    if k < 1:
        raise ValueError(f"topk(): argument 'k' must be >= 1, got {k}")
    moved, back = _move(x, axis, rank - 1)
    signed = moved if largest else _L.scale(moved, -1.0)
    values, indices = _L.topk(signed, k)
    if not largest:
        values = _L.scale(values, -1.0)
    return _restore(values, back), _restore(indices, back)


def _full_sort(x, axis, descending, api):
    axis = _axis(x, axis, api)
    n = x.shape[axis] if x.shape else 1
    if n is None or n < 0:
        raise ValueError(f"{api}(): the size of axis {axis} must be known, got shape {x.shape}")
    if not x.shape:
        return _L.assign(x), _L.zeros([], "int64")
    return topk(x, n, axis=axis, largest=bool(descending))


def sort(x, axis=-1, descending=False, name=None):
    """``paddle.sort``: ``x`` sorted along ``axis`` (ascending unless ``descending``)."""
    return _full_sort(x, axis, descending, "sort")[0]


def argsort(x, axis=-1, descending=False, name=None):
    """``paddle.argsort``: the int64 indices that sort ``x`` along ``axis``."""
    return _full_sort(x, axis, descending, "argsort")[1]


def flip(x, axis, name=None):
    """``paddle.flip``: ``x`` with the order of the entries along ``axis`` (int or list)
    reversed."""
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    out = x
    for a in axes:
        a = _axis(x, a, "flip")
        n = x.shape[a]
        if n is None or n < 0:
            raise ValueError(f"flip(): the size of axis {a} must be known, got shape {x.shape}")
        out = gather(out, _index(np.arange(n - 1, -1, -1)), axis=a)
    return out


def _index(array):
    array = np.asarray(array, dtype="int64")
    return to_tensor(array) if _mode.in_dynamic_mode() else _L.assign(array)


def masked_select(x, mask, name=None):
    """``paddle.masked_select``: the 1-D tensor of the entries of ``x`` where the bool tensor
    ``mask`` is true (``x`` and ``mask`` broadcast together), in row-major order. In a static
    program its length is -1 until the program runs; the gradient flows back to ``x``."""
    check_variable(x, "x", "masked_select")
    check_variable(mask, "mask", "masked_select", ("bool",))
    try:
        broadcast_shapes(x.shape, mask.shape)
    except ShapeError:
        raise ValueError(f"masked_select(): 'mask' of shape {list(mask.shape)} does not "
                         f"broadcast with x's shape {list(x.shape)}") from None
    return _apply("masked_select", [x, mask])


def nonzero(x, as_tuple=False):
    """``paddle.nonzero``: the indices of the non-zero entries of ``x``, an int64 tensor of
    shape [count, rank] (or a tuple of rank [count, 1] tensors); ``count`` is -1 in a static
    program until it runs."""
    check_variable(x, "x", "nonzero")
    out = _apply("where_index", [x])
    if not as_tuple:
        return out
    return tuple(_L.slice(out, axes=[1], starts=[i], ends=[i + 1])
                 for i in range(len(x.shape)))


def scatter(x, index, updates, overwrite=True, name=None):
    """``paddle.scatter``: ``x`` with the rows at ``index`` replaced by (``overwrite``) or
    increased by the rows of ``updates``."""
    return _L.scatter(x, index, updates, overwrite=overwrite)

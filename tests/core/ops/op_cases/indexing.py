"""Cases for core/ops/indexing.py."""
import numpy as np

from . import Case

r = np.random.default_rng(4)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _slice(x, axes, starts, ends, strides=None):
    index = [slice(None)] * x.ndim
    for i, (a, s, e) in enumerate(zip(axes, starts, ends)):
        index[a] = slice(s, e, None if strides is None else strides[i])
    return x[tuple(index)]


def _scatter(x, ids, updates, overwrite=True):
    out = x.copy()
    if overwrite:
        for i, row in zip(ids, updates):
            out[i] = row
    else:
        out[ids] = 0
        for i, row in zip(ids, updates):
            out[i] += row
    return out


def _one_hot(x, depth, allow_out_of_range=False):
    out = np.zeros(x.shape + (depth,), np.float32)
    for pos in np.ndindex(x.shape):
        if 0 <= x[pos] < depth:
            out[pos + (x[pos],)] = 1.0
    return out


def _gather_nd(x, index):
    k = index.shape[-1]
    out = np.empty(index.shape[:-1] + x.shape[k:], x.dtype)
    for pos in np.ndindex(index.shape[:-1]):
        out[pos] = x[tuple(index[pos])]
    return out


def _gi(x, arrays, items, fn, name):
    """A getitem case whose reference is ``fn(x, arrays)``: the same index in plain numpy."""
    return Case([x, arrays], {"index": items}, ref=lambda x, arrays, index: fn(x, arrays),
                name=name)


def _item(kind, **kw):
    return dict(kind=kind, **kw)


def _si(x, value, arrays, items, fn, name):
    """A setitem case whose reference assigns ``value`` at ``fn(arrays)`` in a numpy copy."""
    def ref(x, value, arrays, index):
        out = np.array(x)
        out[fn(arrays)] = value
        return out
    return Case([x, value, arrays], {"index": items}, ref=ref, name=name)


_X = f32(3, 4, 2)
_IDX = np.array([2, 0, 2])
_IDX2 = np.array([1, 0, 1])
_MASK = np.array([[True, False, True, False], [False, False, True, True], [True] * 4])

CASES = {
    "slice": [
        Case([f32(3, 4)], {"axes": [1], "starts": [1], "ends": [3]}, ref=_slice),
        Case([f32(3, 4, 2)], {"axes": [0, 1], "starts": [-2, 0], "ends": [100, -1]}, ref=_slice,
             name="negative-and-clamped"),
    ],
    "slice_tensor": [
        Case([f32(3, 4), np.array([1], np.int64), np.array([3], np.int64)],
             {"axes": [1], "starts": [None], "ends": [None]},
             ref=lambda x, s, e, axes, starts, ends: x[:, 1:3]),
        Case([f32(3, 4, 2), np.array([-2, 0], np.int32), np.array([100, -1], np.int32)],
             {"axes": [0, 1], "starts": [None, 0], "ends": [100, None]},
             ref=lambda x, s, e, axes, starts, ends: x[-2:100, 0:-1], name="negative-clamped"),
    ],
    "strided_slice": [
        Case([f32(5, 4)], {"axes": [0, 1], "starts": [0, 3], "ends": [5, -5], "strides": [2, -1]},
             ref=_slice),
        Case([f32(6)], {"axes": [0], "starts": [1], "ends": [6], "strides": [3]}, ref=_slice,
             name="1d"),
    ],
    "gather": [
        Case([f32(4, 3), np.array([3, 0, 3])], ref=lambda x, i, axis=0: x[i], name="repeat"),
        Case([f32(2, 4), np.array([[1], [2]])], {"axis": 1},
             ref=lambda x, i, axis: x[:, i.reshape(-1)], name="axis1-n1"),
    ],
    "gather_nd": [
        Case([f32(3, 4), np.array([[0, 1], [2, 3], [0, 1]])], ref=_gather_nd, name="full"),
        Case([f32(3, 2, 2), np.array([[[1], [0]], [[1], [1]]])], ref=_gather_nd, name="partial"),
    ],
    "scatter": [
        Case([f32(4, 2), np.array([1, 3]), f32(2, 2)], ref=_scatter, name="overwrite"),
        Case([f32(4, 2), np.array([1, 3, 1]), f32(3, 2)], ref=_scatter, name="overwrite-repeat"),
        Case([f32(4, 2), np.array([1, 3, 1]), f32(3, 2)], {"overwrite": False}, ref=_scatter,
             name="accumulate"),
    ],
    "one_hot": [
        Case([np.array([0, 2, 1, 2])], {"depth": 3}, ref=_one_hot),
        Case([np.array([[0, 5], [1, -1]])], {"depth": 4, "allow_out_of_range": True},
             ref=_one_hot, name="out-of-range-allowed"),
    ],
    "where": [
        Case([np.array([[True, False, True], [False, False, True]]), f32(2, 3), f32(2, 3)],
             ref=np.where),
        Case([np.array([True, False, True]), f32(2, 3), f32(2, 1)], ref=np.where,
             name="broadcast"),
    ],
    "getitem": [
        _gi(_X, [], [_item("int", value=-1), _item("slice", start=1, stop=None, step=2)],
            lambda x, a: x[-1, 1::2], "int-slice"),
        _gi(_X, [], [_item("none"), _item("ellipsis"), _item("int", value=0)],
            lambda x, a: x[None, ..., 0], "none-ellipsis"),
        _gi(_X, [_IDX], [_item("tensor", input=0)], lambda x, a: x[a[0]], "int-tensor-repeat"),
        _gi(_X, [_MASK], [_item("tensor", input=0)], lambda x, a: x[a[0]], "mask"),
        _gi(_X, [_IDX2], [_item("int", value=1), _item("slice", start=None, stop=None, step=-1),
                          _item("tensor", input=0)],
            lambda x, a: x[1, ::-1, a[0]], "split-advanced"),
        _gi(_X, [_IDX, _IDX2], [_item("tensor", input=0), _item("none"),
                                _item("tensor", input=1)],
            lambda x, a: x[a[0], None, a[1]], "two-tensors-apart"),
    ],
    "setitem": [
        _si(_X, f32(4, 2), [], [_item("int", value=1)], lambda a: 1, "int-row"),
        _si(_X, f32(2), [], [_item("slice", start=None, stop=2, step=None),
                             _item("slice", start=1, stop=None, step=2)],
            lambda a: (slice(None, 2), slice(1, None, 2)), "slices-broadcast-value"),
        _si(_X, f32(1, 1, 2), [np.array([2, 0])], [_item("tensor", input=0)],
            lambda a: a[0], "int-tensor-leading-ones"),
        _si(_X, f32(2), [_MASK], [_item("tensor", input=0)], lambda a: a[0], "mask"),
        _si(_X, 2.5, [], [_item("ellipsis"), _item("int", value=0)], lambda a: (Ellipsis, 0),
            "scalar-value"),
    ],
}

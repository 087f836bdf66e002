"""Cases for core/ops/select.py (result sizes that depend on the values)."""
import numpy as np

from . import Case

r = np.random.default_rng(21)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _masked_select(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _unique(x, axis=(), dtype="int64"):
    a = axis[0] if axis else None
    out, first, inverse, counts = np.unique(x.reshape(-1) if a is None else x,
                                            return_index=True, return_inverse=True,
                                            return_counts=True, axis=a)
    return out, first.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype)


_MASK = np.array([[True, False, True, False], [False, False, True, True], [True] * 4])

CASES = {
    "where_index": [
        Case([_MASK], ref=lambda c: np.argwhere(c).astype(np.int64)),
        Case([np.array([[0.0, 1.5], [-2.0, 0.0]], np.float32)],
             ref=lambda c: np.argwhere(c).astype(np.int64), name="float"),
        Case([np.array([0, 3, 0, 7, 1], np.int64)],
             ref=lambda c: np.argwhere(c).astype(np.int64), name="int-1d"),
        Case([np.zeros((2, 3), bool)], ref=lambda c: np.zeros((0, 2), np.int64), name="none"),
    ],
    "masked_select": [
        Case([f32(3, 4), _MASK], ref=_masked_select),
        Case([f32(3, 4), np.array([True, False, True, True])], ref=_masked_select,
             name="mask-broadcast"),
        Case([f32(1, 4), _MASK], ref=_masked_select, name="x-broadcast"),
        Case([f32(2, 3), np.zeros((2, 3), bool)], ref=_masked_select, name="none-selected"),
    ],
    "unique": [
        Case([np.array([[3, 1, 3], [2, 1, 5]], np.int64)], ref=_unique),
        Case([np.array([0.5, -1.0, 0.5, 2.0], np.float32)], {"dtype": "int32"}, ref=_unique,
             name="float-int32"),
        Case([np.array([[1, 2], [0, 4], [1, 2]], np.int64)], {"axis": [0]}, ref=_unique,
             name="rows"),
    ],
}

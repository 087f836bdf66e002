"""Cases for core/ops/select.py (result sizes that depend on the values)."""
import numpy as np

from . import Case

r = np.random.default_rng(21)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _masked_select(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


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
}

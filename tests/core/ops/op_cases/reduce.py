"""Cases for core/ops/reduce.py."""
import numpy as np

from . import Case

r = np.random.default_rng(3)


def distinct(*shape):
    """float32 values with no ties (max/min have no derivative at ties)."""
    n = int(np.prod(shape))
    return (r.permutation(n).reshape(shape) * 0.1 + r.uniform(0, 0.01, shape)).astype(np.float32)


def _reduce(fn):
    def ref(x, dim=None, keep_dim=False, reduce_all=False):
        axis = None if reduce_all or not dim else tuple(dim)
        return np.asarray(fn(x, axis=axis, keepdims=keep_dim))
    return ref


def _reduce_cases(fn, make=distinct):
    ref = _reduce(fn)
    return [
        Case([make(2, 3)], {"dim": [1]}, ref=ref, name="dim1"),
        Case([make(2, 3, 2)], {"dim": [0, -1], "keep_dim": True}, ref=ref, name="keep"),
        Case([make(2, 3)], {"reduce_all": True}, ref=ref, name="all"),
        Case([make(2, 2)], {"dim": None}, ref=ref, name="none-is-all"),
        Case([make(2, 3)], {"dim": [], "keep_dim": True}, ref=ref, name="empty-is-all"),
    ]


def _topk(x, k=1):
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, -1), idx.astype(np.int64)


def _arg(fn):
    def ref(x, axis=0, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims).astype(np.int64)
    return ref


_with_zero = np.array([[0.5, 0.0, 2.0], [1.5, -0.5, 0.7]], np.float32)

CASES = {
    "reduce_sum": _reduce_cases(np.sum) + [
        Case([np.arange(6, dtype=np.int32).reshape(2, 3)], {"dim": [0]},
             ref=_reduce(np.sum), name="int32")],
    "reduce_mean": _reduce_cases(np.mean),
    "reduce_max": _reduce_cases(np.max),
    "reduce_min": _reduce_cases(np.min),
    "reduce_prod": _reduce_cases(np.prod, make=lambda *s: r.uniform(0.5, 1.5, s).astype(
        np.float32)) + [Case([_with_zero], {"dim": [1]}, ref=_reduce(np.prod), name="zero"),
                        Case([_with_zero], {"reduce_all": True}, ref=_reduce(np.prod),
                             name="zero-all")],
    "mean": [Case([distinct(2, 3)], ref=lambda x: np.asarray(np.mean(x))),
             Case([np.arange(4)], ref=lambda x: np.asarray(np.mean(x)), name="int")],
    "argmax": [Case([distinct(3, 4)], ref=_arg(np.argmax)),
               Case([distinct(3, 4)], {"axis": -1, "keepdims": True}, ref=_arg(np.argmax),
                    name="last-keep")],
    "argmin": [Case([distinct(3, 4)], {"axis": 1}, ref=_arg(np.argmin)),
               Case([distinct(2, 3, 2)], {"axis": 0, "keepdims": True}, ref=_arg(np.argmin),
                    name="keep")],
    "topk": [Case([distinct(3, 5)], {"k": 2}, ref=_topk),
             Case([distinct(2, 2, 4)], {"k": 4}, ref=_topk, name="all"),
             Case([distinct(6)], ref=_topk, name="1d"),
             Case([np.array([[3, 1, 3, 2]])], {"k": 3}, ref=_topk, name="int-ties")],
}


def _bool_reduce(fn):
    def ref(x, dim=None, keep_dim=False, reduce_all=False):
        axis = None if reduce_all or not dim else tuple(dim)
        return np.asarray(fn(x.astype(bool), axis=axis, keepdims=keep_dim))
    return ref


_bools = np.array([[True, False, True], [True, True, True]])
CASES.update({
    name: [Case([_bools], {"dim": [1]}, ref=_bool_reduce(fn)),
           Case([_bools], {"dim": [0], "keep_dim": True}, ref=_bool_reduce(fn), name="keep"),
           Case([_bools], {"reduce_all": True}, ref=_bool_reduce(fn), name="all"),
           Case([np.array([[0.0, 2.0], [0.0, 0.0]], np.float32)], {"dim": [-1]},
                ref=_bool_reduce(fn), name="float")]
    for name, fn in (("reduce_all", np.all), ("reduce_any", np.any))
})

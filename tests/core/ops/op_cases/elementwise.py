"""Cases for core/ops/elementwise.py."""
import numpy as np

from . import Case

r = np.random.default_rng(0)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def _bcast(fn):
    """numpy reference honouring Paddle's axis: y's dims start at ``axis`` of x."""
    def ref(x, y, axis=-1):
        if axis != -1 and np.ndim(y) < np.ndim(x):
            trailing = np.ndim(x) - axis - np.ndim(y)
            y = np.reshape(y, [1] * axis + list(np.shape(y)) + [1] * trailing)
        return fn(x, y)
    return ref


def _binary_cases(fn, pos_y=False):
    y_lo = 0.5 if pos_y else -1.0
    return [
        Case([f32(2, 3), f32(2, 3, lo=y_lo)], ref=_bcast(fn), name="same"),
        Case([f32(2, 3, 4), f32(4, lo=y_lo)], ref=_bcast(fn), name="trailing"),
        Case([f32(2, 3, 4), f32(3, lo=y_lo)], {"axis": 1}, ref=_bcast(fn), name="axis1"),
        Case([f32(2, 1, 4), f32(3, 1, lo=y_lo)], ref=_bcast(fn), name="both"),
        Case([f32(3), 2.0 if pos_y else 0.5], ref=_bcast(fn), name="scalar"),
    ]


def _cmp(fn):
    return [Case([f32(2, 3), f32(2, 3)], ref=_bcast(fn)),
            Case([f32(2, 3, 4), f32(3)], {"axis": 1}, ref=_bcast(fn), name="axis1"),
            Case([np.arange(6).reshape(2, 3), 3], ref=_bcast(fn), name="int-scalar")]


_b = (r.uniform(size=(2, 3)) > 0.5)
_c = (r.uniform(size=(2, 3)) > 0.5)

CASES = {
    "elementwise_add": _binary_cases(np.add),
    "elementwise_sub": _binary_cases(np.subtract),
    "elementwise_mul": _binary_cases(np.multiply),
    "elementwise_div": _binary_cases(np.true_divide, pos_y=True) + [
        Case([np.arange(4), np.array(2)], ref=np.true_divide, name="int-true-div")],
    "elementwise_pow": [
        Case([f32(2, 3, lo=0.5, hi=2.0), f32(2, 3)], ref=np.power),
        Case([f32(2, 3, lo=0.5, hi=2.0), 3.0], ref=np.power, name="scalar-exp"),
        Case([f32(2, 3, 4, lo=0.5, hi=2.0), f32(3)], {"axis": 1}, ref=_bcast(np.power),
             name="axis1")],
    # distinct values keep away from ties, where max/min have no derivative
    "elementwise_max": [Case([np.array([[0.1, 0.5, -0.3]]), np.array([[0.2, 0.1, -0.9]])],
                             ref=np.maximum),
                        Case([f32(2, 3, 4), f32(3) + 3.0], {"axis": 1}, ref=_bcast(np.maximum),
                             name="axis1")],
    "elementwise_min": [Case([np.array([[0.1, 0.5, -0.3]]), np.array([[0.2, 0.1, -0.9]])],
                             ref=np.minimum),
                        Case([f32(2, 4), f32(4) + 3.0], ref=np.minimum, name="bcast")],
    "elementwise_mod": [Case([np.array([5, -5, 7]), np.array([3, 3, -2])], ref=np.mod),
                        Case([f32(2, 3, lo=-4, hi=4), 1.5], ref=np.mod, name="float")],
    "elementwise_floordiv": [Case([np.array([5, -5, 7]), np.array([3, 3, -2])],
                                  ref=np.floor_divide)],
    "less_than": _cmp(np.less),
    "less_equal": _cmp(np.less_equal),
    "greater_than": _cmp(np.greater),
    "greater_equal": _cmp(np.greater_equal),
    "equal": _cmp(np.equal),
    "not_equal": _cmp(np.not_equal),
    "logical_and": [Case([_b, _c], ref=np.logical_and)],
    "logical_or": [Case([_b, _c], ref=np.logical_or)],
    "logical_xor": [Case([_b, _c], ref=np.logical_xor)],
    "logical_not": [Case([_b], ref=np.logical_not)],
}


def _zero_d_cases(fn, ints=False):
    """Two 0-d operands: the static compiler runs these with Python operators on numpy
    scalars; values and dtypes must equal the ufunc's."""
    if ints:
        return [Case([np.array(7, np.int64), np.array(-3, np.int64)], ref=fn, name="0d-int"),
                Case([np.array(7, np.int32), np.array(2.5, np.float32)], ref=fn, name="0d-mixed")]
    return [Case([np.array(0.7, np.float32), np.array(-1.5, np.float32)], ref=fn, name="0d"),
            Case([np.array(0.7, np.float64), np.array(3, np.int64)], ref=fn, name="0d-mixed")]


for _op, _fn in (("elementwise_add", np.add), ("elementwise_sub", np.subtract),
                 ("elementwise_mul", np.multiply), ("elementwise_div", np.true_divide)):
    CASES[_op] = CASES[_op] + _zero_d_cases(_fn)
for _op, _fn in (("elementwise_floordiv", np.floor_divide), ("elementwise_mod", np.mod),
                 ("less_than", np.less), ("greater_equal", np.greater_equal),
                 ("equal", np.equal), ("not_equal", np.not_equal)):
    CASES[_op] = CASES[_op] + _zero_d_cases(_fn, ints=True)
for _op, _fn in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                 ("logical_xor", np.logical_xor)):
    # 0-d booleans run as Python's bitwise operators; 0-d integers must not (3 & 4 == 0)
    CASES[_op] = CASES[_op] + [
        Case([np.array(True), np.array(False)], ref=_fn, name="0d-bool"),
        Case([np.array(True), np.array(True)], ref=_fn, name="0d-bool-both"),
        Case([np.array(3, np.int64), np.array(4, np.int64)], ref=_fn, name="0d-int"),
    ]

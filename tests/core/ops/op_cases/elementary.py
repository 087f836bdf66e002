"""Cases for core/ops/elementary.py."""
import math

import numpy as np

from . import Case

r = np.random.default_rng(7)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def _unary(fn, x, **kw):
    return [Case([x], ref=fn, **kw),
            Case([x.reshape(-1)[:4]], ref=fn, name="1d", **kw)]


def _erf_ref(x):
    return np.vectorize(math.erf)(x.astype(np.float64)).astype(x.dtype)


_pos = f32(2, 3, lo=0.3, hi=2.0)
_inside = f32(2, 3, lo=-0.8, hi=0.8)
_special = np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, -2.5]], np.float32)

CASES = {
    "log1p": _unary(np.log1p, f32(2, 3, lo=-0.5, hi=2.0)),
    "expm1": _unary(np.expm1, f32(2, 3)),
    "log2": _unary(np.log2, _pos),
    "log10": _unary(np.log10, _pos),
    "sinh": _unary(np.sinh, f32(2, 3)) + [Case([f32(3).astype(np.float64)], ref=np.sinh,
                                               name="f64")],
    "cosh": _unary(np.cosh, f32(2, 3)) + [Case([f32(3).astype(np.float64)], ref=np.cosh,
                                               name="f64")],
    "asin": _unary(np.arcsin, _inside),
    "acos": _unary(np.arccos, _inside),
    "atan": _unary(np.arctan, f32(2, 3, lo=-2.0, hi=2.0))
    + [Case([f32(3).astype(np.float64)], ref=np.arctan, name="f64")],
    "erf": _unary(_erf_ref, f32(2, 3, lo=-2.0, hi=2.0))
    + [Case([np.array([-3, 0, 1])], ref=lambda x: _erf_ref(x.astype(np.float64)), name="int")],
    "isnan_v2": [Case([_special], ref=np.isnan),
                 Case([np.array([1, 2])], ref=np.isnan, name="int")],
    "isinf_v2": [Case([_special], ref=np.isinf),
                 Case([_special.astype(np.float64)], ref=np.isinf, name="f64")],
}

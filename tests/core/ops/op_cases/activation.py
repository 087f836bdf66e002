"""Cases for core/ops/activation.py."""
import math

import numpy as np

from . import Case

r = np.random.default_rng(2)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def away_from(points, *shape, lo=-3.0, hi=3.0):
    """Uniform values at least 0.05 from each kink in ``points``."""
    x = r.uniform(lo, hi, shape)
    for p in points:
        near = np.abs(x - p) < 0.05
        x[near] = p + 0.1
    return x.astype(np.float32)


def _same_dtype(fn):
    def ref(x, **attrs):
        return np.asarray(fn(x.astype(np.float64), **attrs)).astype(x.dtype)
    return ref


def _sigmoid(x):
    with np.errstate(over="ignore"):  # exp(800) is inf, and 1 / inf is the right 0
        return 1.0 / (1.0 + np.exp(-x))


def _erf(x):
    return np.vectorize(math.erf)(x)


def _gelu(x, approximate=False):
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    return np.log(_softmax(x, axis))


CASES = {
    "relu": [Case([away_from([0], 2, 3)], ref=_same_dtype(lambda x: np.maximum(x, 0)))],
    "relu6": [
        Case([away_from([0, 6], 2, 4, lo=-2, hi=8)], ref=_same_dtype(lambda x, threshold=6.0:
                                                                       np.clip(x, 0, threshold))),
        Case([away_from([0, 1], 2, 3, lo=-1, hi=2)], {"threshold": 1.0},
             ref=_same_dtype(lambda x, threshold: np.clip(x, 0, threshold)), name="threshold"),
    ],
    "sigmoid": [Case([f32(2, 3, lo=-4, hi=4)], ref=_same_dtype(_sigmoid)),
                Case([np.array([-800.0, -30.0, 0.0, 30.0, 800.0])], ref=_sigmoid,
                     name="extremes", grad=[])],
    "tanh": [Case([f32(2, 3, lo=-2, hi=2)], ref=_same_dtype(np.tanh))],
    "leaky_relu": [
        Case([away_from([0], 2, 3)], ref=_same_dtype(lambda x, alpha=0.02:
                                                     np.where(x > 0, x, alpha * x))),
        Case([away_from([0], 5)], {"alpha": 0.3},
             ref=_same_dtype(lambda x, alpha: np.where(x > 0, x, alpha * x)), name="alpha"),
    ],
    "elu": [
        Case([away_from([0], 2, 3)], ref=_same_dtype(lambda x, alpha=1.0:
                                                     np.where(x > 0, x, alpha * np.expm1(x)))),
        Case([away_from([0], 6)], {"alpha": 0.5},
             ref=_same_dtype(lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(x))),
             name="alpha"),
    ],
    "gelu": [
        Case([f32(2, 4, lo=-3, hi=3)], ref=_same_dtype(_gelu)),
        Case([np.linspace(-6.0, 6.0, 13)], ref=_gelu, atol=1e-9, rtol=1e-7, name="f64"),
        Case([f32(2, 3, lo=-3, hi=3)], {"approximate": True}, ref=_same_dtype(_gelu),
             name="tanh-form"),
    ],
    "softplus": [Case([f32(2, 3, lo=-3, hi=3)], ref=_same_dtype(lambda x: np.log1p(np.exp(x)))),
                 Case([np.array([-100.0, 0.0, 100.0])], ref=lambda x: np.maximum(x, 0) +
                      np.log1p(np.exp(-np.abs(x))), name="extremes")],
    "softmax": [Case([f32(2, 4, lo=-2, hi=2)], ref=_same_dtype(_softmax)),
                Case([f32(3, 2, 2, lo=-2, hi=2)], {"axis": 0}, ref=_same_dtype(_softmax),
                     name="axis0"),
                Case([np.array([1000.0, 1001.0, 999.0])], ref=_softmax, name="large")],
    "log_softmax": [Case([f32(2, 4, lo=-2, hi=2)], ref=_same_dtype(_log_softmax)),
                    Case([f32(3, 2, 2, lo=-2, hi=2)], {"axis": 1},
                         ref=_same_dtype(_log_softmax), name="axis1")],
}


def _swish(x, beta=1.0):
    return x / (1 + np.exp(-beta * x))


CASES.update({
    "softsign": [Case([f32(2, 4, lo=-3, hi=3)], ref=_same_dtype(lambda x: x / (1 + np.abs(x))))],
    "hard_sigmoid": [
        Case([away_from([-2.5, 2.5], 2, 4, lo=-4, hi=4)],
             ref=_same_dtype(lambda x, slope=0.2, offset=0.5: np.clip(x * slope + offset, 0, 1))),
        Case([away_from([-1.5, 0.5], 2, 3, lo=-3, hi=2)], {"slope": 0.5, "offset": 0.75},
             ref=_same_dtype(lambda x, slope, offset: np.clip(x * slope + offset, 0, 1)),
             name="slope"),
    ],
    "swish": [
        Case([f32(2, 4, lo=-4, hi=4)], ref=_same_dtype(_swish)),
        Case([f32(3, 2, lo=-3, hi=3)], {"beta": 2.5}, ref=_same_dtype(_swish), name="beta"),
    ],
})

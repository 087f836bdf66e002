"""Cases for core/ops/math.py."""
import decimal

import numpy as np

from . import Case

r = np.random.default_rng(1)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def away_from_zero(*shape):
    """Values in +-[0.2, 1]: no kink of abs / sign at 0 inside the finite-difference step."""
    return (r.uniform(0.2, 1.0, shape) * r.choice([-1.0, 1.0], shape)).astype(np.float32)


def _scale_ref(x, scale=1.0, bias=0.0, bias_after_scale=True):
    out = x * scale + bias if bias_after_scale else (x + bias) * scale
    return np.asarray(out).astype(x.dtype)


def _round_ref(x):
    """Half away from zero, exactly (decimal arithmetic on the binary values)."""
    def one(v):
        return float(decimal.Decimal(float(v)).quantize(decimal.Decimal(1),
                                                        rounding=decimal.ROUND_HALF_UP))
    return np.array([one(v) for v in x.reshape(-1)]).reshape(x.shape).astype(x.dtype)


def _matmul_ref(x, y, transpose_X=False, transpose_Y=False, alpha=1.0):
    def t(a, flag):
        return np.swapaxes(a, -1, -2) if flag and a.ndim >= 2 else a
    out = np.matmul(t(x, transpose_X), t(y, transpose_Y))
    return (out * alpha).astype(out.dtype)


def _mul_ref(x, y, x_num_col_dims=1, y_num_col_dims=1):
    xs, ys = x.shape, y.shape
    x2 = x.reshape(int(np.prod(xs[:x_num_col_dims])), -1)
    y2 = y.reshape(int(np.prod(ys[:y_num_col_dims])), -1)
    return (x2 @ y2).reshape(xs[:x_num_col_dims] + ys[y_num_col_dims:])


def _unary(fn, x=None, **kw):
    return [Case([f32(2, 3) if x is None else x], ref=fn, **kw),
            Case([f32(4) if x is None else x.reshape(-1)[:4]], ref=fn, name="1d", **kw)]


_pos = f32(2, 3, lo=0.3, hi=2.0)
_halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, -0.7])

CASES = {
    "scale": [
        Case([f32(2, 3)], {"scale": 2.5, "bias": 0.5}, ref=_scale_ref),
        Case([f32(2, 3)], {"scale": -1.5, "bias": 1.0, "bias_after_scale": False},
             ref=_scale_ref, name="bias-before"),
        Case([np.arange(6).reshape(2, 3)], {"scale": -1.0}, ref=_scale_ref, name="int-keeps"),
    ],
    "abs": _unary(np.abs, away_from_zero(2, 3)),
    "exp": _unary(np.exp),
    "log": _unary(np.log, _pos),
    "sqrt": _unary(np.sqrt, _pos),
    "rsqrt": _unary(lambda x: (1.0 / np.sqrt(x)).astype(x.dtype), _pos),
    "square": _unary(np.square),
    "sin": _unary(np.sin),
    "cos": _unary(np.cos),
    "sign": [Case([np.array([-2.0, 0.0, 3.0], np.float32)], ref=np.sign),
             Case([np.array([-2, 0, 3])], ref=np.sign, name="int")],
    "floor": [Case([f32(2, 3, lo=-3, hi=3)], ref=np.floor)],
    "ceil": [Case([f32(2, 3, lo=-3, hi=3)], ref=np.ceil)],
    "round": [Case([_halves], ref=_round_ref, atol=0, rtol=0),
              Case([_halves.astype(np.float32)], ref=_round_ref, name="f32"),
              Case([np.array([-3, 4])], ref=lambda x: x, name="int")],
    "clip": [
        Case([np.array([[-0.9, -0.3, 0.1], [0.35, 0.7, 1.2]], np.float32)],
             {"min": -0.5, "max": 0.5}, ref=lambda x, min, max: np.clip(x, min, max)),
        Case([np.arange(6)], {"min": 1, "max": 4},
             ref=lambda x, min, max: np.clip(x, min, max), name="int"),
    ],
    "sums": [
        Case([[f32(2, 3), f32(2, 3), f32(2, 3)]], ref=lambda xs: xs[0] + xs[1] + xs[2]),
        Case([[f32(2, 3)]], ref=lambda xs: xs[0], name="one"),
        Case([[f32(2, 3), f32(3)]], ref=lambda xs: xs[0] + xs[1], name="bcast"),
    ],
    "matmul": [
        Case([f32(2, 3), f32(3, 4)], ref=_matmul_ref, name="2d"),
        Case([f32(3, 2), f32(4, 3)], {"transpose_X": True, "transpose_Y": True, "alpha": 0.5},
             ref=_matmul_ref, name="transposed-alpha"),
        Case([f32(2, 2, 3), f32(3, 2)], ref=_matmul_ref, name="batch-bcast-y"),
        Case([f32(2, 3), f32(2, 1, 3, 2)], ref=_matmul_ref, name="batch-bcast-x"),
        Case([f32(2, 1, 2, 3), f32(3, 3, 2)], ref=_matmul_ref, name="batch-both"),
        Case([f32(3), f32(3, 2)], ref=_matmul_ref, name="1d-x"),
        Case([f32(2, 2, 3), f32(3)], ref=_matmul_ref, name="1d-y"),
        Case([f32(4), f32(4)], ref=_matmul_ref, name="1d-both"),
        Case([f32(3), f32(2, 3)], {"transpose_X": True, "transpose_Y": True},
             ref=_matmul_ref, name="1d-transposed"),
        Case([np.arange(6).reshape(2, 3), np.arange(3)], ref=_matmul_ref, name="int"),
    ],
    "mul": [
        Case([f32(2, 3), f32(3, 4)], ref=_mul_ref),
        Case([f32(2, 3, 2), f32(3, 2, 2)], {"x_num_col_dims": 1, "y_num_col_dims": 2},
             ref=_mul_ref, name="flatten"),
        Case([f32(2, 2, 3), f32(3, 2)], {"x_num_col_dims": 2}, ref=_mul_ref, name="xn2"),
    ],
    "cast": [
        Case([f32(2, 3)], {"out_dtype": "float64"}, ref=lambda x, out_dtype: x.astype(out_dtype)),
        Case([f32(2, 3, lo=-5, hi=5)], {"out_dtype": "int32"},
             ref=lambda x, out_dtype: x.astype(out_dtype), name="to-int", grad=[]),
        Case([np.array([0, 1, 2])], {"out_dtype": "bool"},
             ref=lambda x, out_dtype: x.astype(out_dtype), name="to-bool"),
    ],
    "assign": [Case([f32(2, 3)], ref=lambda x: x.copy()),
               Case([np.array([True, False])], ref=lambda x: x.copy(), name="bool")],
    "assign_value": [
        Case([], {"shape": [2, 2], "dtype": "float32", "values": [1.0, 2.0, 3.0, 4.0]},
             ref=lambda **a: np.array([[1, 2], [3, 4]], np.float32)),
        Case([], {"shape": [], "dtype": "int64", "values": [7]},
             ref=lambda **a: np.array(7, np.int64), name="scalar"),
    ],
    "isfinite": [
        Case([f32(2, 3)], ref=lambda x: np.array([True])),
        Case([np.array([1.0, np.inf, 2.0])], ref=lambda x: np.array([False]), name="inf"),
        Case([np.array([1.0, np.nan])], ref=lambda x: np.array([False]), name="nan"),
        Case([np.arange(3)], ref=lambda x: np.array([True]), name="int"),
    ],
    "has_nan": [
        Case([f32(2, 3)], ref=lambda x: np.array([False])),
        Case([np.array([1.0, np.inf])], ref=lambda x: np.array([False]), name="inf"),
        Case([np.array([[1.0], [np.nan]])], ref=lambda x: np.array([True]), name="nan"),
    ],
}


def _cos_sim_ref(x, y):
    x2, y2 = x.reshape(len(x), -1).astype(np.float64), y.reshape(len(y), -1).astype(np.float64)
    out = np.zeros((len(x2), 1))
    for i in range(len(x2)):
        yi = y2[0] if len(y2) == 1 else y2[i]
        out[i, 0] = x2[i] @ yi / (np.linalg.norm(x2[i]) * np.linalg.norm(yi))
    xn = np.linalg.norm(x2, axis=1, keepdims=True)
    yn = np.linalg.norm(y2, axis=1, keepdims=True)
    return out.astype(x.dtype), xn.astype(x.dtype), yn.astype(x.dtype)


CASES["cos_sim"] = [
    Case([f32(3, 4), f32(3, 4)], ref=_cos_sim_ref),
    Case([f32(4, 2, 3), f32(1, 2, 3)], ref=_cos_sim_ref, name="one-row-y"),
]

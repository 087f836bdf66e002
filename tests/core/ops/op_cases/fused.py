"""Cases for core/ops/fused.py."""
import numpy as np

from . import Case
from .nn import pool_ref

r = np.random.default_rng(7)


def f32(*shape):
    return r.uniform(-1, 1, shape).astype(np.float32)


def away_from_zero(*shape):
    """Values in +-[0.3, 1]: as the relu case's bias (with an identity Input and a small W) they
    keep every pre-activation off relu's kink at 0."""
    return (r.uniform(0.3, 1.0, shape) * r.choice([-1.0, 1.0], shape)).astype(np.float32)


def _act(z, act):
    if act == "relu":
        return np.maximum(z, 0)
    if act == "tanh":
        return np.tanh(z)
    if act == "sigmoid":
        return 1 / (1 + np.exp(-z))
    if act == "softmax":
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    return z


def fc_ref(x, w, b, in_num_col_dims=1, activation_type=""):
    x2 = x.reshape(int(np.prod(x.shape[:in_num_col_dims])), -1).astype(np.float64)
    out = _act(x2 @ w + b, activation_type)
    return out.reshape(x.shape[:in_num_col_dims] + (w.shape[1],)).astype(np.float32)


def _steps_ref(xs, steps):
    """numpy reference of ``fused_elementwise``, in float64 then cast back."""
    fns = {"elementwise_add": np.add, "elementwise_mul": np.multiply,
           "elementwise_sub": np.subtract, "elementwise_max": np.maximum, "tanh": np.tanh,
           "exp": np.exp, "square": np.square, "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
           "relu": lambda z: np.maximum(z, 0)}
    vals = []
    for op_type, args, attrs in steps:
        ins = [xs[a].astype(np.float64) if a >= 0 else vals[-a - 1] for a in args]
        if attrs.get("axis", -1) != -1:  # Paddle's alignment of the second operand
            ins[1] = ins[1].reshape(ins[1].shape + (1,) * (ins[0].ndim - attrs["axis"] - 1))
        vals.append(fns[op_type](*ins))
    return vals[-1].astype(np.float32)


def nonzero_distinct(*shape):
    """Pairwise distinct values, none at 0 (no ties for max, no kink of relu)."""
    n = int(np.prod(shape))
    return ((r.permutation(n) + 0.5) / n - 0.5).astype(np.float32).reshape(shape)


def relu_pool_ref(x, **attrs):
    return pool_ref(np.maximum(x, 0), **attrs)


CHAIN = [["elementwise_add", [0, 1], {}], ["elementwise_mul", [-1, 2], {}], ["tanh", [-2], {}]]
SIGMOID_MAX = [["elementwise_mul", [0, 1], {}], ["sigmoid", [-1], {}],
               ["elementwise_max", [-2, 2], {}], ["exp", [-3], {}]]
ALIGNED = [["elementwise_add", [0, 1], {"axis": 1}], ["square", [-1], {}],
           ["elementwise_sub", [-2, 0], {}], ["relu", [-3], {}]]

CASES = {
    "relu_pool2d": [
        Case([nonzero_distinct(2, 3, 4, 4)], {"pooling_type": "max", "ksize": [2, 2],
                                              "strides": [2, 2]},
             ref=relu_pool_ref, name="tiled"),
        Case([nonzero_distinct(1, 2, 5, 5)], {"pooling_type": "max", "ksize": [3, 3],
                                              "strides": [2, 2], "paddings": [1, 1]},
             ref=relu_pool_ref, name="overlap-pad"),
        Case([nonzero_distinct(1, 2, 4, 4) - 0.3], {"pooling_type": "max", "ksize": [2, 2],
                                                    "strides": [2, 2]},
             ref=relu_pool_ref, name="mostly-negative"),
        # partial windows: the last tap of the edge windows lies in the padding
        Case([nonzero_distinct(1, 2, 5, 5) - 0.2], {"pooling_type": "max", "ksize": [2, 2],
                                                    "strides": [2, 2], "ceil_mode": True},
             ref=relu_pool_ref, name="ceil"),
        Case([nonzero_distinct(2, 3, 2, 3) - 0.4], {"pooling_type": "max",
                                                    "global_pooling": True},
             ref=relu_pool_ref, name="global"),
        Case([nonzero_distinct(2, 4, 4, 3) - 0.3], {"pooling_type": "max", "ksize": [2, 2],
                                                    "strides": [1, 1], "data_format": "NHWC"},
             ref=relu_pool_ref, name="overlap-nhwc"),
    ],
    "fused_elementwise": [
        Case([[f32(3, 4), f32(3, 4), f32(4)]], {"steps": CHAIN},
             ref=lambda xs, steps: _steps_ref(xs, steps), name="add-mul-tanh"),
        Case([[f32(2, 3), f32(2, 3), f32(2, 3)]], {"steps": SIGMOID_MAX},
             ref=lambda xs, steps: _steps_ref(xs, steps), name="reuse-inputs"),
        Case([[away_from_zero(2, 3, 2) * 2, away_from_zero(3) * 0.1]], {"steps": ALIGNED},
             ref=lambda xs, steps: _steps_ref(xs, steps), name="axis-aligned"),
    ],
    "fc": [
        Case([f32(4, 3), f32(3, 5), f32(5)], ref=fc_ref, name="plain"),
        Case([f32(2, 3, 4), f32(4, 2), f32(2)], {"in_num_col_dims": 2,
                                               "activation_type": "tanh"},
             ref=fc_ref, name="3d-tanh"),
        Case([f32(2, 2, 3), f32(6, 3), f32(3)], {"activation_type": "softmax"}, ref=fc_ref,
             name="flatten-softmax"),
        Case([f32(3, 4), f32(4, 3), f32(3)], {"activation_type": "sigmoid"}, ref=fc_ref,
             name="sigmoid"),
        Case([np.eye(3, dtype=np.float32), f32(3, 4) * 0.1, away_from_zero(4)],
             {"activation_type": "relu"}, ref=fc_ref, name="relu"),
    ],
}

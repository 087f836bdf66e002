"""Cases for core/ops/fused.py."""
import numpy as np

from . import Case

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


CASES = {
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

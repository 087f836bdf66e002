"""Activation functions (2.x spellings): elementwise maps and the softmax family. Each is one
op from the registry, or a short composition of them where Paddle's op has no twin here
(``hardswish``, ``silu``, ``mish``, ...), so gradients and static programs come for free."""
from ...checks import check_axis, check_int, check_number
from ...dispatch import apply
from ...dtypes import convert_dtype, dtype_name

__all__ = [
    "celu",
    "elu",
    "gelu",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "mish",
    "prelu",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "softshrink",
    "softsign",
    "swish",
    "tanh",
    "tanhshrink",
]


def _cast(x, dtype):
    if dtype is None or convert_dtype(x.dtype) == convert_dtype(dtype):
        return x
    return apply("cast", [x], {"out_dtype": dtype_name(dtype)})


def relu(x, name=None):
    """``max(x, 0)``."""
    return apply("relu", [x])


def relu6(x, name=None):
    """``min(max(x, 0), 6)``."""
    return apply("relu6", [x])


def sigmoid(x, name=None):
    return apply("sigmoid", [x])


def tanh(x, name=None):
    return apply("tanh", [x])


def gelu(x, approximate=False, name=None):
    """``x * Phi(x)`` (``approximate`` uses the tanh formula)."""
    return apply("gelu", [x], {"approximate": bool(approximate)})


def elu(x, alpha=1.0, name=None):
    return apply("elu", [x], {"alpha": float(check_number(alpha, "alpha", "elu"))})


def celu(x, alpha=1.0, name=None):
    """``max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))``, i.e. ``alpha * elu(x / alpha)``."""
    alpha = float(check_number(alpha, "alpha", "celu"))
    if alpha == 0:
        raise ValueError("celu(): argument 'alpha' must be a nonzero number, got 0")
    return apply("elu", [x * (1.0 / alpha)], {"alpha": 1.0}) * alpha


def selu(x, scale=1.0507009873554804934193349852946,
         alpha=1.6732632423543772848170429916717, name=None):
    """``scale * (max(x, 0) + min(0, alpha * (exp(x) - 1)))``."""
    scale = float(check_number(scale, "scale", "selu"))
    if scale <= 1.0:
        raise ValueError(f"selu(): argument 'scale' must be > 1, got {scale}")
    alpha = float(check_number(alpha, "alpha", "selu", minimum=0))
    return apply("elu", [x], {"alpha": alpha}) * scale


def leaky_relu(x, negative_slope=0.01, name=None):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    slope = float(check_number(negative_slope, "negative_slope", "leaky_relu"))
    return apply("leaky_relu", [x], {"alpha": slope})


def prelu(x, weight, data_format="NCHW", name=None):
    """``max(x, 0) + weight * min(x, 0)``; ``weight`` has one entry, or one per channel
    (axis 1 for ``NC*`` layouts, the last axis for ``N*C``)."""
    n = weight.shape[0] if len(weight.shape) == 1 else -1
    if len(weight.shape) != 1:
        raise ValueError(f"prelu(): argument 'weight' must be 1-D, got shape "
                         f"{list(weight.shape)}")
    neg = apply("elementwise_min", [x, 0.0])
    if n == 1:
        return apply("relu", [x]) + neg * apply("reshape", [weight], {"shape": []})
    axis = len(x.shape) - 1 if data_format[-1] == "C" and len(x.shape) > 2 else 1
    scaled = apply("elementwise_mul", [neg, weight], {"axis": axis})
    return apply("relu", [x]) + scaled


def softplus(x, beta=1, threshold=20, name=None):
    """``log(1 + exp(beta * x)) / beta``. The kernel is exact and overflow-free for every x,
    so ``threshold`` (where Paddle switches to the identity) changes nothing above float
    precision and is accepted for compatibility."""
    beta = check_number(beta, "beta", "softplus")
    if beta == 0:
        raise ValueError("softplus(): argument 'beta' must be a nonzero number (the result is "
                         "divided by it), got 0")
    if beta == 1:
        return apply("softplus", [x])
    return apply("softplus", [x * float(beta)]) / float(beta)


def softsign(x, name=None):
    """``x / (1 + |x|)``."""
    return apply("softsign", [x])


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """``clip(slope * x + offset, 0, 1)`` (2.0 defaults: slope 1/6, offset 0.5)."""
    api = "hardsigmoid"
    return apply("hard_sigmoid", [x], {"slope": float(check_number(slope, "slope", api)),
                                       "offset": float(check_number(offset, "offset", api))})


def hardswish(x, name=None):
    """``x * relu6(x + 3) / 6``."""
    return x * apply("relu6", [x + 3.0]) * (1.0 / 6.0)


def hardtanh(x, min=-1.0, max=1.0, name=None):
    """``clip(x, min, max)``."""
    lo = float(check_number(min, "min", "hardtanh"))
    hi = float(check_number(max, "max", "hardtanh"))
    if lo > hi:
        raise ValueError(f"hardtanh(): argument 'min' must be <= 'max' ({hi}), got {lo}")
    return apply("clip", [x], {"min": lo, "max": hi})


def hardshrink(x, threshold=0.5, name=None):
    """``x`` where ``|x| > threshold``, else 0."""
    t = float(check_number(threshold, "threshold", "hardshrink", minimum=0))
    keep = apply("greater_than", [apply("abs", [x]), t])
    return x * apply("cast", [keep], {"out_dtype": dtype_name(x.dtype)})


def softshrink(x, threshold=0.5, name=None):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    t = float(check_number(threshold, "threshold", "softshrink", minimum=0))
    return apply("relu", [x - t]) - apply("relu", [-x - t])


def swish(x, name=None):
    """``x * sigmoid(x)``."""
    return apply("swish", [x], {"beta": 1.0})


def silu(x, name=None):
    """``x * sigmoid(x)`` (the same function as :func:`swish`)."""
    return apply("swish", [x], {"beta": 1.0})


def mish(x, name=None):
    """``x * tanh(softplus(x))``."""
    return x * apply("tanh", [apply("softplus", [x])])


def log_sigmoid(x, name=None):
    """``log(sigmoid(x)) = -softplus(-x)``, without overflow."""
    return -apply("softplus", [-x])


def tanhshrink(x, name=None):
    """``x - tanh(x)``."""
    return x - apply("tanh", [x])


def _axis(x, axis, api):
    return check_axis(check_int(axis, "axis", api, integral_float=False), len(x.shape), "axis",
                      api)


def softmax(x, axis=-1, dtype=None, name=None):
    return apply("softmax", [_cast(x, dtype)], {"axis": _axis(x, axis, "softmax")})


def log_softmax(x, axis=-1, dtype=None, name=None):
    return apply("log_softmax", [_cast(x, dtype)], {"axis": _axis(x, axis, "log_softmax")})

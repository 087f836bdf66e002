"""Functional API: activations (``paddle.fluid.layers`` signatures).

Each takes a floating Tensor/Variable and returns one of the same shape and dtype.
"""
from ..checks import (FLOATS, check_act, check_axis, check_bool, check_int, check_number,
                      check_positive, check_variable)
from ..dispatch import apply

__all__ = ["relu", "relu6", "sigmoid", "tanh", "leaky_relu", "elu", "gelu", "softplus",
           "softmax", "log_softmax"]


def _act(op_type, x, attrs=None, arg="x"):
    check_variable(x, arg, op_type, dtypes=FLOATS)
    return apply(op_type, [x], attrs)


def apply_act(x, act, api):
    """``x`` passed through the activation op ``act`` (a name such as ``'relu'``; None:
    ``x`` unchanged): the ``act=`` of the fluid functions and the built-in layers."""
    if act is None:
        return x
    return apply(check_act(act, api), [x])


def _float(value, arg, api):
    return float(check_number(value, arg, api))


def relu(x, name=None):
    """``max(x, 0)``."""
    return _act("relu", x)


def relu6(x, threshold=6.0, name=None):
    """``min(max(x, 0), threshold)``."""
    t = float(check_positive(threshold, "threshold", "relu6"))
    return _act("relu6", x, {"threshold": t})


def sigmoid(x, name=None):
    """``1 / (1 + exp(-x))``, computed without overflow."""
    return _act("sigmoid", x)


def tanh(x, name=None):
    """Hyperbolic tangent."""
    return _act("tanh", x)


def leaky_relu(x, alpha=0.02, name=None):
    """``x`` where x > 0, else ``alpha * x``."""
    return _act("leaky_relu", x, {"alpha": _float(alpha, "alpha", "leaky_relu")})


def elu(x, alpha=1.0, name=None):
    """``x`` where x > 0, else ``alpha * (exp(x) - 1)``."""
    return _act("elu", x, {"alpha": _float(alpha, "alpha", "elu")})


def gelu(x, approximate=False, name=None):
    """``x * Phi(x)``, Phi the standard normal CDF (exact, through erf), or the tanh
    approximation ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`` when ``approximate``."""
    approximate = check_bool(approximate, "approximate", "gelu")
    return _act("gelu", x, {"approximate": approximate})


def softplus(x, name=None):
    """``log(1 + exp(x))``, computed without overflow."""
    return _act("softplus", x)


def _softmax_like(op_type, input, axis):
    check_variable(input, "input", op_type, dtypes=FLOATS)
    axis = check_int(axis, "axis", op_type, integral_float=False)
    axis = check_axis(axis, len(input.shape), "axis", op_type)
    return apply(op_type, [input], {"axis": axis})


def softmax(input, axis=-1, use_cudnn=False, name=None):
    """``exp(input) / sum(exp(input))`` along ``axis`` (shifted by the max for stability)."""
    return _softmax_like("softmax", input, axis)


def log_softmax(input, axis=-1, name=None):
    """``input - log(sum(exp(input)))`` along ``axis``."""
    return _softmax_like("log_softmax", input, axis)


def softsign(x, name=None):
    """``x / (1 + |x|)``."""
    return _act("softsign", x)


def hard_sigmoid(x, slope=0.2, offset=0.5, name=None):
    """``clip(slope * x + offset, 0, 1)``."""
    return _act("hard_sigmoid", x, {"slope": _float(slope, "slope", "hard_sigmoid"),
                                    "offset": _float(offset, "offset", "hard_sigmoid")})


def swish(x, beta=1.0, name=None):
    """``x * sigmoid(beta * x)``."""
    return _act("swish", x, {"beta": _float(beta, "beta", "swish")})


__all__ += ["softsign", "hard_sigmoid", "swish"]

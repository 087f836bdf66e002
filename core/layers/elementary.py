"""Functional API: the elementary functions fluid has beside ``exp`` / ``log`` / ``sin``
(``paddle.fluid.layers.erf``, ``sinh``, ``cosh``, ``asin``, ``acos``, ``atan``), and the ones
PaddlePaddle 2.x adds (``log1p``, ``expm1``, ``log2``, ``log10``, ``isnan``, ``isinf``).

Each takes a Tensor/Variable and returns one of the same shape: numpy's dtype for the op
(float64 for an int input; bool for ``isnan`` / ``isinf``, which test every element).
"""
from ..checks import check_variable
from ..dispatch import apply

__all__ = ["erf", "sinh", "cosh", "asin", "acos", "atan", "log1p", "expm1", "log2", "log10",
           "isnan", "isinf"]


def _unary(op_type, x, api):
    check_variable(x, "x", api)
    return apply(op_type, [x])


def erf(x, name=None):
    """The error function ``2 / sqrt(pi) * integral_0^x exp(-t^2) dt``."""
    return _unary("erf", x, "erf")


def sinh(x, name=None):
    """Hyperbolic sine."""
    return _unary("sinh", x, "sinh")


def cosh(x, name=None):
    """Hyperbolic cosine."""
    return _unary("cosh", x, "cosh")


def asin(x, name=None):
    """Arcsine (nan outside [-1, 1])."""
    return _unary("asin", x, "asin")


def acos(x, name=None):
    """Arccosine (nan outside [-1, 1])."""
    return _unary("acos", x, "acos")


def atan(x, name=None):
    """Arctangent."""
    return _unary("atan", x, "atan")


def log1p(x, name=None):
    """``log(1 + x)``, accurate for small ``x``."""
    return _unary("log1p", x, "log1p")


def expm1(x, name=None):
    """``exp(x) - 1``, accurate for small ``x``."""
    return _unary("expm1", x, "expm1")


def log2(x, name=None):
    """Base-2 logarithm."""
    return _unary("log2", x, "log2")


def log10(x, name=None):
    """Base-10 logarithm."""
    return _unary("log10", x, "log10")


def isnan(x, name=None):
    """Whether each element is NaN (a bool tensor of x's shape)."""
    return _unary("isnan_v2", x, "isnan")


def isinf(x, name=None):
    """Whether each element is +-inf (a bool tensor of x's shape)."""
    return _unary("isinf_v2", x, "isinf")

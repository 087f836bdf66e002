"""More elementary functions of PaddlePaddle 2.x: ``log1p``, ``expm1``, ``log2``, ``log10``,
``sinh``, ``cosh``, ``asin``, ``acos``, ``atan``, ``erf``, and the elementwise checks
``isnan_v2`` / ``isinf_v2`` (bool, one per element; fluid's ``isfinite`` / ``has_nan`` reduce).

Each unary op is :class:`core.ops.math._Unary`: numpy's output dtype for the input (float64 for
int input), its gradient from x, out and dout.
"""
import math

import numpy as np

from .activation import erf as _erf
from .math import _Unary
from .registry import Meta, OpDef, register_op

__all__ = []

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@register_op
class log1p(_Unary):
    fn = np.log1p

    def grad(self, xp, x, out, dout):
        return dout / (1 + x)


@register_op
class expm1(_Unary):
    fn = np.expm1

    def grad(self, xp, x, out, dout):
        return dout * (out + 1)


@register_op
class log2(_Unary):
    fn = np.log2

    def grad(self, xp, x, out, dout):
        return dout / (x * math.log(2.0))


@register_op
class log10(_Unary):
    fn = np.log10

    def grad(self, xp, x, out, dout):
        return dout / (x * math.log(10.0))


@register_op
class sinh(_Unary):
    fn = np.sinh

    def grad(self, xp, x, out, dout):
        return dout * xp.cosh(x)


@register_op
class cosh(_Unary):
    fn = np.cosh

    def grad(self, xp, x, out, dout):
        return dout * xp.sinh(x)


@register_op
class asin(_Unary):
    fn = np.arcsin

    def grad(self, xp, x, out, dout):
        return dout / xp.sqrt(1 - x * x)


@register_op
class acos(_Unary):
    fn = np.arccos

    def grad(self, xp, x, out, dout):
        return -dout / xp.sqrt(1 - x * x)


@register_op
class atan(_Unary):
    fn = np.arctan

    def grad(self, xp, x, out, dout):
        return dout / (1 + x * x)


@register_op
class erf(_Unary):
    """The error function (numpy has none: :func:`core.ops.activation.erf`)."""

    fn = np.exp  # NOTE: only its output dtype rule is used (float for int input)

    def forward(self, ctx, x):
        dtype = self.infer(Meta(x.shape, x.dtype)).dtype
        return _erf(ctx.xp, x.astype(dtype, copy=False)).astype(dtype, copy=False)

    def grad(self, xp, x, out, dout):
        return dout * _TWO_OVER_SQRT_PI * xp.exp(-x * x)


class _Check(OpDef):
    """``Out = fn(X)`` elementwise, a bool tensor of X's shape (no gradient)."""

    differentiable = False
    fn = None

    def infer(self, x):
        return Meta(tuple(x.shape), np.dtype(bool))

    def forward(self, ctx, x):
        return getattr(ctx.xp, self.fn)(x)


@register_op
class isnan_v2(_Check):
    fn = "isnan"


@register_op
class isinf_v2(_Check):
    fn = "isinf"

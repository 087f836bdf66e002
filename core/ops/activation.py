"""Activation ops: relu, relu6, sigmoid, tanh, leaky_relu, elu, gelu, softplus, softmax,
log_softmax, softsign, hard_sigmoid, swish. Each keeps X's shape and dtype; gradients reuse
the saved output where that is cheaper (sigmoid, tanh, softmax, log_softmax).

numpy has no ``erf``, so :func:`erf` evaluates ``erfc(|x|) = t * exp(-x^2 + P(2t - 1))`` with
``t = 2 / (2 + |x|)`` and ``P`` a degree-24 Chebyshev series fitted (least squares, at import,
against :func:`math.erfc`) on the whole half line. Measured accuracy in float64: relative
error of ``erfc`` below 2e-14 and absolute error of ``erf`` below 5e-15 for every real x.
"""
import math

import numpy as np

from .registry import Meta, OpDef, register_op

__all__ = ["erf", "ACTIVATIONS"]


def _erfc_log_ratio(t):
    """``log(erfc(x) * exp(x^2) / t)`` for ``t = 2 / (2 + x)``, ``x >= 0`` (fit target)."""
    x = 2.0 / t - 2.0
    if x < 25.0:
        scaled = math.erfc(x) * math.exp(x * x)
    else:  # NOTE: erfc underflows here; the asymptotic series is exact to double precision.
        z = 1.0 / (2.0 * x * x)
        scaled = (1 - z + 3 * z * z - 15 * z ** 3 + 105 * z ** 4) / (x * math.sqrt(math.pi))
    return math.log(scaled / t)


def _fit_erfc_series(degree=24, points=400):
    u = np.cos(np.pi * (np.arange(points) + 0.5) / points)  # Chebyshev nodes on [-1, 1]
    y = np.array([_erfc_log_ratio((v + 1.0) / 2.0) for v in u])
    return [float(c) for c in np.polynomial.chebyshev.chebfit(u, y, degree)]


_ERFC_COEFFS = _fit_erfc_series()


def erf(xp, x):
    """The error function of array ``x`` using only module ``xp`` (see the module docstring)."""
    a = xp.abs(x)
    t = 2.0 / (2.0 + a)
    u = 2.0 * t - 1.0
    b1 = b2 = 0.0
    for c in _ERFC_COEFFS[:0:-1]:  # Clenshaw's recurrence for sum(c_k T_k(u))
        b1, b2 = c + 2.0 * u * b1 - b2, b1
    erfc = t * xp.exp(-a * a + (_ERFC_COEFFS[0] + u * b1 - b2))
    return xp.sign(x) * (1.0 - erfc)


class _Act(OpDef):
    """``Out = f(X)``, same shape and dtype as X."""

    def infer(self, x, **attrs):
        return Meta(tuple(x.shape), np.dtype(x.dtype))


@register_op
class relu(_Act):
    def fast_kernel(self, xp, metas):
        if metas[0] is None or np.dtype(metas[0].dtype).kind != "f":
            return None
        maximum = xp.maximum
        return lambda x: maximum(x, 0)

    def forward(self, ctx, x):
        return ctx.xp.maximum(x, 0).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        # NOTE: the gradient at exactly 0 is 0 (out > 0), as in Paddle.
        return (douts[0] * (outs[0] > 0),)


@register_op
class relu6(_Act):
    """``min(max(x, 0), threshold)``."""

    attrs = {"threshold": 6.0}

    def forward(self, ctx, x, threshold):
        return ctx.xp.clip(x, 0, threshold).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, threshold):
        x = ins[0]
        return (douts[0] * ((x > 0) & (x < threshold)),)


@register_op
class sigmoid(_Act):
    def forward(self, ctx, x):
        xp = ctx.xp
        # NOTE: exp(-|x|) never overflows; the two branches are the same function.
        e = xp.exp(-xp.abs(x))
        return xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        out = outs[0]
        return (douts[0] * out * (1.0 - out),)


@register_op
class tanh(_Act):
    def fast_kernel(self, xp, metas):
        return xp.tanh if metas[0] is not None and np.dtype(metas[0].dtype).kind == "f" else None

    def forward(self, ctx, x):
        return ctx.xp.tanh(x).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        out = outs[0]
        return (douts[0] * (1.0 - out * out),)


@register_op
class leaky_relu(_Act):
    """``x`` where x > 0, else ``alpha * x``."""

    attrs = {"alpha": 0.02}

    def forward(self, ctx, x, alpha):
        return ctx.xp.where(x > 0, x, x * alpha).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, alpha):
        dout = douts[0]
        return (ctx.xp.where(ins[0] > 0, dout, dout * alpha),)


@register_op
class elu(_Act):
    """``x`` where x > 0, else ``alpha * (exp(x) - 1)``."""

    attrs = {"alpha": 1.0}

    def forward(self, ctx, x, alpha):
        xp = ctx.xp
        # NOTE: expm1 of min(x, 0) keeps exp from overflowing on the unused branch.
        neg = xp.expm1(xp.minimum(x, 0)) * alpha
        return xp.where(x > 0, x, neg).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, alpha):
        dout = douts[0]
        return (ctx.xp.where(ins[0] > 0, dout, dout * (outs[0] + alpha)),)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


@register_op
class gelu(_Act):
    """``x * Phi(x)`` with the exact normal CDF (erf), or its tanh form when ``approximate``."""

    attrs = {"approximate": False}

    def forward(self, ctx, x, approximate):
        xp = ctx.xp
        if approximate:
            inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
            out = 0.5 * x * (1.0 + xp.tanh(inner))
        else:
            out = 0.5 * x * (1.0 + erf(xp, x * _INV_SQRT_2))
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, approximate):
        xp = ctx.xp
        x = ins[0]
        if approximate:
            t = xp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
            d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_2_OVER_PI * (
                1.0 + 3 * 0.044715 * x * x)
        else:
            d = 0.5 * (1.0 + erf(xp, x * _INV_SQRT_2)) + x * xp.exp(-0.5 * x * x) * _INV_SQRT_2PI
        return ((douts[0] * d).astype(x.dtype, copy=False),)


@register_op
class softplus(_Act):
    """``log(1 + exp(x))``, computed without overflow."""

    def forward(self, ctx, x):
        xp = ctx.xp
        return (xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        xp = ctx.xp
        x = ins[0]
        e = xp.exp(-xp.abs(x))
        sig = xp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        return ((douts[0] * sig).astype(x.dtype, copy=False),)


@register_op
class softmax(_Act):
    """``exp(x) / sum(exp(x))`` along ``axis``."""

    attrs = {"axis": -1}

    def forward(self, ctx, x, axis):
        xp = ctx.xp
        e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
        return (e / xp.sum(e, axis=axis, keepdims=True)).astype(x.dtype, copy=False)

    def fast_kernel(self, xp, metas, axis):
        if xp is not np or metas[0] is None or np.dtype(metas[0].dtype).kind != "f":
            return None
        maximum, add, exp = np.maximum.reduce, np.add.reduce, np.exp

        def kernel(x):
            # NOTE: forward's computation with the ufuncs' reduce called directly (numpy's
            # max/sum wrappers cost more than the arithmetic at small batch sizes).
            e = exp(x - maximum(x, axis=axis, keepdims=True))
            return e / add(e, axis=axis, keepdims=True)

        return kernel

    def backward(self, ctx, ins, outs, douts, axis):
        out, dout = outs[0], douts[0]
        return (out * (dout - (dout * out).sum(axis=axis, keepdims=True)),)


@register_op
class log_softmax(_Act):
    """``x - log(sum(exp(x)))`` along ``axis``."""

    attrs = {"axis": -1}

    def forward(self, ctx, x, axis):
        xp = ctx.xp
        shifted = x - xp.max(x, axis=axis, keepdims=True)
        out = shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, axis):
        dout = douts[0]
        return (dout - ctx.xp.exp(outs[0]) * dout.sum(axis=axis, keepdims=True),)


@register_op
class softsign(_Act):
    """``x / (1 + |x|)``."""

    def forward(self, ctx, x):
        return (x / (1 + ctx.xp.abs(x))).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        d = 1 + ctx.xp.abs(ins[0])
        return (douts[0] / (d * d),)


@register_op
class hard_sigmoid(_Act):
    """``clip(slope * x + offset, 0, 1)``."""

    attrs = {"slope": 0.2, "offset": 0.5}

    def forward(self, ctx, x, slope, offset):
        return ctx.xp.clip(x * slope + offset, 0.0, 1.0).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, slope, offset):
        out = outs[0]
        return (douts[0] * ((out > 0) & (out < 1)) * slope,)


@register_op
class swish(_Act):
    """``x * sigmoid(beta * x)``."""

    attrs = {"beta": 1.0}

    def forward(self, ctx, x, beta):
        s = 0.5 * ctx.xp.tanh(0.5 * beta * x) + 0.5  # overflow-free sigmoid
        return (x * s).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, beta):
        x = ins[0]
        s = 0.5 * ctx.xp.tanh(0.5 * beta * x) + 0.5
        return ((douts[0] * (s + beta * x * s * (1 - s))).astype(x.dtype, copy=False),)


#: op types that ``act=`` may name in the functional API
ACTIVATIONS = ("relu", "relu6", "sigmoid", "tanh", "leaky_relu", "elu", "gelu", "softplus",
               "softmax", "log_softmax", "softsign", "hard_sigmoid", "swish")

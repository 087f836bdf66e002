"""Weight decay: terms added to a parameter's gradient before the update.

A regularizer is called as ``reg(param, grad)`` and returns the regularized gradient, built
from ordinary ops so it works on eager tensors and on static Variables alike. A parameter's
own regularizer (``ParamAttr(regularizer=...)``) takes precedence over the optimizer's.
"""
from .dispatch import apply

__all__ = [
    "L1Decay",
    "L1DecayRegularizer",
    "L2Decay",
    "L2DecayRegularizer",
    "WeightDecayRegularizer",
    "append_regularization",
]


class WeightDecayRegularizer:
    """Base class: ``__call__(param, grad)`` returns ``grad`` plus the decay term."""

    def __init__(self, regularization_coeff=0.0):
        if not isinstance(regularization_coeff, (int, float)) or regularization_coeff < 0:
            raise ValueError(f"{type(self).__name__}: 'regularization_coeff' must be a number "
                             f">= 0, got {regularization_coeff!r}")
        self.coeff = float(regularization_coeff)

    def __call__(self, param, grad):
        return grad + self.decay(param)

    def decay(self, param):
        """The term added to the gradient of ``param``."""
        raise NotImplementedError(f"{type(self).__name__} does not define decay")

    def __repr__(self):
        return f"{type(self).__name__}(regularization_coeff={self.coeff})"


class L2Decay(WeightDecayRegularizer):
    """Adds ``coeff * param`` (the gradient of ``coeff / 2 * ||param||^2``)."""

    def decay(self, param):
        return param * self.coeff


class L1Decay(WeightDecayRegularizer):
    """Adds ``coeff * sign(param)`` (the gradient of ``coeff * |param|_1``)."""

    def decay(self, param):
        return apply("sign", [param]) * self.coeff


L1DecayRegularizer = L1Decay
L2DecayRegularizer = L2Decay


def append_regularization(params_grads, regularization=None):
    """``[(param, grad)]`` with each gradient regularized by the parameter's own regularizer,
    else by ``regularization`` (None: unchanged)."""
    out = []
    for param, grad in params_grads:
        reg = getattr(param, "regularizer", None) or regularization
        if reg is not None and grad is not None:
            if not isinstance(reg, WeightDecayRegularizer):
                raise TypeError(f"the regularizer of parameter '{param.name}' must be L1Decay or "
                                f"L2Decay, got {type(reg).__name__}")
            grad = reg(param, grad)
        out.append((param, grad))
    return out

"""Loss layers (2.x): ``CrossEntropyLoss``, ``NLLLoss``, ``MSELoss``, ``L1Loss``,
``SmoothL1Loss``, ``BCELoss``, ``BCEWithLogitsLoss``, ``KLDivLoss``. Each checks its
arguments when built and calls the function of the same name in
:mod:`core.nn.functional`; a class ``weight`` is a tensor the layer keeps (not a
parameter)."""
from ..checks import check_bool, check_choice, check_int, check_number
from . import functional as F
from .layer import Layer

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "KLDivLoss",
    "L1Loss",
    "MSELoss",
    "NLLLoss",
    "SmoothL1Loss",
]

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Layer):
    def __init__(self, reduction="mean", reductions=_REDUCTIONS):
        super().__init__()
        check_choice(reduction, "reduction", reductions, type(self).__name__)
        self._reduction = reduction

    def extra_repr(self):
        return f"reduction={self._reduction}"


class CrossEntropyLoss(_Loss):
    """Softmax cross entropy of logits (see :func:`core.nn.functional.cross_entropy`)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, name=None):
        super().__init__(reduction)
        api = "CrossEntropyLoss"
        self._weight = weight
        self._ignore_index = check_int(ignore_index, "ignore_index", api, integral_float=False)
        self._soft_label = check_bool(soft_label, "soft_label", api)
        self._axis = check_int(axis, "axis", api, integral_float=False)
        self._use_softmax = check_bool(use_softmax, "use_softmax", api)

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self._weight, ignore_index=self._ignore_index,
                               reduction=self._reduction, soft_label=self._soft_label,
                               axis=self._axis, use_softmax=self._use_softmax)


class NLLLoss(_Loss):
    """Negative log likelihood of log-probabilities (classes on axis 1)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(reduction)
        self._weight = weight
        self._ignore_index = check_int(ignore_index, "ignore_index", "NLLLoss",
                                       integral_float=False)

    def forward(self, input, label):
        return F.nll_loss(input, label, self._weight, self._ignore_index, self._reduction)


class MSELoss(_Loss):
    """``(input - label) ** 2``, reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.mse_loss(input, label, self._reduction)


class L1Loss(_Loss):
    """``|input - label|``, reduced."""

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.l1_loss(input, label, self._reduction)


class SmoothL1Loss(_Loss):
    """Huber loss with threshold ``delta``."""

    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction)
        self._delta = float(check_number(delta, "delta", "SmoothL1Loss"))
        if self._delta <= 0:
            raise ValueError(f"SmoothL1Loss(): argument 'delta' must be > 0, got {delta}")

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self._reduction, self._delta)


class BCELoss(_Loss):
    """Binary cross entropy of probabilities, optionally weighted per element."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self._weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self._weight, self._reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid cross entropy of logits, with ``weight`` and per-class ``pos_weight``."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self._weight, self._pos_weight = weight, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self._weight, self._reduction,
                                                  self._pos_weight)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence; ``reduction`` also takes ``'batchmean'``."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction, _REDUCTIONS + ("batchmean",))

    def forward(self, input, label):
        return F.kl_div(input, label, self._reduction)

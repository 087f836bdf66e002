"""``core.metric``: PaddlePaddle's ``paddle.metric`` (``Metric``, ``Accuracy``, ``Precision``,
``Recall``) and the ``fluid.metrics`` / ``paddle.metric.accuracy`` function.

A metric object follows PaddlePaddle 2.x's protocol, which ``Model.fit`` / ``evaluate`` drive:
``compute(pred, label)`` turns a batch's outputs into what ``update`` needs (it may run ops, so
it works on tensors), ``update(...)`` adds a batch (numpy values) and returns the batch's
value, ``accumulate()`` the value over every batch since ``reset()``, ``name()`` the names
printed for it.
"""
import numpy as np

from . import layers as _L
from .layers import accuracy as _accuracy
from .tensor_search import argsort

__all__ = ["Accuracy", "Metric", "Precision", "Recall", "accuracy"]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-``k`` accuracy of the scores ``input`` ([N, C]) against ``label`` ([N, 1] int64):
    the fraction of rows whose label is among the ``k`` highest scores (a float32 tensor of
    shape [1]); ``correct`` / ``total``, when given, receive the counts."""
    return _accuracy(input, label, k=k, correct=correct, total=total)


def _numpy(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


class Metric:
    """Base class of the stateful metrics; see the module docstring for the protocol."""

    def reset(self):
        raise NotImplementedError(f"{type(self).__name__} does not define reset")

    def update(self, *args):
        raise NotImplementedError(f"{type(self).__name__} does not define update")

    def accumulate(self):
        raise NotImplementedError(f"{type(self).__name__} does not define accumulate")

    def name(self):
        raise NotImplementedError(f"{type(self).__name__} does not define name")

    def compute(self, *args):
        """Pre-processing of a batch's ``(pred, label)`` (by default, nothing)."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy for each ``k`` in ``topk``.

    ``compute(pred, label)``: ``pred`` [N, C] scores, ``label`` [N] / [N, 1] class ids or
    [N, C] one-hot; returns the float32 [N, max k] matrix of hits by rank. ``update`` returns
    the batch accuracy (a float, or a list with several ``topk``)."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        topk = (topk,) if isinstance(topk, int) else tuple(topk)
        if not topk or any(isinstance(k, bool) or not isinstance(k, int) or k < 1
                           for k in topk):
            raise ValueError(f"Accuracy: 'topk' must be ints >= 1, got {topk!r}")
        self.topk, self.maxk = topk, max(topk)
        self._init_name(name)
        self.reset()

    def _init_name(self, name):
        name = name or "acc"
        if self.maxk != 1:
            self._name = [f"{name}_top{k}" for k in self.topk]
        else:
            self._name = [name]

    def compute(self, pred, label, *args):
        order = argsort(pred, axis=-1, descending=True)
        rank = len(pred.shape)
        order = _L.slice(order, axes=[rank - 1], starts=[0], ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = _L.reshape(label, [-1, 1])
        elif label.shape[-1] != 1:  # one-hot / soft labels: the most likely class
            label = _L.unsqueeze(_L.argmax(label, axis=-1), [-1])
        return _L.cast(_L.equal(order, _L.cast(label, order.dtype)), "float32")

    def update(self, correct, *args):
        correct = _numpy(correct)
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accs.append(hits / num_samples if num_samples else 0.0)
            self.total[i] += hits
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


class _Binary(Metric):
    """Precision / recall of binary predictions: ``update(preds, labels)`` with probabilities
    of the positive class (> 0.5 is positive) and 0/1 labels."""

    def __init__(self, name):
        self._name = name
        self.reset()

    def reset(self):
        self.tp = self.fp = self.fn = 0

    def update(self, preds, labels):
        preds = _numpy(preds).reshape(-1) > 0.5
        labels = _numpy(labels).reshape(-1).astype(bool)
        if preds.shape != labels.shape:
            raise ValueError(f"{type(self).__name__}.update: preds has {preds.size} entries, "
                             f"labels {labels.size}")
        self.tp += int(np.sum(preds & labels))
        self.fp += int(np.sum(preds & ~labels))
        self.fn += int(np.sum(~preds & labels))

    def name(self):
        return self._name


class Precision(_Binary):
    """``tp / (tp + fp)`` over the batches since ``reset()``."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0


class Recall(_Binary):
    """``tp / (tp + fn)`` over the batches since ``reset()``."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(name)

    def accumulate(self):
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

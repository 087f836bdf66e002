"""Loss and metric ops: ``cross_entropy``, ``softmax_with_cross_entropy``,
``sigmoid_cross_entropy_with_logits``, ``accuracy`` and ``label_smooth`` (fluid semantics).

Hard labels are integer class indices with a trailing (or ``axis``) dimension of 1; an entry
equal to ``ignore_index`` contributes zero loss and zero gradient. Soft labels are
distributions of the input's shape. Labels never receive a gradient.
"""
import numpy as np

from ._shapes import ShapeError, normalize_axis
from .registry import Meta, OpDef, register_op

__all__ = [
    "accuracy",
    "cross_entropy",
    "label_smooth",
    "sigmoid_cross_entropy_with_logits",
    "softmax_with_cross_entropy",
]


def _check_label(op, x_shape, label_shape, soft_label, axis):
    """Label must match X except for a 1 at ``axis`` (hard) or everywhere (soft)."""
    want = list(x_shape)
    if not soft_label:
        want[axis] = 1
    ok = len(label_shape) == len(want) and all(
        a == b or a < 0 or b < 0 for a, b in zip(label_shape, want))
    if not ok:
        kind = "soft labels" if soft_label else "hard labels"
        raise ShapeError(f"{op}: Label must have shape {want} for {kind} with input "
                         f"{list(x_shape)}, got {list(label_shape)}")


def _hard_index(xp, op, label, depth, ignore_index):
    """``(valid mask, label with ignored entries set to 0)``; out-of-range labels raise."""
    if label.dtype.kind not in "iu":
        raise ShapeError(f"{op}: hard labels must be integers, got dtype {label.dtype}")
    valid = label != ignore_index
    safe = xp.where(valid, label, 0)
    if safe.size and (int(safe.min()) < 0 or int(safe.max()) >= depth):
        raise IndexError(f"{op}: labels must lie in [0, {depth}) or equal ignore_index "
                         f"({ignore_index}), got values in [{int(label.min())}, "
                         f"{int(label.max())}]")
    return valid, safe


def _tiny(xp, dtype):
    return xp.finfo(dtype).tiny


@register_op
class cross_entropy(OpDef):
    """``Y = -log(X[label])`` (hard) or ``-sum(label * log(X))`` (soft) over the last axis of
    probabilities ``X``; ``Y`` keeps a last dimension of 1."""

    inputs = ("X", "Label")
    outputs = ("Y",)
    attrs = {"soft_label": False, "ignore_index": -100}
    nondiff_inputs = ("Label",)

    def infer(self, x, label, soft_label, ignore_index):
        _check_label("cross_entropy", x.shape, label.shape, soft_label, len(x.shape) - 1)
        return Meta(tuple(x.shape[:-1]) + (1,), x.dtype)

    def forward(self, ctx, x, label, soft_label, ignore_index):
        xp = ctx.xp
        _check_label("cross_entropy", x.shape, label.shape, soft_label, x.ndim - 1)
        # NOTE: probabilities are clipped at the smallest normal number, so log(0) is finite.
        logp = xp.log(xp.maximum(x, _tiny(xp, x.dtype)))
        if soft_label:
            return -(label * logp).sum(axis=-1, keepdims=True).astype(x.dtype, copy=False)
        valid, safe = _hard_index(xp, "cross_entropy", label, x.shape[-1], ignore_index)
        picked = xp.take_along_axis(logp, safe, axis=-1)
        return xp.where(valid, -picked, 0).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, soft_label, ignore_index):
        xp = ctx.xp
        x, label = ins
        dy = douts[0]
        clipped = xp.maximum(x, _tiny(xp, x.dtype))
        if soft_label:
            return (-dy * label / clipped).astype(x.dtype, copy=False), None
        valid, safe = _hard_index(xp, "cross_entropy", label, x.shape[-1], ignore_index)
        hit = (xp.arange(x.shape[-1]) == safe) & valid
        return xp.where(hit, -dy / clipped, 0).astype(x.dtype, copy=False), None


@register_op
class softmax_with_cross_entropy(OpDef):
    """Softmax over ``axis`` followed by cross entropy, computed stably from log-softmax.

    ``Softmax`` is returned for reuse but carries no gradient; ``Loss`` has the logits' shape
    with a 1 at ``axis``.
    """

    inputs = ("Logits", "Label")
    outputs = ("Softmax", "Loss")
    attrs = {"soft_label": False, "ignore_index": -100, "axis": -1}
    nondiff_inputs = ("Label",)
    nondiff_outputs = ("Softmax",)

    def infer(self, logits, label, soft_label, ignore_index, axis):
        ax = normalize_axis(axis, len(logits.shape), "softmax_with_cross_entropy: axis")
        _check_label("softmax_with_cross_entropy", logits.shape, label.shape, soft_label, ax)
        loss = list(logits.shape)
        loss[ax] = 1
        return Meta(tuple(logits.shape), logits.dtype), Meta(tuple(loss), logits.dtype)

    def forward(self, ctx, logits, label, soft_label, ignore_index, axis):
        xp = ctx.xp
        ax = normalize_axis(axis, logits.ndim, "softmax_with_cross_entropy: axis")
        _check_label("softmax_with_cross_entropy", logits.shape, label.shape, soft_label, ax)
        z = logits - logits.max(axis=ax, keepdims=True)
        e = xp.exp(z)
        s = e.sum(axis=ax, keepdims=True)
        softmax = e / s
        log_sm = z - xp.log(s)
        if soft_label:
            loss = -(label * log_sm).sum(axis=ax, keepdims=True)
        else:
            valid, safe = _hard_index(xp, "softmax_with_cross_entropy", label,
                                      logits.shape[ax], ignore_index)
            loss = xp.where(valid, -xp.take_along_axis(log_sm, safe, axis=ax), 0)
        dt = logits.dtype
        return softmax.astype(dt, copy=False), loss.astype(dt, copy=False)

    def backward(self, ctx, ins, outs, douts, soft_label, ignore_index, axis):
        xp = ctx.xp
        logits, label = ins
        softmax, dloss = outs[0], douts[1]
        ax = normalize_axis(axis, logits.ndim, "softmax_with_cross_entropy: axis")
        if soft_label:
            # NOTE: the exact gradient softmax * sum(label) - label; it is the familiar
            # softmax - label when the label rows sum to 1.
            g = softmax * label.sum(axis=ax, keepdims=True) - label
            return (dloss * g).astype(logits.dtype, copy=False), None
        valid, safe = _hard_index(xp, "softmax_with_cross_entropy", label, logits.shape[ax],
                                  ignore_index)
        shape = [1] * logits.ndim
        shape[ax] = -1
        onehot = xp.arange(logits.shape[ax]).reshape(shape) == safe
        g = xp.where(valid, dloss, 0) * (softmax - onehot)
        return g.astype(logits.dtype, copy=False), None


@register_op
class sigmoid_cross_entropy_with_logits(OpDef):
    """Elementwise ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits ``x`` and targets
    ``z``; entries whose label equals ``ignore_index`` give 0. ``normalize`` divides by the
    number of entries not ignored."""

    inputs = ("X", "Label")
    attrs = {"ignore_index": -100, "normalize": False}
    nondiff_inputs = ("Label",)

    def infer(self, x, label, ignore_index, normalize):
        _check_label("sigmoid_cross_entropy_with_logits", x.shape, label.shape, True, 0)
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, label, ignore_index, normalize):
        xp = ctx.xp
        _check_label("sigmoid_cross_entropy_with_logits", x.shape, label.shape, True, 0)
        out = xp.maximum(x, 0) - x * label + xp.log1p(xp.exp(-xp.abs(x)))
        keep, norm = self._mask(xp, label, ignore_index, normalize)
        out = xp.where(keep, out, 0)
        if normalize:
            out = out / norm
        return out.astype(x.dtype, copy=False)

    @staticmethod
    def _mask(xp, label, ignore_index, normalize):
        keep = label != ignore_index
        norm = max(int(keep.sum()), 1) if normalize else 1
        return keep, norm

    def backward(self, ctx, ins, outs, douts, ignore_index, normalize):
        xp = ctx.xp
        x, label = ins
        e = xp.exp(-xp.abs(x))
        # NOTE: sigmoid from exp(-|x|) only, so no overflow for large |x| of either sign.
        sig = xp.where(x >= 0, 1, e) / (1 + e)
        keep, norm = self._mask(xp, label, ignore_index, normalize)
        dx = xp.where(keep, (sig - label) * douts[0], 0)
        if normalize:
            dx = dx / norm
        return dx.astype(x.dtype, copy=False), None


@register_op
class accuracy(OpDef):
    """Top-k accuracy from ``topk`` results: a row is correct when any of its ``Indices``
    equals its ``Label``. ``Accuracy`` (float32), ``Correct`` and ``Total`` (int32) have
    shape [1]."""

    inputs = ("Out", "Indices", "Label")
    outputs = ("Accuracy", "Correct", "Total")
    differentiable = False

    def infer(self, out, indices, label):
        self._check(indices.shape, label.shape)
        one = (1,)
        return Meta(one, np.dtype(np.float32)), Meta(one, np.dtype(np.int32)), \
            Meta(one, np.dtype(np.int32))

    @staticmethod
    def _check(ind_shape, label_shape):
        if len(ind_shape) != 2 or len(label_shape) != 2 or label_shape[1] != 1 or \
                (ind_shape[0] >= 0 and label_shape[0] >= 0 and ind_shape[0] != label_shape[0]):
            raise ShapeError(f"accuracy: Indices must be [N, k] and Label [N, 1], got Indices "
                             f"{list(ind_shape)} and Label {list(label_shape)}")

    def forward(self, ctx, out, indices, label):
        xp = ctx.xp
        self._check(indices.shape, label.shape)
        total = indices.shape[0]
        correct = (indices == label).any(axis=1).sum()
        acc = correct / total if total else correct * 0.0
        return (xp.asarray(acc, dtype=xp.float32).reshape(1),
                xp.asarray(correct, dtype=xp.int32).reshape(1),
                xp.full((1,), total, dtype=xp.int32))


@register_op
class label_smooth(OpDef):
    """``Out = (1 - epsilon) * X + epsilon * PriorDist`` (X one-hot or soft labels with the
    classes on the last dim); without ``PriorDist`` the prior is uniform, ``1 / classes``."""

    inputs = ("X", "PriorDist")
    attrs = {"epsilon": 0.0}
    nondiff_inputs = ("PriorDist",)

    def _check(self, xs, ps, epsilon):
        if not 0.0 <= epsilon <= 1.0:
            raise ShapeError(f"label_smooth: epsilon must be in [0, 1], got {epsilon}")
        if ps is not None and (int(np.prod([abs(d) for d in ps])) != abs(xs[-1])):
            raise ShapeError(f"label_smooth: prior_dist must hold one value per class "
                             f"({xs[-1]}, the label's last dim), got shape {list(ps)}")

    def infer(self, x, prior, epsilon):
        self._check(tuple(x.shape), None if prior is None else tuple(prior.shape), epsilon)
        return Meta(tuple(x.shape), np.dtype(x.dtype))

    def forward(self, ctx, x, prior, epsilon):
        self._check(x.shape, None if prior is None else prior.shape, epsilon)
        if prior is None:
            out = x * (1.0 - epsilon) + epsilon / x.shape[-1]
        else:
            out = x * (1.0 - epsilon) + prior.reshape(-1) * epsilon
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, epsilon):
        return (douts[0] * (1.0 - epsilon)).astype(ins[0].dtype, copy=False), None

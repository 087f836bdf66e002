"""Loss functions (2.x spellings and semantics): ``cross_entropy`` (class weights, ignored
labels, soft labels, probabilities instead of logits), ``nll_loss``, ``mse_loss``,
``l1_loss``, ``smooth_l1_loss``, ``binary_cross_entropy`` (with logits too) and ``kl_div``.

Each is written with registry ops, so its gradient, static form and ONNX export are those of
the ops. ``reduction`` is ``'mean'`` (default), ``'sum'`` or ``'none'``; a weighted ``'mean'``
divides by the sum of the weights of the labels counted, as Paddle does."""
from ...checks import FLOATS, check_axis, check_bool, check_choice, check_int, check_label, \
    check_number, check_variable
from ...dispatch import apply
from .common import cast_like

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "kl_div",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
    "softmax_with_cross_entropy",
]

_REDUCTIONS = ("mean", "sum", "none")


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return apply("reduce_sum", [loss], {"reduce_all": True})
    return apply("mean", [loss])


def _safe_div(total, count):
    """``total / count``, or ``total`` where ``count`` is 0 (Paddle's ``count + (count == 0)``)."""
    zero = cast_like(apply("equal", [count, 0.0]), count)
    return total / (count + zero)


def _axis(x, axis, api):
    return check_axis(check_int(axis, "axis", api, integral_float=False), len(x.shape), "axis",
                      api)


def _ce_args(logits, label, soft_label, ignore_index, axis, api, in_arg):
    """The checked arguments of a cross entropy: ``(soft_label, axis, ignore_index,
    label)``, hard labels given the class axis (of size 1) when they omit it."""
    check_variable(logits, in_arg, api, FLOATS)
    soft_label = check_bool(soft_label, "soft_label", api)
    ax = _axis(logits, axis, api)
    ignore_index = check_int(ignore_index, "ignore_index", api, integral_float=False)
    check_variable(label, "label", api)
    if not soft_label and len(label.shape) == len(logits.shape) - 1:
        label = apply("unsqueeze", [label], {"axes": [ax]})
    check_label(label, logits, soft_label, ax, api, in_arg)
    return soft_label, ax, ignore_index, label


def _softmax_ce(logits, label, soft_label, ignore_index, axis, api, in_arg, use_softmax=True):
    """``(loss, label)``: the per-example loss (class axis kept, size 1) and the label with the
    class axis restored when hard labels omitted it."""
    soft_label, ax, ignore_index, label = _ce_args(logits, label, soft_label, ignore_index,
                                                   axis, api, in_arg)
    if use_softmax:
        _, loss = apply("softmax_with_cross_entropy", [logits, label],
                        {"soft_label": soft_label, "ignore_index": ignore_index, "axis": ax})
        return loss, label
    # probabilities: the fluid cross_entropy op works on the last axis
    last = len(logits.shape) - 1
    if ax != last:
        perm = [i for i in range(last + 1) if i != ax] + [ax]
        back = [perm.index(i) for i in range(last + 1)]
        logits = apply("transpose", [logits], {"axis": perm})
        label = apply("transpose", [label], {"axis": perm})
    loss = apply("cross_entropy", [logits, label],
                 {"soft_label": soft_label, "ignore_index": ignore_index})
    if ax != last:
        loss = apply("transpose", [loss], {"axis": back})
        label = apply("transpose", [label], {"axis": back})
    return loss, label


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, axis=-1,
                               return_softmax=False):
    """Per-example loss (the logits' shape with 1 at ``axis``); hard labels may omit that
    dimension of 1."""
    api = "softmax_with_cross_entropy"
    soft_label, ax, ignore_index, label = _ce_args(logits, label, soft_label, ignore_index,
                                                   axis, api, "logits")
    sm, loss = apply("softmax_with_cross_entropy", [logits, label],
                     {"soft_label": soft_label, "ignore_index": ignore_index, "axis": ax})
    return (loss, sm) if return_softmax else loss


def _class_weight(weight, label, logits, ax, soft_label, ignore_index, api):
    """Each example's weight (the loss's shape): ``weight[label]`` for hard labels (0 where
    ignored), ``sum_c label_c * weight_c`` for soft ones."""
    check_variable(weight, "weight", api, FLOATS)
    classes = logits.shape[ax]
    if len(weight.shape) != 1 or (classes >= 0 and weight.shape[0] not in (-1, classes)):
        raise ValueError(f"{api}(): argument 'weight' must have shape [{classes}] (one entry per "
                         f"class of 'input' {list(logits.shape)}), got {list(weight.shape)}")
    if soft_label:
        soft = cast_like(label, weight)
        return apply("reduce_sum", [apply("elementwise_mul", [soft, weight], {"axis": ax})],
                     {"dim": [ax], "keep_dim": True})
    valid = apply("not_equal", [label, ignore_index])
    safe = apply("where", [valid, label, apply("fill_any_like", [label], {"value": 0.0})])
    hot = apply("one_hot", [apply("squeeze", [safe], {"axes": [ax]})], {"depth": classes})
    hot = cast_like(hot, weight)
    if ax != len(logits.shape) - 1:
        perm = list(range(len(logits.shape) - 1))
        perm.insert(ax, len(logits.shape) - 1)
        hot = apply("transpose", [hot], {"axis": perm})
    per = apply("reduce_sum", [apply("elementwise_mul", [hot, weight], {"axis": ax})],
                {"dim": [ax], "keep_dim": True})
    return per * cast_like(valid, weight)


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, name=None):
    """Cross entropy of ``input`` (logits, or probabilities with ``use_softmax=False``) against
    hard labels (int, with or without the class axis) or soft labels (``soft_label=True``).

    Labels equal to ``ignore_index`` give a loss of 0. ``weight`` (one entry per class) scales
    each example's loss by its label's weight. ``reduction='mean'``, as PaddlePaddle 2.x:

    * with ``weight``: the weighted sum divided by the sum of the weights of the labels not
      ignored;
    * without, for hard labels and ``ignore_index >= 0``: the sum divided by the number of
      labels not ignored;
    * otherwise (soft labels, or a negative ``ignore_index`` such as the default -100): the
      plain mean over every label, the ignored ones counted with their loss of 0.

    When every label is ignored the mean is 0 (the divisor 0 is replaced by 1), not NaN. With
    ``reduction='none'`` the class axis is dropped when the label had none."""
    api = "cross_entropy"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    use_softmax = check_bool(use_softmax, "use_softmax", api)
    label_rank = len(label.shape) if hasattr(label, "shape") else None
    loss, label = _softmax_ce(input, label, soft_label, ignore_index, axis, api, "input",
                              use_softmax)
    ax = _axis(input, axis, api)
    per = None
    if weight is not None:
        per = _class_weight(weight, label, input, ax, soft_label, ignore_index, api)
        loss = loss * cast_like(per, loss)
    if reduction == "none":
        if not soft_label and label_rank == len(input.shape) - 1:
            return apply("squeeze", [loss], {"axes": [ax]})
        return loss
    if reduction == "sum":
        return _reduce(loss, "sum")
    total = _reduce(loss, "sum")
    if per is not None:
        return _safe_div(total, cast_like(_reduce(per, "sum"), total))
    if soft_label or ignore_index < 0:
        # NOTE: PaddlePaddle divides by the count of labels kept only for ignore_index >= 0
        return apply("mean", [loss])
    valid = cast_like(apply("not_equal", [label, ignore_index]), loss)
    return _safe_div(total, _reduce(valid, "sum"))


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """Negative log likelihood of log-probabilities ``input`` (``[N, C]`` or
    ``[N, C, d1, ...]``, classes on axis 1) at the int ``label`` (``[N]`` or
    ``[N, d1, ...]``): ``-weight[label] * input[label]``; ignored labels give 0; ``'mean'``
    divides by the sum of the counted labels' weights."""
    api = "nll_loss"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    check_variable(input, "input", api, FLOATS)
    check_variable(label, "label", api, ("int64", "int32"))
    ignore_index = check_int(ignore_index, "ignore_index", api, integral_float=False)
    if len(input.shape) < 2 or len(label.shape) != len(input.shape) - 1:
        raise ValueError(f"{api}(): argument 'label' must have the shape of 'input' without its "
                         f"class axis 1 ({list(input.shape)}), got {list(label.shape)}")
    label = apply("unsqueeze", [label], {"axes": [1]})
    if weight is None:
        valid = apply("not_equal", [label, ignore_index])
        per = cast_like(valid, input)
    else:
        per = _class_weight(weight, label, input, 1, False, ignore_index, api)
        per = cast_like(per, input)
    valid = apply("not_equal", [label, ignore_index])
    safe = apply("where", [valid, label, apply("fill_any_like", [label], {"value": 0.0})])
    hot = apply("one_hot", [apply("squeeze", [safe], {"axes": [1]})],
                {"depth": input.shape[1]})
    hot = cast_like(hot, input)
    if len(input.shape) > 2:
        perm = [0, len(input.shape) - 1] + list(range(1, len(input.shape) - 1))
        hot = apply("transpose", [hot], {"axis": perm})
    picked = apply("reduce_sum", [input * hot], {"dim": [1], "keep_dim": True})
    loss = -(picked * per)
    if reduction == "none":
        return apply("squeeze", [loss], {"axes": [1]})
    total = _reduce(loss, "sum")
    if reduction == "sum":
        return total
    return _safe_div(total, _reduce(per, "sum"))


def _check_same(input, label, api, in_arg="input"):
    check_variable(input, in_arg, api, FLOATS)
    check_variable(label, "label", api, FLOATS)
    a, b = list(input.shape), list(label.shape)
    if len(a) != len(b) or any(x != y and x >= 0 and y >= 0 for x, y in zip(a, b)):
        raise ValueError(f"{api}(): argument 'label' must have the shape of '{in_arg}' {a}, "
                         f"got {b}")


def mse_loss(input, label, reduction="mean", name=None):
    """``(input - label) ** 2``, reduced by ``reduction``."""
    check_choice(reduction, "reduction", _REDUCTIONS, "mse_loss")
    return _reduce(apply("square", [input - label]), reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """``|input - label|``, reduced by ``reduction``."""
    check_choice(reduction, "reduction", _REDUCTIONS, "l1_loss")
    _check_same(input, label, "l1_loss")
    return _reduce(apply("abs", [input - label]), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    """Huber loss: ``0.5 * d ** 2`` where ``|d| < delta``, else ``delta * (|d| - 0.5 *
    delta)``, for ``d = input - label``."""
    api = "smooth_l1_loss"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    _check_same(input, label, api)
    delta = float(check_number(delta, "delta", api))
    if delta <= 0:
        raise ValueError(f"{api}(): argument 'delta' must be > 0, got {delta}")
    a = apply("abs", [input - label])
    q = apply("elementwise_min", [a, delta])
    return _reduce(q * q * 0.5 + (a - q) * delta, reduction)


def _clamped_log(p):
    """``max(log(p), -100)`` (Paddle's BCE clamp), without taking the log of 0."""
    positive = apply("greater_than", [p, 0.0])
    ones = apply("fill_any_like", [p], {"value": 1.0})
    floor = apply("fill_any_like", [p], {"value": -100.0})
    logs = apply("log", [apply("where", [positive, p, ones])])
    return apply("elementwise_max", [apply("where", [positive, logs, floor]), -100.0])


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """``-weight * (label * log(input) + (1 - label) * log(1 - input))`` for probabilities
    ``input``; each log is clamped at -100, as in Paddle's kernel."""
    api = "binary_cross_entropy"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    _check_same(input, label, api)
    log_p, log_q = _clamped_log(input), _clamped_log(1.0 - input)
    loss = -(label * log_p + (1.0 - label) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Sigmoid cross entropy of ``logit``: ``max(x, 0) - x * label + log(1 + exp(-|x|))``,
    the positive term scaled by ``pos_weight`` (per class) and the whole by ``weight``."""
    api = "binary_cross_entropy_with_logits"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    _check_same(logit, label, api, "logit")
    loss = apply("sigmoid_cross_entropy_with_logits", [logit, label],
                 {"ignore_index": -100, "normalize": False})
    if pos_weight is not None:
        check_variable(pos_weight, "pos_weight", api, FLOATS)
        loss = loss * (label * (pos_weight - 1.0) + 1.0)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, label, reduction="mean", name=None):
    """Kullback-Leibler divergence of log-probabilities ``input`` from probabilities
    ``label``: ``label * (log(label) - input)`` where ``label > 0``, else 0. ``reduction``
    also accepts ``'batchmean'`` (the sum divided by the batch size)."""
    api = "kl_div"
    check_choice(reduction, "reduction", _REDUCTIONS + ("batchmean",), api)
    _check_same(input, label, api)
    positive = apply("greater_than", [label, 0.0])
    ones = apply("fill_any_like", [label], {"value": 1.0})
    safe = apply("where", [positive, label, ones])
    loss = label * (apply("log", [safe]) - input) * cast_like(positive, label)
    if reduction != "batchmean":
        return _reduce(loss, reduction)
    total = _reduce(loss, "sum")
    if input.shape[0] >= 0:
        return total * (1.0 / input.shape[0])
    batch = apply("slice", [apply("shape", [input])], {"axes": [0], "starts": [0], "ends": [1]})
    return total / cast_like(apply("reshape", [batch], {"shape": []}), total)

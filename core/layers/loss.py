"""Functional API: losses and metrics (``paddle.fluid.layers`` signatures).

Hard labels are int64 (or int32) class indices shaped like the input with a 1 in the class
axis (``[N, 1]`` for ``[N, D]`` inputs); soft labels are float distributions of the input's
shape. Shape and dtype mismatches are reported here, naming the argument and both shapes,
before any op runs.
"""
from ..checks import FLOATS, check_axis, check_bool, check_int, check_label, check_variable
from ..dispatch import apply

__all__ = [
    "accuracy",
    "cross_entropy",
    "sigmoid_cross_entropy_with_logits",
    "softmax_with_cross_entropy",
    "square_error_cost",
]

def _ignore(value, api):
    return check_int(value, "ignore_index", api, integral_float=False)


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """Cross entropy of probabilities ``input`` [N, D] against ``label``: ``-log(input[label])``
    for hard labels [N, 1], ``-sum(label * log(input))`` for soft labels [N, D]. Returns
    [N, 1]; rows whose hard label equals ``ignore_index`` give 0."""
    api = "cross_entropy"
    check_variable(input, "input", api, FLOATS)
    soft_label = check_bool(soft_label, "soft_label", api)
    check_label(label, input, soft_label, len(input.shape) - 1, api)
    return apply("cross_entropy", [input, label],
                 {"soft_label": soft_label, "ignore_index": _ignore(ignore_index, api)})


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Softmax of ``logits`` over ``axis`` and its cross entropy with ``label``, computed
    stably from log-softmax (``numeric_stable_mode`` is accepted; it is always stable).
    Returns the loss (a 1 at ``axis``), or ``(loss, softmax)`` with ``return_softmax``."""
    api = "softmax_with_cross_entropy"
    check_variable(logits, "logits", api, FLOATS)
    soft_label = check_bool(soft_label, "soft_label", api)
    axis = check_axis(axis, len(logits.shape), "axis", api)
    check_label(label, logits, soft_label, axis, api, "logits")
    softmax, loss = apply("softmax_with_cross_entropy", [logits, label],
                          {"soft_label": soft_label,
                           "ignore_index": _ignore(ignore_index, api), "axis": axis})
    return (loss, softmax) if return_softmax else loss


def square_error_cost(input, label):
    """Elementwise ``(input - label) ** 2``."""
    api = "square_error_cost"
    check_variable(input, "input", api, FLOATS)
    check_variable(label, "label", api, FLOATS)
    diff = apply("elementwise_sub", [input, label])
    return apply("square", [diff])


def sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None, normalize=False):
    """Elementwise binary cross entropy of ``sigmoid(x)`` against targets ``label`` in [0, 1]
    (same shape and dtype as ``x``); entries labelled ``ignore_index`` give 0, and
    ``normalize`` divides by the number of entries not ignored."""
    api = "sigmoid_cross_entropy_with_logits"
    check_variable(x, "x", api, FLOATS)
    check_label(label, x, True, 0, api, "x")
    return apply("sigmoid_cross_entropy_with_logits", [x, label],
                 {"ignore_index": _ignore(ignore_index, api),
                  "normalize": check_bool(normalize, "normalize", api)})


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-``k`` accuracy of predictions ``input`` [N, D] against ``label`` [N, 1]: the share
    of rows whose label is among the ``k`` largest entries, as a float32 tensor of shape [1].
    ``correct`` / ``total``, when given, receive the counts (int32, shape [1])."""
    api = "accuracy"
    check_variable(input, "input", api, FLOATS)
    if len(input.shape) != 2:
        raise ValueError(f"{api}(): argument 'input' must be 2-D [N, num_classes], got shape "
                         f"{list(input.shape)}")
    check_label(label, input, False, 1, api)
    k = check_int(k, "k", api, integral_float=False)
    classes = input.shape[1]
    if k < 1 or (classes >= 0 and k > classes):
        raise ValueError(f"{api}(): argument 'k' must be in [1, {classes}] for 'input' of shape "
                         f"{list(input.shape)}, got {k}")
    values, indices = apply("topk", [input], {"k": k})
    targets = {}
    if correct is not None:
        targets[1] = check_variable(correct, "correct", api, ("int32",))
    if total is not None:
        targets[2] = check_variable(total, "total", api, ("int32",))
    outs = apply("accuracy", [values, indices, label], outputs=targets or None)
    return outs[0]

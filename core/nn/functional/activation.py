"""``core.nn.functional``: the 2.0 spellings of the ops, calling the same kernels as
``core.layers`` and the built-in layers. Each works in eager and static mode."""
from ..checks import FLOATS, check_axis, check_bool, check_choice, check_index, check_int, \
    check_label, check_number, check_pair, check_probability, check_variable
from ..dispatch import apply
from ..dtypes import convert_dtype, dtype_name

__all__ = [
    "adaptive_avg_pool2d",
    "avg_pool2d",
    "batch_norm",
    "conv2d",
    "cross_entropy",
    "dropout",
    "elu",
    "embedding",
    "gelu",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "one_hot",
    "relu",
    "relu6",
    "sigmoid",
    "softmax",
    "softmax_with_cross_entropy",
    "softplus",
    "tanh",
]

_REDUCTIONS = ("mean", "sum", "none")
_BN_FORMATS = ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC")


def first_output(result):
    """The first output of an op result (ops with saved statistics return a tuple)."""
    return result[0] if isinstance(result, tuple) else result


def _cast(x, dtype):
    if dtype is None or convert_dtype(x.dtype) == convert_dtype(dtype):
        return x
    return apply("cast", [x], {"out_dtype": dtype_name(dtype)})


def relu(x, name=None):
    """``max(x, 0)``."""
    return apply("relu", [x])


def relu6(x, name=None):
    """``min(max(x, 0), 6)``."""
    return apply("relu6", [x])


def sigmoid(x, name=None):
    return apply("sigmoid", [x])


def tanh(x, name=None):
    return apply("tanh", [x])


def gelu(x, approximate=False, name=None):
    """``x * Phi(x)`` (``approximate`` uses the tanh formula)."""
    return apply("gelu", [x], {"approximate": bool(approximate)})


def elu(x, alpha=1.0, name=None):
    return apply("elu", [x], {"alpha": float(check_number(alpha, "alpha", "elu"))})


def leaky_relu(x, negative_slope=0.01, name=None):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    slope = float(check_number(negative_slope, "negative_slope", "leaky_relu"))
    return apply("leaky_relu", [x], {"alpha": slope})


def softplus(x, beta=1, threshold=20, name=None):
    """``log(1 + exp(beta * x)) / beta``. The kernel is exact and overflow-free for every x,
    so ``threshold`` (where Paddle switches to the identity) changes nothing above float
    precision and is accepted for compatibility."""
    beta = check_number(beta, "beta", "softplus")
    if beta == 0:
        raise ValueError("softplus(): argument 'beta' must be a nonzero number (the result is "
                         "divided by it), got 0")
    if beta == 1:
        return apply("softplus", [x])
    return apply("softplus", [x * float(beta)]) / float(beta)


def _axis(x, axis, api):
    return check_axis(check_int(axis, "axis", api, integral_float=False), len(x.shape), "axis",
                      api)


def softmax(x, axis=-1, dtype=None, name=None):
    return apply("softmax", [_cast(x, dtype)], {"axis": _axis(x, axis, "softmax")})


def log_softmax(x, axis=-1, dtype=None, name=None):
    return apply("log_softmax", [_cast(x, dtype)], {"axis": _axis(x, axis, "log_softmax")})


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zeroes elements with probability ``p`` while ``training``; ``mode`` is
    ``'upscale_in_train'`` (2.0 default) or ``'downscale_in_infer'``."""
    if axis is not None:
        raise ValueError("dropout(): argument 'axis' (dropping whole slices) is not supported; "
                         "pass axis=None")
    modes = {"upscale_in_train": "upscale_in_train", "downscale_in_infer": "downgrade_in_infer",
             "downgrade_in_infer": "downgrade_in_infer"}
    if mode not in modes:
        raise ValueError(f"dropout(): argument 'mode' must be 'upscale_in_train' or "
                         f"'downscale_in_infer', got {mode!r}")
    p = check_probability(p, "p", "dropout")
    attrs = {"dropout_prob": p, "is_test": not training, "seed": 0,
             "dropout_implementation": modes[mode]}
    return first_output(apply("dropout", [x], attrs))


def _reduce(loss, reduction, who):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return apply("mean", [loss])


def _softmax_ce(logits, label, soft_label, ignore_index, axis, api, in_arg):
    """``(softmax, loss, label)`` with the arguments checked for ``api`` (``logits`` is its
    argument ``in_arg``): the label with the class axis restored when hard labels omitted
    it."""
    check_variable(logits, in_arg, api, FLOATS)
    soft_label = check_bool(soft_label, "soft_label", api)
    ax = _axis(logits, axis, api)
    ignore_index = check_int(ignore_index, "ignore_index", api, integral_float=False)
    check_variable(label, "label", api)
    if not soft_label and len(label.shape) == len(logits.shape) - 1:
        label = apply("unsqueeze", [label], {"axes": [ax]})
    check_label(label, logits, soft_label, ax, api, in_arg)
    sm, loss = apply("softmax_with_cross_entropy", [logits, label],
                     {"soft_label": soft_label, "ignore_index": ignore_index, "axis": ax})
    return sm, loss, label


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, axis=-1,
                               return_softmax=False):
    """Per-example loss (the logits' shape with 1 at ``axis``); hard labels may omit that
    dimension of 1."""
    sm, loss, _ = _softmax_ce(logits, label, soft_label, ignore_index, axis,
                              "softmax_with_cross_entropy", "logits")
    return (loss, sm) if return_softmax else loss


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, name=None):
    """Softmax cross entropy of logits ``input`` (2.0 semantics). With ``reduction='mean'``
    and hard labels the sum is divided by the number of labels not equal to
    ``ignore_index``."""
    api = "cross_entropy"
    check_choice(reduction, "reduction", _REDUCTIONS, api)
    if weight is not None:
        raise ValueError("cross_entropy(): per-class 'weight' is not supported; pass "
                         "weight=None")
    _, loss, label = _softmax_ce(input, label, soft_label, ignore_index, axis, api, "input")
    if reduction != "mean" or soft_label:
        return _reduce(loss, reduction, api)
    valid = apply("not_equal", [label, int(ignore_index)])
    count = apply("cast", [valid], {"out_dtype": dtype_name(loss.dtype)}).sum()
    return loss.sum() / apply("elementwise_max", [count, 1.0])


def mse_loss(input, label, reduction="mean", name=None):
    """``(input - label) ** 2``, reduced by ``reduction``."""
    check_choice(reduction, "reduction", _REDUCTIONS, "mse_loss")
    return _reduce(apply("square", [input - label]), reduction, "mse_loss")


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape ``[in, out]``."""
    out = apply("matmul", [x, weight])
    return out if bias is None else apply("elementwise_add", [out, bias], {"axis": -1})


def _conv_padding(padding):
    if isinstance(padding, str):
        if padding.upper() == "VALID":
            return [0, 0]
        raise ValueError(f"conv2d(): padding={padding!r} is not supported; pass 'VALID', an int "
                         "or a pair of ints")
    return check_pair(padding, "padding", "conv2d", minimum=0)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution with ``weight`` of shape ``[out, in / groups, kh, kw]``."""
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), "conv2d")
    out = apply("conv2d", [x, weight],
                {"strides": check_pair(stride, "stride", "conv2d", minimum=1),
                 "paddings": _conv_padding(padding),
                 "dilations": check_pair(dilation, "dilation", "conv2d", minimum=1),
                 "groups": check_int(groups, "groups", "conv2d", minimum=1),
                 "data_format": data_format})
    if bias is None:
        return out
    return apply("elementwise_add", [out, bias], {"axis": 1 if data_format == "NCHW" else -1})


def _pool(x, kind, kernel_size, stride, padding, ceil_mode, exclusive, data_format, who):
    ksize = check_pair(kernel_size, "kernel_size", who, minimum=1)
    strides = ksize if stride is None else check_pair(stride, "stride", who, minimum=1)
    return apply("pool2d", [x], {"pooling_type": kind, "ksize": ksize, "strides": strides,
                                 "paddings": check_pair(padding, "padding", who, minimum=0),
                                 "global_pooling": False, "ceil_mode": bool(ceil_mode),
                                 "exclusive": bool(exclusive), "data_format": data_format})


def max_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCHW", name=None):
    """Max pooling; ``stride`` defaults to ``kernel_size``."""
    if return_mask:
        raise ValueError("max_pool2d(): return_mask=True is not supported")
    return _pool(x, "max", kernel_size, stride, padding, ceil_mode, True, data_format,
                 "max_pool2d")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Average pooling; ``exclusive`` leaves padding out of the divisor."""
    if divisor_override is not None:
        raise ValueError("avg_pool2d(): argument 'divisor_override' is not supported")
    return _pool(x, "avg", kernel_size, stride, padding, ceil_mode, exclusive, data_format,
                 "avg_pool2d")


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average pooling to a fixed ``output_size`` (int or pair)."""
    return apply("pool2d", [x], {"pooling_type": "avg",
                                 "ksize": check_pair(output_size, "output_size",
                                               "adaptive_avg_pool2d", minimum=1),
                                 "adaptive": True, "data_format": data_format})


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9,
               epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """Batch normalisation; while ``training`` the running statistics are updated in place."""
    api = "batch_norm"
    check_choice(data_format, "data_format", _BN_FORMATS, api)
    layout = "NHWC" if data_format in ("NHWC", "NLC", "NDHWC") else "NCHW"
    attrs = {"momentum": float(check_probability(momentum, "momentum", api)),
             "epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
             "is_test": not training,
             "data_layout": layout, "use_global_stats": bool(use_global_stats)}
    out = apply("batch_norm", [x, weight, bias, running_mean, running_var], attrs,
                outputs={1: running_mean, 2: running_var})
    return first_output(out)


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalisation over the trailing ``normalized_shape`` dims (which must be ``x``'s)."""
    api = "layer_norm"
    if not isinstance(normalized_shape, (list, tuple)):
        normalized_shape = [normalized_shape]
    dims = [check_int(d, "normalized_shape", api, minimum=1) for d in normalized_shape]
    begin = len(x.shape) - len(dims)
    if begin < 0 or any(d != s and s >= 0 for d, s in zip(dims, x.shape[begin:])):
        raise ValueError(f"{api}(): argument 'normalized_shape' must be the trailing dims of "
                         f"'x' (shape {list(x.shape)}), got {dims}")
    out = apply("layer_norm", [x, weight, bias], {"begin_norm_axis": begin,
                                                  "epsilon": float(check_number(
                                                      epsilon, "epsilon", api, minimum=0))})
    return first_output(out)


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Rows of ``weight`` looked up by the integer ids ``x``; the ``padding_idx`` row (may be
    negative, counted from the end) reads as zeros and gets no gradient."""
    api = "embedding"
    check_variable(x, "x", api, ("int64", "int32"))
    check_variable(weight, "weight", api, FLOATS)
    if len(weight.shape) != 2:
        raise ValueError(f"{api}(): argument 'weight' must be a 2-D [vocab_size, embedding_dim] "
                         f"table, got shape {list(weight.shape)}")
    pad = -1 if padding_idx is None else check_index(padding_idx, weight.shape[0], "padding_idx",
                                                     api, "vocabulary entries",
                                                     integral_float=False)
    return apply("lookup_table", [weight, x], {"padding_idx": pad})


def one_hot(x, num_classes, name=None):
    """Float32 one-hot vectors of length ``num_classes`` for integer ``x`` (shape + [C])."""
    return apply("one_hot", [x], {"depth": check_int(num_classes, "num_classes", "one_hot",
                                                     minimum=1, integral_float=False)})


def softsign(x, name=None):
    """``x / (1 + |x|)``."""
    return apply("softsign", [x])


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """``clip(slope * x + offset, 0, 1)`` (2.0 defaults: slope 1/6, offset 0.5)."""
    api = "hardsigmoid"
    return apply("hard_sigmoid", [x], {"slope": float(check_number(slope, "slope", api)),
                                       "offset": float(check_number(offset, "offset", api))})


def swish(x, name=None):
    """``x * sigmoid(x)``."""
    return apply("swish", [x], {"beta": 1.0})


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior_dist`` (uniform prior by default)."""
    eps = check_probability(epsilon, "epsilon", "label_smooth")
    return apply("label_smooth", [label, prior_dist], {"epsilon": eps})


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max pooling of an NCHW ``x`` to a fixed ``output_size`` (int or pair)."""
    if return_mask:
        raise ValueError("adaptive_max_pool2d(): return_mask=True is not supported")
    return apply("pool2d", [x], {"pooling_type": "max",
                                 "ksize": check_pair(output_size, "output_size",
                                               "adaptive_max_pool2d", minimum=1),
                                 "adaptive": True, "data_format": "NCHW"})


__all__ += ["adaptive_max_pool2d", "hardsigmoid", "label_smooth", "softsign", "swish"]

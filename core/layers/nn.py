"""Functional API: neural-network layers (``paddle.fluid.layers`` signatures).

``conv2d``, ``batch_norm``, ``layer_norm``, ``embedding`` and ``fc`` create their parameters
through :func:`core.parameter.create_parameter` (an eager ``Parameter`` now, or a ``Parameter``
of the main program plus its initializer in the startup program), named ``<layer>_<n>.w_<k>``
/ ``.b_<k>`` as Paddle names them. ``pool2d`` and ``dropout`` own no parameters. Every
function checks its arguments first; errors name the function, the argument, what was
expected and what came.
"""
import functools
import math

from .. import mode as _mode
from .. import unique_name
from ..checks import (FLOATS, check_bool, check_choice, check_index, check_int, check_number,
                      check_pair, check_probability, check_variable, same_padding)
from ..dispatch import apply
from ..dtypes import dtype_name
from ..initializer import Constant, Normal
from ..param_attr import ParamAttr
from ..parameter import create_parameter
from ..static.lod import lengths_of, set_lengths
from .activation import apply_act

__all__ = ["batch_norm", "conv2d", "dropout", "embedding", "fc", "layer_norm", "pool2d"]


# NOTE: as in Paddle, the fluid functions take exact ints where the 2.0 layers also take
# integral floats
_int = functools.partial(check_int, integral_float=False)
_pair = functools.partial(check_pair, minimum=1, integral_float=False)


def _is_test(is_test, api):
    """``is_test`` as a bool; None is ``not training`` of the calling Layer."""
    if is_test is None:
        return not _mode.in_train_mode()
    return check_bool(is_test, "is_test", api)


def _padding(value, arg, api, spatial, kernel, strides, dilations=(1, 1)):
    """``(paddings, dilations)`` from an int, 2 or 4 ints, ``'VALID'`` or ``'SAME'``."""
    if isinstance(value, str):
        mode = value.upper()
        if mode == "VALID":
            return [0, 0], list(dilations)
        if mode != "SAME":
            raise ValueError(f"{api}(): argument '{arg}' must be 'SAME', 'VALID', an int or a "
                             f"list of 2 or 4 ints, got {value!r}")
        pads = same_padding(spatial, kernel, strides, [1, 1], arg, api)
        # NOTE: Paddle resets the dilation to 1 under 'SAME'
        return [v for pair in pads for v in pair], [1, 1]
    if isinstance(value, (list, tuple)) and len(value) == 4:
        return [_int(v, arg, api, 0) for v in value], list(dilations)
    return _pair(value, arg, api, minimum=0), list(dilations)


def _spatial(input, data_format, api):
    """``(channels, [H, W])`` of a 4-D input in ``data_format``."""
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    shape = list(input.shape)
    if len(shape) != 4:
        raise ValueError(f"{api}(): argument 'input' must be a 4-D tensor ({data_format}), got "
                         f"shape {shape}")
    if data_format == "NCHW":
        return shape[1], shape[2:]
    return shape[3], shape[1:3]


def _create(shape, dtype, attr, prefix, is_bias=False, default_initializer=None):
    return create_parameter(shape, dtype_name(dtype), attr=attr, is_bias=is_bias,
                            default_initializer=default_initializer, prefix=prefix)


def _add_bias(out, size, dtype, bias_attr, layer, axis):
    if bias_attr is False:
        return out
    bias = _create([size], dtype, bias_attr, f"{layer}.b", is_bias=True)
    return apply("elementwise_add", [out, bias], {"axis": axis})


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """2-D convolution of an NCHW (or NHWC) ``input`` with ``num_filters`` filters of
    ``filter_size``, plus a bias (``bias_attr=False``: none) and ``act``. The filter is
    initialised from N(0, sqrt(2 / (kh * kw * channels))) unless ``param_attr`` says
    otherwise."""
    api = "conv2d"
    check_variable(input, "input", api, FLOATS)
    channels, spatial = _spatial(input, data_format, api)
    if channels < 0:
        raise ValueError(f"{api}(): the channel dim of 'input' must be known, got shape "
                         f"{list(input.shape)}")
    num_filters = _int(num_filters, "num_filters", api, 1)
    groups = 1 if groups is None else _int(groups, "groups", api, 1)
    if channels % groups:
        raise ValueError(f"{api}(): the input's {channels} channels (shape "
                         f"{list(input.shape)}) are not divisible by groups={groups}")
    if num_filters % groups:
        raise ValueError(f"{api}(): argument 'num_filters'={num_filters} is not divisible by "
                         f"groups={groups}")
    kh, kw = _pair(filter_size, "filter_size", api)
    strides = _pair(stride, "stride", api)
    dilations = _pair(dilation, "dilation", api)
    pads, dilations = _padding(padding, "padding", api, spatial, (kh, kw), strides, dilations)
    layer = name or unique_name.generate(api)
    std = math.sqrt(2.0 / (kh * kw * channels))
    weight = _create([num_filters, channels // groups, kh, kw], input.dtype, param_attr,
                     f"{layer}.w", default_initializer=Normal(0.0, std))
    out = apply("conv2d", [input, weight],
                {"strides": strides, "paddings": pads, "dilations": dilations, "groups": groups,
                 "data_format": data_format})
    out = _add_bias(out, num_filters, input.dtype, bias_attr, layer,
                    1 if data_format == "NCHW" else 3)
    return apply_act(out, act, api)


def pool2d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCHW"):
    """Max or average pooling; ``global_pooling`` pools each whole feature map, and
    ``exclusive`` average pooling divides by the in-image part of each window."""
    api = "pool2d"
    check_variable(input, "input", api, FLOATS)
    _, spatial = _spatial(input, data_format, api)
    check_choice(pool_type, "pool_type", ("max", "avg"), api)
    global_pooling = check_bool(global_pooling, "global_pooling", api)
    if global_pooling:
        ksize, strides, pads = [1, 1], [1, 1], [0, 0]
    else:
        if pool_size == -1:
            raise ValueError(f"{api}(): argument 'pool_size' must be given (an int or two "
                             "ints) unless global_pooling=True")
        ksize = _pair(pool_size, "pool_size", api)
        strides = _pair(pool_stride, "pool_stride", api)
        pads, _ = _padding(pool_padding, "pool_padding", api, spatial, ksize, strides)
    return apply("pool2d", [input],
                 {"pooling_type": pool_type, "ksize": ksize, "strides": strides,
                  "paddings": pads, "global_pooling": global_pooling,
                  "ceil_mode": bool(ceil_mode), "exclusive": bool(exclusive),
                  "data_format": data_format})


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalisation over the channel axis (1 for NCHW, last for NHWC).

    Creates the scale (init 1), the bias (init 0) and the running mean (init 0) and
    variance (init 1); the last two are persistable, not trainable, and updated in place
    in training mode as ``momentum * running + (1 - momentum) * batch``. ``is_test=None``
    follows the train mode of the Layer whose ``forward`` calls it (``not training``, as
    PaddlePaddle 2.x; see :func:`core.mode.in_train_mode`).
    """
    api = "batch_norm"
    is_test = _is_test(is_test, api)
    check_variable(input, "input", api, FLOATS)
    shape = list(input.shape)
    check_choice(data_layout, "data_layout", ("NCHW", "NHWC"), api)
    if len(shape) < 2:
        raise ValueError(f"{api}(): argument 'input' must have rank >= 2 ([N, C, ...]), got "
                         f"shape {shape}")
    c = shape[1] if data_layout == "NCHW" else shape[-1]
    if c < 0:
        raise ValueError(f"{api}(): the channel dim of 'input' must be known, got {shape}")
    momentum = check_probability(momentum, "momentum", api)
    layer = name or unique_name.generate(api)
    scale = _create([c], input.dtype, param_attr, f"{layer}.w",
                    default_initializer=Constant(1.0))
    bias = _create([c], input.dtype, bias_attr, f"{layer}.b", is_bias=True)
    avg = bool(do_model_average_for_mean_and_var)
    mean = _create([c], input.dtype, ParamAttr(name=moving_mean_name, initializer=Constant(0.0),
                                               trainable=False, do_model_average=avg),
                   f"{layer}.w")
    var = _create([c], input.dtype, ParamAttr(name=moving_variance_name,
                                              initializer=Constant(1.0), trainable=False,
                                              do_model_average=avg), f"{layer}.w")
    outs = apply("batch_norm", [input, scale, bias, mean, var],
                 {"momentum": momentum,
                  "epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
                  "is_test": is_test, "data_layout": data_layout,
                  "use_global_stats": bool(use_global_stats)},
                 outputs={1: mean, 2: var})
    return apply_act(outs[0], act, api)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalisation over the axes from ``begin_norm_axis`` on, with a learned scale
    (init 1) and shift (init 0) of the flattened normalised size unless turned off."""
    api = "layer_norm"
    check_variable(input, "input", api, FLOATS)
    shape = list(input.shape)
    axis = _int(begin_norm_axis, "begin_norm_axis", api)
    if not 1 <= axis < len(shape):
        raise ValueError(f"{api}(): argument 'begin_norm_axis' must be in [1, "
                         f"{len(shape) - 1}] for an input of shape {shape}, got {axis}")
    tail = shape[axis:]
    if (scale or shift) and min(tail) < 0:
        raise ValueError(f"{api}(): the normalised dims {tail} of 'input' (shape {shape}) must "
                         "be known to create the scale and shift")
    size = int(math.prod(tail))
    layer = name or unique_name.generate(api)
    w = _create([size], input.dtype, param_attr, f"{layer}.w",
                default_initializer=Constant(1.0)) if scale else None
    b = _create([size], input.dtype, bias_attr, f"{layer}.b", is_bias=True) if shift else None
    outs = apply("layer_norm", [input, w, b],
                 {"begin_norm_axis": axis,
                  "epsilon": float(check_number(epsilon, "epsilon", api, minimum=0))})
    return apply_act(outs[0], act, api)


def dropout(x, dropout_prob, is_test=None, seed=None, name=None,
            dropout_implementation="downgrade_in_infer"):
    """Randomly zero elements of ``x`` with probability ``dropout_prob`` (see the
    ``dropout`` op for the two implementations). ``seed`` fixes the mask. ``is_test=None``
    (the default, as in PaddlePaddle 2.x) follows the train mode of the Layer whose
    ``forward`` calls it: after ``eval()`` no mask is drawn, eagerly, in converted code and
    in a saved inference model."""
    api = "dropout"
    is_test = _is_test(is_test, api)
    check_variable(x, "x", api, FLOATS)
    dropout_prob = check_probability(dropout_prob, "dropout_prob", api)
    check_choice(dropout_implementation, "dropout_implementation",
                 ("downgrade_in_infer", "upscale_in_train"), api)
    seed = 0 if seed is None else _int(seed, "seed", api, 0)
    outs = apply("dropout", [x], {"dropout_prob": dropout_prob, "is_test": is_test,
                                  "seed": seed,
                                  "dropout_implementation": dropout_implementation})
    return outs[0]


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Look up rows of a ``size = [vocab, dim]`` table for int64 ids. As in fluid, a trailing
    dim of 1 in ``input`` is dropped (``[N, 1]`` ids give ``[N, dim]``). ``padding_idx`` (may
    be negative, counted from the end) reads as zeros and gets no gradient. The gradient is
    always dense (``is_sparse`` is accepted for compatibility)."""
    api = "embedding"
    check_variable(input, "input", api, ("int64", "int32"))
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{api}(): argument 'size' must be [vocab_size, embedding_dim], got "
                         f"{size!r}")
    vocab, dim = (_int(s, "size", api, 1) for s in size)
    if padding_idx is None:
        pad = -1
    else:
        pad = check_index(padding_idx, vocab, "padding_idx", api, "vocabulary entries",
                          integral_float=False)
    weight = _create([vocab, dim], dtype, param_attr, f"{unique_name.generate(api)}.w")
    ids = input
    if len(input.shape) >= 2 and input.shape[-1] == 1:
        ids = apply("squeeze", [input], {"axes": [len(input.shape) - 1]})
    out = apply("lookup_table", [weight, ids], {"padding_idx": pad})
    lengths = lengths_of(input)  # a padded sequence batch stays one, with the same lengths
    return out if lengths is None else set_lengths(out, lengths)


def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None):
    """Fully connected: each input is flattened to 2-D at ``num_flatten_dims`` and multiplied
    by its own weight ``[in_features, size]``; the products are summed, a bias added and
    ``act`` applied. ``input`` may be one tensor or a list (``param_attr`` then a list too)."""
    api = "fc"
    inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    if not inputs:
        raise ValueError(f"{api}(): argument 'input' must not be an empty list")
    size = _int(size, "size", api, 1)
    nfd = _int(num_flatten_dims, "num_flatten_dims", api, 1)
    attrs = list(param_attr) if isinstance(param_attr, (list, tuple)) else \
        [param_attr] * len(inputs)
    if len(attrs) != len(inputs):
        raise ValueError(f"{api}(): argument 'param_attr' must hold one entry per input "
                         f"({len(inputs)}), got {len(attrs)}")
    layer = name or unique_name.generate(api)
    products = []
    for k, (x, attr) in enumerate(zip(inputs, attrs)):
        arg = "input" if len(inputs) == 1 else f"input[{k}]"
        check_variable(x, arg, api, FLOATS)
        shape = list(x.shape)
        if not 1 <= nfd < len(shape):
            raise ValueError(f"{api}(): argument 'num_flatten_dims'={nfd} must be in [1, "
                             f"{len(shape) - 1}] for {arg} of shape {shape}")
        tail = shape[nfd:]
        if min(tail) < 0:
            raise ValueError(f"{api}(): the dims {tail} of {arg} (shape {shape}) after "
                             f"num_flatten_dims={nfd} must be known to size the weight")
        w = _create([int(math.prod(tail)), size], x.dtype, attr, f"{layer}.w")
        products.append(apply("mul", [x, w], {"x_num_col_dims": nfd, "y_num_col_dims": 1}))
    out = products[0] if len(products) == 1 else apply("sums", [products])
    out = _add_bias(out, size, inputs[0].dtype, bias_attr, layer, nfd)
    return apply_act(out, act, api)


def cos_sim(X, Y):
    """Cosine similarity of each row of ``X`` with the same row of ``Y`` (or with ``Y``'s only
    row): shape ``[N, 1]``."""
    check_variable(X, "X", "cos_sim", FLOATS)
    check_variable(Y, "Y", "cos_sim", FLOATS)
    return apply("cos_sim", [X, Y])[0]


def label_smooth(label, prior_dist=None, epsilon=0.1, dtype="float32", name=None):
    """``(1 - epsilon) * label + epsilon * prior_dist`` (uniform prior by default)."""
    check_variable(label, "label", "label_smooth", FLOATS)
    if prior_dist is not None:
        check_variable(prior_dist, "prior_dist", "label_smooth", FLOATS)
    eps = check_probability(epsilon, "epsilon", "label_smooth")
    return apply("label_smooth", [label, prior_dist], {"epsilon": eps})


def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):
    """Max or average pooling of an NCHW ``input`` to a fixed ``pool_size`` (int or pair):
    output cell ``(i, j)`` pools rows ``[floor(i H / h), ceil((i + 1) H / h))`` and likewise
    columns."""
    api = "adaptive_pool2d"
    check_variable(input, "input", api, FLOATS)
    check_choice(pool_type, "pool_type", ("max", "avg"), api)
    if require_index:
        raise ValueError(f"{api}(): require_index=True (the max positions) is not supported")
    if len(input.shape) != 4:
        raise ValueError(f"{api}(): argument 'input' must be a 4-D NCHW tensor, got shape "
                         f"{list(input.shape)}")
    return apply("pool2d", [input], {"pooling_type": pool_type,
                                     "ksize": _pair(pool_size, "pool_size", api),
                                     "adaptive": True, "data_format": "NCHW"})


__all__ += ["adaptive_pool2d", "cos_sim", "label_smooth"]

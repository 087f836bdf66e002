"""Common functions (2.x spellings): ``linear``, ``dropout``, ``embedding``, ``one_hot``,
``normalize``, ``cosine_similarity``, ``pad``, ``label_smooth``, and the helpers the layers
share with them."""
from ...checks import FLOATS, check_choice, check_index, check_int, check_number, \
    check_probability, check_variable
from ...dispatch import apply
from ...dtypes import dtype_name

__all__ = [
    "cosine_similarity",
    "dropout",
    "embedding",
    "label_smooth",
    "linear",
    "normalize",
    "one_hot",
    "pad",
]


def first_output(result):
    """The first output of an op result (ops with saved statistics return a tuple)."""
    return result[0] if isinstance(result, tuple) else result


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape ``[in, out]``."""
    out = apply("matmul", [x, weight])
    return out if bias is None else apply("elementwise_add", [out, bias], {"axis": -1})


DROPOUT_MODES = {"upscale_in_train": "upscale_in_train",
                 "downscale_in_infer": "downgrade_in_infer",
                 "downgrade_in_infer": "downgrade_in_infer"}


def dropout_mode(mode, api):
    """The op's ``dropout_implementation`` for a 2.x ``mode`` (fluid's spelling accepted)."""
    if mode not in DROPOUT_MODES:
        raise ValueError(f"{api}(): argument 'mode' must be 'upscale_in_train' or "
                         f"'downscale_in_infer', got {mode!r}")
    return DROPOUT_MODES[mode]


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zeroes elements with probability ``p`` while ``training``; ``mode`` is
    ``'upscale_in_train'`` (2.0 default) or ``'downscale_in_infer'``."""
    if axis is not None:
        raise ValueError("dropout(): argument 'axis' (dropping whole slices) is not supported; "
                         "pass axis=None")
    impl = dropout_mode(mode, "dropout")
    p = check_probability(p, "p", "dropout")
    attrs = {"dropout_prob": p, "is_test": not training, "seed": 0,
             "dropout_implementation": impl}
    return first_output(apply("dropout", [x], attrs))


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


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x / max(||x||_p, epsilon)`` along ``axis``. The norm is taken as
    ``max(sum(|x|^p), epsilon^p)^(1/p)``: the same value, and a finite gradient at zero."""
    api = "normalize"
    check_variable(x, "x", api, FLOATS)
    p = float(check_number(p, "p", api))
    if p <= 0:
        raise ValueError(f"{api}(): argument 'p' must be > 0, got {p}")
    eps = float(check_number(epsilon, "epsilon", api, minimum=0))
    rank = len(x.shape)
    ax = check_int(axis, "axis", api, integral_float=False)
    if not -rank <= ax < rank:
        raise ValueError(f"{api}(): argument 'axis'={ax} is out of range for a tensor of rank "
                         f"{rank}")
    reduce = {"dim": [ax % rank], "keep_dim": True}
    if p == 2:
        total = apply("reduce_sum", [apply("square", [x])], reduce)
        return x / apply("sqrt", [apply("elementwise_max", [total, eps * eps])])
    total = apply("reduce_sum", [apply("elementwise_pow", [apply("abs", [x]), p])], reduce)
    norm = apply("elementwise_pow", [apply("elementwise_max", [total, eps ** p]), 1.0 / p])
    return x / norm


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``axis`` (that axis reduced
    away; the two broadcast): ``sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2))``."""
    api = "cosine_similarity"
    check_variable(x1, "x1", api, FLOATS)
    check_variable(x2, "x2", api, FLOATS)
    eps = float(check_number(eps, "eps", api, minimum=0))
    rank = max(len(x1.shape), len(x2.shape))
    ax = check_int(axis, "axis", api, integral_float=False)
    if not -rank <= ax < rank:
        raise ValueError(f"{api}(): argument 'axis'={ax} is out of range for tensors of rank "
                         f"{rank}")
    reduce = {"dim": [ax % rank], "keep_dim": False}
    w12 = apply("reduce_sum", [x1 * x2], reduce)
    w1 = apply("reduce_sum", [apply("square", [x1])], reduce)
    w2 = apply("reduce_sum", [apply("square", [x2])], reduce)
    return w12 / apply("sqrt", [apply("elementwise_max", [w1 * w2, eps * eps])])


_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def pad_pairs(pad, rank, data_format, api):
    """Paddle 2.x ``pad`` as ``(before, after)`` per axis of a rank-``rank`` input.

    A list of ``2 * rank`` pads every axis in order (axis 0 first). A list of
    ``2 * (rank - 2)`` pads the spatial axes only, starting from the *last* one, as Paddle
    does: ``[left, right]`` for NCL, ``[left, right, top, bottom]`` for NCHW, then
    ``front, back`` for NCDHW."""
    if hasattr(pad, "numpy") and not hasattr(pad, "block"):
        pad = pad.numpy().tolist()
    if isinstance(pad, int) and not isinstance(pad, bool):
        pad = [pad] * (2 * (rank - 2))
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"{api}(): argument 'pad' must be a list of ints, got "
                        f"{type(pad).__name__}")
    pad = [check_int(v, "pad", api, minimum=0) for v in pad]
    pairs = [(0, 0)] * rank
    if len(pad) == 2 * rank:
        return [(pad[2 * i], pad[2 * i + 1]) for i in range(rank)]
    if rank not in _PAD_FORMATS or len(pad) != 2 * (rank - 2):
        raise ValueError(f"{api}(): argument 'pad' must have {2 * rank} entries (every axis) "
                         f"or {2 * (rank - 2)} (the spatial axes) for a rank-{rank} input, got "
                         f"{len(pad)}")
    check_choice(data_format, "data_format", _PAD_FORMATS[rank], api)
    spatial = list(range(2, rank)) if data_format[1] == "C" else list(range(1, rank - 1))
    for k, axis in enumerate(reversed(spatial)):
        pairs[axis] = (pad[2 * k], pad[2 * k + 1])
    return pairs


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Pads ``x`` (see :func:`pad_pairs` for the layout of ``pad``). ``mode='constant'`` fills
    with ``value``; ``'reflect'`` mirrors without repeating the edge, ``'replicate'`` repeats
    the edge, ``'circular'`` wraps around; those three pad the spatial axes of a 3-D, 4-D or
    5-D input (``pad2d`` / ``pad3d`` ops)."""
    api = "pad"
    check_choice(mode, "mode", _PAD_MODES, api)
    rank = len(x.shape)
    formats = _PAD_FORMATS.get(rank)
    if formats and data_format not in formats and isinstance(data_format, str) and \
            data_format in sum(_PAD_FORMATS.values(), ()):
        # NOTE: the channel position decides; 'NCHW' (the default) on a 3-D input means NCL
        data_format = formats[0] if data_format[1] == "C" else formats[1]
    pairs = pad_pairs(pad, rank, data_format, api)
    value = float(check_number(value, "value", api))
    if mode == "constant":
        return apply("pad", [x], {"paddings": [v for pr in pairs for v in pr],
                                  "pad_value": value})
    if formats is None:
        raise ValueError(f"{api}(): mode={mode!r} pads the spatial axes of a 3-D, 4-D or 5-D "
                         f"input, got shape {list(x.shape)}")
    last = data_format[-1] == "C"
    spatial = list(range(1, rank - 1)) if last else list(range(2, rank))
    if any(pairs[a] != (0, 0) for a in range(rank) if a not in spatial):
        raise ValueError(f"{api}(): mode={mode!r} pads only the spatial axes; got pad {pad} "
                         f"for a {data_format} input")
    sp = [pairs[a] for a in spatial]
    if rank == 5:
        flat = [v for pr in reversed(sp) for v in pr]  # pad3d: [left, right, top, ..., back]
        return apply("pad3d", [x], {"paddings": flat, "mode": mode, "pad_value": value,
                                    "data_format": data_format})
    if rank == 4:
        return apply("pad2d", [x], {"paddings": [v for pr in sp for v in pr], "mode": mode,
                                    "pad_value": value, "data_format": data_format})
    h_axis = 1 if last else 2
    out = apply("pad2d", [apply("unsqueeze", [x], {"axes": [h_axis]})],
                {"paddings": [0, 0, sp[0][0], sp[0][1]], "mode": mode, "pad_value": value,
                 "data_format": "NHWC" if last else "NCHW"})
    return apply("squeeze", [out], {"axes": [h_axis]})


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior_dist`` (uniform prior by default)."""
    eps = check_probability(epsilon, "epsilon", "label_smooth")
    return apply("label_smooth", [label, prior_dist], {"epsilon": eps})


def cast_like(x, like):
    """``x`` cast to ``like``'s dtype (a no-op when they agree)."""
    if x.dtype == like.dtype:
        return x
    return apply("cast", [x], {"out_dtype": dtype_name(like.dtype)})

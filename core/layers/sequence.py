"""Functional API: variable-length batches and linear-chain CRFs (``paddle.fluid.layers``
names).

A batch of sequences is a padded tensor ``[batch, time, ...]`` plus int64 lengths
``[batch]`` (see :mod:`core.ops.sequence` and :mod:`core.static.lod`). Every function here
takes the lengths as ``length=`` (a tensor, Variable, ndarray or list); without it they are
found for a ``data(..., lod_level=1)`` variable, an eager LoD tensor passed as ``input``
(``core.create_lod_tensor``), and the outputs of these functions and of ``embedding``.
"""
import numpy as np

from ..checks import FLOATS, check_choice, check_int, check_number, check_variable, \
    is_variable_like
from ..dispatch import apply
from ..mode import in_dynamic_mode
from ..ops.sequence import POOL_TYPES
from ..static.lod import LoDTensor, lengths_of, pad_rows, set_lengths
from .creation import assign, create_parameter

__all__ = ["chunk_eval", "crf_decoding", "linear_chain_crf", "sequence_expand",
           "sequence_mask", "sequence_pad", "sequence_pool", "sequence_reverse",
           "sequence_softmax", "sequence_unpad"]

_INTS = ("int64", "int32")


def _as_padded(x, api, arg="input"):
    """``(tensor, lengths or None)``: an eager LoD tensor becomes its padded batch."""
    if isinstance(x, LoDTensor):
        if not in_dynamic_mode():
            raise TypeError(f"{api}(): a LoD tensor is fed to a data(..., lod_level=1) "
                            f"variable in static mode, not passed as '{arg}'")
        lens = x.recursive_sequence_lengths()
        if not lens:
            raise ValueError(f"{api}(): the LoD tensor passed as '{arg}' has no sequence "
                             f"lengths (core.create_lod_tensor sets them)")
        padded, lengths = pad_rows(x.numpy(), lens[0])
        return assign(padded), assign(lengths)
    check_variable(x, arg, api)
    return x, None


def _lengths(x, length, api, arg="input"):
    """The int lengths tensor for ``x``: ``length`` as given, else the remembered ones."""
    if length is None:
        length = lengths_of(x)
        if length is None:
            raise ValueError(f"{api}(): '{arg}' (shape {list(x.shape)}) carries no sequence "
                             f"lengths; pass length= (an int64 [batch] tensor), or declare the "
                             f"input with core.static.data(..., lod_level=1)")
    elif not is_variable_like(length):
        length = assign(np.asarray(length, dtype=np.int64))
    check_variable(length, "length", api, _INTS)
    if len(length.shape) != 1:
        raise ValueError(f"{api}(): argument 'length' must be 1-D [batch], got shape "
                         f"{list(length.shape)}")
    if len(x.shape) < 1 or (x.shape[0] >= 0 and length.shape[0] >= 0 and
                            x.shape[0] != length.shape[0]):
        raise ValueError(f"{api}(): argument 'length' must have one entry per sequence of '{arg}' "
                         f"(shape {list(x.shape)}), got shape {list(length.shape)}")
    if len(x.shape) >= 2 and x.shape[1] >= 0 and in_dynamic_mode():
        values = length.numpy()
        if values.size and (values.min() < 0 or values.max() > x.shape[1]):
            raise ValueError(f"{api}(): argument 'length' must lie in [0, {x.shape[1]}] (the time "
                             f"dim of '{arg}' {list(x.shape)}), got {values.tolist()}")
    return length


def _input(input, length, api, arg="input"):
    x, own = _as_padded(input, api, arg)
    return x, (own if own is not None and length is None else _lengths(x, length, api, arg))


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """``mask[..., t] = t < x[...]`` for ``t < maxlen`` (default: the largest length).
    ``maxlen`` may be a one-element integer tensor (``layers.shape(x)[1]``): its value when
    the op runs, in static mode too."""
    api = "sequence_mask"
    if not is_variable_like(x):
        x = assign(np.asarray(x, dtype=np.int64))
    check_variable(x, "x", api, _INTS)
    maxlen_t = None
    if is_variable_like(maxlen):
        check_variable(maxlen, "maxlen", api, _INTS)
        if maxlen.shape is not None and -1 not in maxlen.shape and \
                int(np.prod(maxlen.shape)) != 1:
            raise ValueError(f"{api}(): argument 'maxlen' must be an int or a one-element "
                             f"integer tensor, got shape {list(maxlen.shape)}")
        maxlen_t, maxlen = maxlen, -1
    else:
        maxlen = -1 if maxlen is None else check_int(maxlen, "maxlen", api, minimum=0,
                                                     integral_float=False)
    return apply("sequence_mask", [x, maxlen_t], {"maxlen": maxlen,
                                                  "out_dtype": np.dtype(dtype).name})


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0, length=None):
    """One row per sequence: ``pool_type`` is sum, average, sqrt, max, last or first (any
    case); an empty sequence gives ``pad_value``."""
    api = "sequence_pool"
    x, length = _input(input, length, api)
    check_variable(x, "input", api, FLOATS)
    kind = str(pool_type).upper()
    if kind not in POOL_TYPES:
        raise ValueError(f"{api}(): argument 'pool_type' must be one of "
                         f"{[p.lower() for p in POOL_TYPES]}, got {pool_type!r}")
    pad_value = float(check_number(pad_value, "pad_value", api))
    out, _ = apply("sequence_pool", [x, length], {"pooltype": kind, "pad_value": pad_value})
    return out


def sequence_softmax(input, use_cudnn=False, name=None, length=None):
    """Softmax over the valid steps of each sequence; ``input`` is ``[batch, time]`` or
    ``[batch, time, 1]`` (the result has the same shape), zero on padding."""
    api = "sequence_softmax"
    x, length = _input(input, length, api)
    check_variable(x, "input", api, FLOATS)
    shape = list(x.shape)
    if len(shape) == 3 and shape[2] == 1:
        flat = apply("squeeze", [x], {"axes": [2]})
        out = apply("unsqueeze", [apply("sequence_softmax", [flat, length])], {"axes": [2]})
    elif len(shape) == 2:
        out = apply("sequence_softmax", [x, length])
    else:
        raise ValueError(f"{api}(): argument 'input' must be [batch, time] or [batch, time, 1], "
                         f"got {shape}")
    return set_lengths(out, length)


def sequence_reverse(x, name=None, length=None):
    """The valid steps of each sequence in reverse order (padding stays)."""
    x, length = _input(x, length, "sequence_reverse", "x")
    return set_lengths(apply("sequence_reverse", [x, length]), length)


def sequence_expand(x, y, ref_level=-1, name=None, length=None):
    """Row ``x[b]`` repeated over the valid steps of sequence ``b`` of ``y`` (``[batch, time,
    ...]``; ``length`` is ``y``'s); zero past its length."""
    api = "sequence_expand"
    if ref_level not in (-1, 0):
        raise ValueError(f"{api}(): only one level of sequence lengths exists, so 'ref_level' "
                         f"must be -1 or 0, got {ref_level!r}")
    check_variable(x, "x", api)
    y, length = _input(y, length, api, "y")
    return set_lengths(apply("sequence_expand", [x, y, length]), length)


def sequence_pad(x, pad_value, maxlen=None, name=None, length=None):
    """``(out, length)``: ``x`` with the steps past each length set to ``pad_value`` (a
    scalar, or a tensor of one step's shape) and the time dim set to ``maxlen`` (default:
    ``x``'s)."""
    api = "sequence_pad"
    x, length = _input(x, length, api, "x")
    if not is_variable_like(pad_value):
        pad_value = assign(np.asarray(pad_value, dtype=np.dtype(x.dtype)))
    maxlen = -1 if maxlen is None else check_int(maxlen, "maxlen", api, minimum=0,
                                                 integral_float=False)
    out = apply("sequence_pad", [x, pad_value, length], {"padded_length": maxlen})
    return set_lengths(out, length), length


def sequence_unpad(x, length, name=None):
    """The valid steps of every sequence of ``x`` packed in order: ``[sum(length), ...]``
    (the seeds' LoD rows)."""
    x, length = _input(x, length, "sequence_unpad", "x")
    return apply("sequence_unpad", [x, length])


def _transition(param_attr, num_tags, dtype, api):
    """The CRF transition weight ``[num_tags + 2, num_tags]``: given directly, or created /
    found from a ParamAttr (or its name)."""
    if is_variable_like(param_attr):
        w = param_attr
    else:
        w = create_parameter([num_tags + 2, num_tags], np.dtype(dtype).name, attr=param_attr)
    want = [num_tags + 2, num_tags]
    if list(w.shape) != want:
        raise ValueError(f"{api}(): the transition weight must have shape {want} (num_tags + "
                         f"2 rows: start, end, then tag to tag), got {list(w.shape)}")
    return w


def _emission(input, length, api):
    x, length = _input(input, length, api)
    check_variable(x, "input", api, FLOATS)
    if len(x.shape) != 3 or x.shape[2] < 1:
        raise ValueError(f"{api}(): 'input' (emission scores) must be [batch, time, "
                         f"num_tags], got {list(x.shape)}")
    return x, length


def _labels(label, x, api):
    check_variable(label, "label", api, _INTS)
    shape = list(label.shape)
    if len(shape) == 3 and shape[2] == 1:
        label = apply("squeeze", [label], {"axes": [2]})
        shape = shape[:2]
    if len(shape) != 2 or any(a >= 0 and b >= 0 and a != b for a, b in zip(shape, x.shape[:2])):
        raise ValueError(f"{api}(): argument 'label' must be [batch, time] (or [batch, time, 1]) "
                         f"like 'input' {list(x.shape)}, got {list(label.shape)}")
    return label


def linear_chain_crf(input, label, param_attr=None, length=None):
    """The negative log-likelihood ``[batch, 1]`` of each label sequence under a linear-chain
    CRF with emission scores ``input`` ``[batch, time, num_tags]`` and the transition weight
    of ``param_attr`` (a ParamAttr, its name, or the weight itself)."""
    api = "linear_chain_crf"
    x, length = _emission(input, length, api)
    w = _transition(param_attr, x.shape[2], x.dtype, api)
    label = _labels(label, x, api)
    return apply("linear_chain_crf", [x, w, label, length])


def crf_decoding(input, param_attr, label=None, length=None):
    """The best tag path ``[batch, time]`` (int64, 0 past each length) by Viterbi decoding;
    with ``label``, 1 where the path equals the label and 0 elsewhere (as the seeds)."""
    api = "crf_decoding"
    x, length = _emission(input, length, api)
    w = _transition(param_attr, x.shape[2], x.dtype, api)
    path = apply("crf_decoding", [x, w, length])
    if label is None:
        return set_lengths(path, length)
    label = _labels(label, x, api)
    mask = apply("sequence_mask", [length, None], {"maxlen": -1 if x.shape[1] < 0 else x.shape[1],
                                             "out_dtype": "int64"})
    hit = apply("cast", [path == label], {"out_dtype": "int64"})
    return set_lengths(hit * mask, length)


def chunk_eval(input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None,
               seq_length=None):
    """Chunk precision, recall and F1 of tag sequences ``input`` against ``label`` (both
    ``[batch, time]`` int, ``seq_length`` their lengths) under ``chunk_scheme`` IOB, IOE,
    IOBES or plain: ``(precision, recall, f1, num_infer_chunks, num_label_chunks,
    num_correct_chunks)``."""
    api = "chunk_eval"
    x, seq_length = _input(input, seq_length, api)
    check_variable(x, "input", api, _INTS)
    label = _labels(label, x, api)
    if len(x.shape) == 3 and x.shape[2] == 1:
        x = apply("squeeze", [x], {"axes": [2]})
    schemes = ("IOB", "IOE", "IOBES", "plain")
    check_choice(chunk_scheme, "chunk_scheme", schemes, api)
    excluded = [check_int(t, "excluded_chunk_types", api, minimum=0, integral_float=False)
                for t in (excluded_chunk_types or [])]
    num_chunk_types = check_int(num_chunk_types, "num_chunk_types", api, minimum=1,
                                integral_float=False)
    return tuple(apply("chunk_eval", [x, label, seq_length],
                       {"chunk_scheme": chunk_scheme, "num_chunk_types": num_chunk_types,
                        "excluded_chunk_types": excluded}))

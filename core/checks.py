"""Argument checks for the functional API: the fluid functions (``core.layers``), the 2.0
functions (``core.nn.functional``, ``core.*``) and the built-in layers (``core.nn``).

Every error names the API, the argument, what was expected and what was given, as in
``conv2d(): argument 'stride' must be >= 1, got 0``; it is raised at the call, so the traceback
ends at the user's line. ``api`` is a function name (``'conv2d'``, shown as ``conv2d()``) or a
description used as is (``'conv2d()'``, ``'Linear (linear_0)'``). Bad types raise
``TypeError``, bad values of the right type ``ValueError`` (:func:`check_probability` says
``ValueError`` for anything outside [0, 1]). Each check returns the value in its canonical
form (a Python int, a normalised axis, ...).

This module imports only dtypes and the op registry (for :func:`check_act`): nothing above
the ops, so it joins no import cycle. ``core.layers.activation.apply_act`` applies an ``act=``
checked here.
"""
import numbers

import numpy as np

from .dtypes import convert_dtype
from .ops.activation import ACTIVATIONS
from .ops.registry import get_op

__all__ = ["FLOATS", "LABEL_INTS", "check_act", "check_axis", "check_bool", "check_choice",
           "check_dtype", "check_float_input", "check_index", "check_int", "check_label",
           "check_number", "check_pair", "check_positive", "check_probability", "check_type",
           "check_variable", "is_int", "is_variable_like", "same_padding"]

FLOATS = (np.float16, np.float32, np.float64)

_BOOLS = (bool, np.bool_)
_NUMBERS = (numbers.Real, np.number)


def _where(api):
    """``api`` as it opens an error message: ``'reshape'`` -> ``'reshape()'``; a text that
    already says more (``'conv2d()'``, ``'Linear (linear_0)'``) is kept."""
    return api if api.endswith(")") or " " in api else f"{api}()"


def is_variable_like(x):
    """True for eager Tensors and static Variables."""
    return hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "stop_gradient")


def is_int(value):
    """True for Python and numpy integers (bools are not ints here)."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, _BOOLS)


def check_variable(x, arg, api, dtypes=None):
    """``x`` must be a Tensor/Variable (of one of ``dtypes`` when given)."""
    if not is_variable_like(x):
        raise TypeError(f"{_where(api)}: argument '{arg}' must be a Tensor or Variable, got "
                        f"{type(x).__name__}")
    if dtypes is not None:
        check_dtype(x.dtype, arg, dtypes, api, shape=x.shape)
    return x


def check_dtype(dtype, arg, allowed, api, shape=None):
    """``dtype`` (of argument ``arg``, of ``shape`` when given) must be one of ``allowed``;
    returns it as a numpy dtype."""
    d = convert_dtype(dtype)
    allowed_d = [convert_dtype(a) for a in allowed]
    if d not in allowed_d:
        of = "" if shape is None else f" (shape {list(shape)})"
        raise TypeError(f"{_where(api)}: argument '{arg}' has dtype {d.name}{of}; expected one "
                        f"of {[a.name for a in allowed_d]}")
    return d


def check_float_input(input, api, arg="input"):
    """``input`` must be a floating-point Tensor/Variable: layers with floating-point
    parameters would silently promote an int input or, for normalisation, truncate it."""
    d = convert_dtype(input.dtype)
    if d.kind != "f":
        raise TypeError(f"{_where(api)}: argument '{arg}' must be a floating-point tensor, got "
                        f"dtype {d.name} (shape {list(input.shape)}); cast it first, e.g. "
                        "x.astype('float32')")
    return input


def _type_names(types):
    return " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))


def check_type(value, arg, types, api):
    """``value`` must be an instance of ``types`` (a type or a tuple of types)."""
    if not isinstance(value, types):
        raise TypeError(f"{_where(api)}: argument '{arg}' must be {_type_names(types)}, got "
                        f"{type(value).__name__} ({value!r})")
    return value


def check_bool(value, arg, api):
    """``value`` (a Python or numpy bool) as a Python bool."""
    if not isinstance(value, _BOOLS):
        raise TypeError(f"{_where(api)}: argument '{arg}' must be a bool, got "
                        f"{type(value).__name__} ({value!r})")
    return bool(value)


def check_number(value, arg, api, minimum=None):
    """``value`` (a Python or numpy real number, not a bool; ``>= minimum`` when given, which
    NaN is not) as a Python int or float."""
    if type(value) is not float and type(value) is not int:  # skip ABC checks when common
        if isinstance(value, _BOOLS) or not isinstance(value, _NUMBERS):
            raise TypeError(f"{_where(api)}: argument '{arg}' must be a number, got "
                            f"{type(value).__name__} ({value!r})")
        value = value.item() if isinstance(value, np.generic) else value
    if minimum is not None and not value >= minimum:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be a number >= {minimum}, got "
                         f"{value!r}")
    return value


def check_positive(value, arg, api):
    """``value`` (a real number > 0, such as a clip norm or a learning rate) as by
    :func:`check_number`."""
    v = check_number(value, arg, api)
    if not v > 0:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be a number > 0, got {value!r}")
    return v


def check_probability(value, arg, api):
    """``value`` (a real number in [0, 1], such as a dropout rate) as a float. A value that
    is no number is out of that range too: a ``ValueError`` like any other."""
    if isinstance(value, _BOOLS) or not isinstance(value, _NUMBERS) \
            or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be a number in [0, 1], got "
                         f"{value!r}")
    return float(value)


def _is_eager_int_scalar(value):
    """True for a 1-element int eager tensor (a static Variable has no value yet)."""
    return is_variable_like(value) and getattr(value, "block", None) is None \
        and np.dtype(value.dtype).kind in "iu" and int(np.prod(value.shape)) == 1


def _given(value):
    """``value`` as an error message shows what was given."""
    if is_variable_like(value):
        what = "tensor" if getattr(value, "block", None) is None else \
            "static Variable (its value exists only when the Executor runs)"
        name = np.dtype(value.dtype).name
        return f"{'an' if name.startswith('int') else 'a'} {name} {what} of shape " \
            f"{list(value.shape)}"
    return f"{type(value).__name__} ({value!r})"


def _as_int(value, integral_float, tensor=False):
    """``value`` as an int, or None when it is not one."""
    if is_int(value):
        return int(value)
    if integral_float and isinstance(value, _NUMBERS) and not isinstance(value, _BOOLS) \
            and float(value).is_integer():
        return int(value)
    if tensor and _is_eager_int_scalar(value):
        return int(value)
    return None


def check_int(value, arg, api, minimum=None, integral_float=True, tensor=False):
    """``value`` as a Python int (``>= minimum`` when given). Python and numpy integers are
    ints; so, unless ``integral_float`` is False, is a float with an integral value (a size
    computed as ``d_model / heads``), and, when ``tensor`` is True, a 1-element int eager
    tensor (its value). Bools are not."""
    v = _as_int(value, integral_float, tensor)
    if v is None:
        what = "an int or a 1-element int tensor (in eager mode)" if tensor else "an int"
        raise TypeError(f"{_where(api)}: argument '{arg}' must be {what}, got {_given(value)}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be >= {minimum}, got {v}")
    return v


def check_pair(value, arg, api, minimum=None, integral_float=True):
    """An int, or a list / tuple / 1-D array of two ints, as a list of two Python ints (each
    ``>= minimum`` when given); entries are read as by :func:`check_int`."""
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) != 2:
            raise ValueError(f"{_where(api)}: argument '{arg}' must be an int or a pair of ints, "
                             f"got {value!r}")
        vals = [_as_int(v, integral_float) for v in value]
    else:
        vals = [_as_int(value, integral_float)] * 2
    if None in vals:
        raise TypeError(f"{_where(api)}: argument '{arg}' must be an int or a pair of ints, got "
                        f"{type(value).__name__} ({value!r})")
    if minimum is not None and min(vals) < minimum:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be >= {minimum} (each entry), "
                         f"got {value!r}")
    return vals


def _choices_text(choices):
    choices = list(choices)
    if len(choices) == 2:
        return f"{choices[0]!r} or {choices[1]!r}"
    return f"one of {choices}"


def check_choice(value, arg, choices, api):
    """``value`` must be one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be {_choices_text(choices)}, got "
                         f"{value!r}")
    return value


def check_axis(axis, rank, arg, api):
    """An axis of a tensor of ``rank`` (negative counts from the end) as an index in
    ``[0, rank)`` (a rank-0 tensor has the one axis 0)."""
    axis = int(axis)
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{_where(api)}: argument '{arg}'={axis} is out of range for a tensor "
                         f"of rank {rank}")
    return axis % max(rank, 1)


def check_index(index, size, arg, api, what="entries", integral_float=True):
    """``index`` (an int as for :func:`check_int`) into ``size`` entries (``what`` they are,
    for the message), negative counting from the end, as an index in ``[0, size)``."""
    i = check_int(index, arg, api, integral_float=integral_float)
    if not -size <= i < size:
        raise ValueError(f"{_where(api)}: argument '{arg}' must be in [{-size}, {size}) for "
                         f"{size} {what}, got {i}")
    return i % size


LABEL_INTS = ("int64", "int32")


def check_label(label, input, soft_label, axis, api, in_arg="input"):
    """A loss's ``label`` against its ``input`` (argument ``in_arg``): soft labels are floats
    of the input's dtype and shape, hard labels int64 / int32 class indices of the input's
    shape with a 1 at ``axis`` (a normalised axis)."""
    check_variable(label, "label", api, FLOATS if soft_label else LABEL_INTS)
    if soft_label and label.dtype != input.dtype:
        raise TypeError(f"{_where(api)}: soft 'label' must have the dtype of '{in_arg}' "
                        f"({input.dtype}), got {label.dtype}")
    want = list(input.shape)
    if not soft_label:
        want[axis] = 1
    got = list(label.shape)
    if len(got) != len(want) or any(a != b and a >= 0 and b >= 0 for a, b in zip(got, want)):
        kind = "soft" if soft_label else "hard"
        raise ValueError(f"{_where(api)}: argument 'label' must have shape {want} ({kind} "
                         f"labels for '{in_arg}' of shape {list(input.shape)}), got {got}")
    return label


def check_act(act, api):
    """``act`` (an activation: the name of a registered op such as ``'relu'``) or None."""
    if act is None:
        return None
    if not isinstance(act, str):
        raise TypeError(f"{_where(api)}: argument 'act' must be None or an activation name "
                        f"such as 'relu', got {type(act).__name__} ({act!r})")
    try:
        get_op(act)
    except KeyError:
        raise ValueError(f"{_where(api)}: argument 'act' must be None or the name of an "
                         f"activation op, one of {list(ACTIVATIONS)} (or another registered "
                         f"unary op), got {act!r}") from None
    return act


def same_padding(sizes, kernel, stride, dilation, arg, api):
    """``(before, after)`` per spatial axis for ``padding='SAME'`` (output size ``ceil(size /
    stride)``, the extra cell after); the spatial ``sizes`` must be known."""
    pairs = []
    for size, k, s, d in zip(sizes, kernel, stride, dilation):
        if size is None or size < 0:
            raise ValueError(f"{api}(): {arg}='SAME' needs the input's spatial sizes, which "
                             f"are unknown here ({list(sizes)}); give explicit paddings")
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        pairs.append((total // 2, total - total // 2))
    return pairs

"""Small argument helpers shared by the built-in layers and ``core.nn.functional``."""
import numbers

from ..dispatch import apply
from ..dtypes import convert_dtype
from ..ops.registry import get_op

__all__ = ["apply_act", "check_float_input", "first_output", "integer", "pair"]


def _as_int(value):
    """``value`` as an int when it is an integer (Python or numpy, or an integral float)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    return int(value) if float(value).is_integer() else None


def integer(value, arg, who, minimum=None):
    """``value`` as an int (``>= minimum`` when given); a clear error otherwise."""
    v = _as_int(value)
    if v is None:
        raise TypeError(f"{who}: '{arg}' must be an int, got {type(value).__name__} ({value!r})")
    if minimum is not None and v < minimum:
        raise ValueError(f"{who}: '{arg}' must be >= {minimum}, got {v}")
    return v


def pair(value, arg, who, minimum=None):
    """An int or a 2-sequence of ints as a list of two ints (each ``>= minimum`` when given);
    a clear error otherwise."""
    vals = [value, value] if _as_int(value) is not None else value
    try:
        vals = [_as_int(v) for v in vals]
    except TypeError:
        vals = None
    if vals is None or len(vals) != 2 or None in vals:
        raise TypeError(f"{who}: '{arg}' must be an int or a pair of ints, got {value!r}")
    if minimum is not None and min(vals) < minimum:
        raise ValueError(f"{who}: every entry of '{arg}' must be >= {minimum}, got {value!r}")
    return vals


def check_float_input(input, who):
    """Layers with floating-point parameters need a floating-point input (an int input would
    be silently promoted or, for normalisation, truncated)."""
    kind = convert_dtype(input.dtype).kind
    if kind != "f":
        raise TypeError(f"{who}: the input must be a floating-point tensor, got dtype "
                        f"{convert_dtype(input.dtype).name} (shape {list(input.shape)}); "
                        "cast it first, e.g. x.astype('float32')")


def first_output(result):
    """The first output of an op result (ops with saved statistics return a tuple)."""
    return result[0] if isinstance(result, tuple) else result


def apply_act(x, act, who):
    """``x`` through the activation op named ``act`` (None: unchanged)."""
    if act is None:
        return x
    if not isinstance(act, str):
        raise TypeError(f"{who}: 'act' must be an activation name such as 'relu', got "
                        f"{type(act).__name__}")
    try:
        get_op(act)
    except KeyError:
        raise ValueError(f"{who}: unknown activation act={act!r}; use an activation op name "
                         "such as 'relu', 'sigmoid', 'tanh' or 'softmax'") from None
    return apply(act, [x])

"""Small argument helpers shared by the built-in layers and ``core.nn.functional``."""
from ..dispatch import apply
from ..ops.registry import get_op

__all__ = ["apply_act", "first_output", "pair"]


def pair(value, arg, who):
    """An int or a 2-sequence of ints as a list of two ints; a clear error otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value, value]
    try:
        vals = [int(v) for v in value]
    except TypeError:
        raise TypeError(f"{who}: '{arg}' must be an int or a pair of ints, got {value!r}") \
            from None
    if len(vals) != 2:
        raise ValueError(f"{who}: '{arg}' must be an int or a pair of ints, got {value!r}")
    return vals


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

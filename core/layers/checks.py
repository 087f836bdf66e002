"""Argument checks for the functional API: errors that name the function, the argument,
what was expected and what was given."""
import numpy as np

from ..dtypes import convert_dtype

__all__ = ["check_variable", "check_type", "check_dtype", "check_axis", "is_variable_like"]


def is_variable_like(x):
    """True for eager Tensors and static Variables."""
    return hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "stop_gradient")


def check_variable(x, arg, api, dtypes=None):
    """``x`` must be a Tensor/Variable (of one of ``dtypes`` when given)."""
    if not is_variable_like(x):
        raise TypeError(f"{api}(): argument '{arg}' must be a Tensor or Variable, got "
                        f"{type(x).__name__}")
    if dtypes is not None:
        check_dtype(x.dtype, arg, dtypes, api)
    return x


def check_type(value, arg, types, api):
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        raise TypeError(f"{api}(): argument '{arg}' must be {names}, got "
                        f"{type(value).__name__} ({value!r})")
    return value


def check_dtype(dtype, arg, allowed, api):
    d = convert_dtype(dtype)
    allowed_d = [convert_dtype(a) for a in allowed]
    if d not in allowed_d:
        raise TypeError(f"{api}(): argument '{arg}' has dtype {d.name}; expected one of "
                        f"{[a.name for a in allowed_d]}")
    return d


def check_axis(axis, rank, arg, api):
    axis = int(axis)
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ValueError(f"{api}(): argument '{arg}'={axis} is out of range for a tensor of "
                         f"rank {rank}")
    return axis % max(rank, 1)


FLOATS = (np.float16, np.float32, np.float64)

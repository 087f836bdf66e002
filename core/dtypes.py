"""Dtype names and promotion.

Dtypes are numpy dtypes throughout. Names may be given as strings (``'float32'``), numpy
types or dtypes. Promotion follows numpy 2 (NEP 50): Python scalars are weak, so
``float32_tensor * 2`` stays float32 and ``int64_tensor + 1.5`` is float64.
"""
import numpy as np

__all__ = ["convert_dtype", "dtype_name", "result_type", "is_floating", "is_integer", "is_bool",
           "get_default_dtype", "set_default_dtype"]

_ALIASES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64",
            "half": "float16", "bool_": "bool"}
_SUPPORTED = {np.dtype(n) for n in ("bool", "int8", "uint8", "int16", "int32", "int64",
                                    "float16", "float32", "float64")}


def convert_dtype(dtype):
    """``dtype`` (string, numpy type or dtype) as a numpy dtype; a clear error otherwise."""
    if isinstance(dtype, np.dtype) and dtype in _SUPPORTED:
        return dtype
    if isinstance(dtype, str):
        dtype = _ALIASES.get(dtype, dtype)
    try:
        d = np.dtype(dtype)
    except TypeError:
        d = None
    if d is None or d not in _SUPPORTED:
        names = ", ".join(sorted(x.name for x in _SUPPORTED))
        raise TypeError(f"unsupported dtype {dtype!r}; expected one of: {names}")
    return d


_default = {"float": np.dtype("float32")}


def get_default_dtype():
    """The float dtype creation functions default to (``paddle.get_default_dtype``): a name,
    ``'float32'`` unless :func:`set_default_dtype` changed it."""
    return _default["float"].name


def set_default_dtype(d):
    """``paddle.set_default_dtype``: make ``d`` (float16, float32 or float64) the dtype that
    ``zeros`` / ``ones`` / ``full`` / ``eye`` / ``rand`` / ``randn`` / ... and ``to_tensor``
    of Python floats give when no dtype is named."""
    try:
        dt = convert_dtype(d)
    except TypeError:
        dt = None
    if dt is None or dt.kind != "f":
        raise TypeError(f"set_default_dtype(): argument 'd' must be float16, float32 or "
                        f"float64, got {d!r}")
    _default["float"] = dt


_NAMES = {d: d.name for d in _SUPPORTED}  # NOTE: ``dtype.name`` is a slow Python property


def dtype_name(dtype):
    """The string name of a dtype (``'float32'``): the form stored in programs and files."""
    return _NAMES[convert_dtype(dtype)]


def result_type(*args):
    """numpy 2 promotion of dtypes and (weak) Python scalars."""
    return np.result_type(*args)


def is_floating(dtype):
    return np.dtype(dtype).kind == "f"


def is_integer(dtype):
    return np.dtype(dtype).kind in "iu"


def is_bool(dtype):
    return np.dtype(dtype).kind == "b"

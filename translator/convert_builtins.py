"""Runtime helpers for builtins and attributes with a static form: ``len``, ``int`` /
``float`` / ``bool`` casts, ``print``, ``assert`` and ``x.shape``.

A static Variable argument gives the static op (``shape`` / ``array_length``, ``cast``,
``Print``, ``Assert``); anything else runs Python's builtin.
"""
import builtins

from .convert_state import dtype_name, is_static, layers, where
from .tensor_list import is_array

__all__ = ["convert_assert", "convert_cast", "convert_len", "convert_print", "convert_shape"]


def convert_len(x):
    """``len(x)``: a static Variable's first dim (``shape`` op when unknown), a tensor
    array's ``array_length``, else Python's ``len``."""
    if is_static(x):
        if is_array(x):
            return layers().array_length(x)
        n = x.shape[0] if len(x.shape) else None
        if n is None:
            raise TypeError(f"len() of a 0-d Tensor{where()}")
        return n if n >= 0 else layers().shape(x)[0]
    return builtins.len(x)


_CASTS = {"int": (builtins.int, "int64"), "float": (builtins.float, "float32"),
          "bool": (builtins.bool, "bool")}


def convert_cast(x, kind):
    """``int(x)``/``float(x)``/``bool(x)``: a ``cast`` op for a static Variable, else Python."""
    py, dtype = _CASTS[kind]
    if is_static(x):
        return layers().cast(x, dtype)
    return py(x)


def convert_print(*args, **kwargs):
    """``print``: a ``Print`` op for each static Variable argument, else Python's print."""
    if any(is_static(a) for a in args):
        for a in args:
            if is_static(a):
                layers().Print(a)
            else:
                builtins.print(a, **{k: v for k, v in kwargs.items() if k != "end"})
        return None
    return builtins.print(*args, **kwargs)


def convert_assert(cond, message=None):
    """``assert cond, message()``: an ``Assert`` op for a static condition, else Python;
    ``message`` is a thunk, called only when the assertion fails."""
    if is_static(cond):
        lay = layers()
        lay.Assert(cond if dtype_name(cond) == "bool" else lay.cast(cond, "bool"))
        return
    if not cond:
        raise AssertionError() if message is None else AssertionError(message())


def convert_shape(x):
    """``x.shape``: known dims of a static Variable stay ints, unknown ones (-1) come from the
    ``shape`` op; anything else returns its own ``.shape``."""
    if not is_static(x):
        return x.shape
    dims = list(x.shape)
    if all(d is not None and d >= 0 for d in dims):
        return dims
    shape_var = layers().shape(x)
    return [shape_var[i] if (d is None or d < 0) else d for i, d in enumerate(dims)]

"""Functional API: tensor arrays (``create_array``, ``array_write``, ``array_read``,
``array_length``) and ``increment``, the in-place counter step that loops over arrays use.

In eager mode a tensor array is a Python list; in static mode it is a Variable of type
``tensor_array`` whose element shape is the merge of the shapes written (see
``core/ops/control_flow.py`` for the ops).
"""
import numpy as np

from ..checks import check_number
from ..dispatch import apply
from ..dtypes import convert_dtype
from ..mode import in_dynamic_mode
from ..static.variable import Variable, merge_shape
from ..tensor import to_tensor

__all__ = ["array_length", "array_read", "array_write", "create_array", "increment"]


def increment(x, value=1.0, in_place=True):
    """``x + value`` in x's dtype, written into ``x`` itself when ``in_place``."""
    outputs = {0: x} if in_place else None
    step = float(check_number(value, "value", "increment"))
    return apply("increment", [x], {"step": step}, outputs)


def create_array(dtype, initialized_list=None):
    """An empty tensor array (eager: a Python list) of element ``dtype``."""
    d = convert_dtype(dtype)
    if in_dynamic_mode():
        return list(initialized_list or [])
    arr = apply("create_array", [], {"dtype": d.name})
    arr.type, arr.shape = "tensor_array", None
    for k, v in enumerate(initialized_list or []):
        array_write(v, k, arr)
    return arr


def _is_array_var(a):
    return isinstance(a, Variable) and a.type == "tensor_array"


def array_write(x, i, array=None):
    """Write ``x`` at position ``i`` of ``array`` (a new array when None); returns the array."""
    if in_dynamic_mode() or not isinstance(x, Variable):
        if array is None:
            array = []
        k = int(i)
        if k >= len(array):
            array.extend([None] * (k + 1 - len(array)))
        array[k] = x
        return array
    if array is None:
        array = create_array(x.dtype)
    if not _is_array_var(array):
        raise TypeError(f"array_write(): argument 'array' must be a tensor array (create_array), "
                        f"got {type(array).__name__}")
    if array.dtype != x.dtype:
        raise TypeError(f"array_write(): x ('{x.name}') has dtype {x.dtype.name} but the array "
                        f"'{array.name}' holds {array.dtype.name}")
    apply("write_to_array", [x, i, array], None, {0: array})
    shape = x.shape if array.shape is None else merge_shape(array.shape, x.shape)
    if shape is False:
        raise ValueError(f"array_write(): x ('{x.name}') has shape {x.shape} but the elements of "
                         f"array '{array.name}' have shape {array.shape}")
    array.shape = shape
    return array


def array_read(array, i):
    """Element ``i`` of ``array``."""
    if in_dynamic_mode() or not _is_array_var(array):
        return array[int(i)]
    return apply("read_from_array", [array, i])


def array_length(array):
    """The length of ``array`` as an int64 tensor of shape [1]."""
    if in_dynamic_mode() or not _is_array_var(array):
        return to_tensor(np.array([len(array)], dtype=np.int64))
    return apply("array_length", [array])

"""Python indexing of tensors and Variables: ``x[index]`` becomes one ``getitem`` op.

:func:`encode_index` turns a Python index (an int, slice, None, Ellipsis, an int or bool
Tensor / Variable / ndarray / list, or a tuple of those) into the op's ``index`` attribute,
plain JSON data such as ``[{"kind": "int", "value": 2}, {"kind": "slice", "start": None,
"stop": 3, "step": None}, {"kind": "tensor", "input": 0}]``, plus the list of index tensors
that ``{"kind": "tensor", "input": k}`` refers to. The op follows numpy's indexing rules.

``x[index] = value`` (:func:`setitem`) is one ``setitem`` op whose result becomes the new
value of the object ``x``, so eager tensors and static Variables agree: the name (and every
other name for the same object) sees the new value, and values computed from ``x`` before
keep theirs. The gradient reaches both the old value of ``x`` and ``value``.
"""
import numbers

import numpy as np

from . import mode as _mode
from .autograd import is_grad_enabled, record_rebind
from .dispatch import apply
from .operator_mixin import register as _register_operators
from .ops.indexing import check_index, getitem_shape, setitem_value_shape
from .tensor import Tensor, to_tensor

__all__ = ["encode_index", "getitem", "setitem", "setitem_value"]


def getitem(x, index):
    """``x[index]`` for an eager Tensor or a static Variable (see the module docstring).

    Eager mode checks the index against ``x``'s shape first and raises ``IndexError`` naming
    the offending index and the shape; static mode checks what the static shape knows.
    """
    if getattr(x, "type", None) == "tensor_array":
        return _array_item(x, index)
    eager = _mode.in_dynamic_mode()
    items, tensors = encode_index(index, x if eager else None)
    if eager:
        arrays = [t._data for t in tensors]
        check_index(tuple(x.shape), items,
                    [(tuple(a.shape), a.dtype.kind == "b") for a in arrays], arrays)
    return apply("getitem", [x, tensors], {"index": items})


def setitem(x, index, value):
    """``x[index] = value`` for an eager Tensor or a non-persistable static Variable: the
    ``setitem`` op computes the new value and the object ``x`` takes it (see the module
    docstring). ``value`` is a tensor, Variable, ndarray, list or number broadcastable to
    the selection; it is cast to ``x``'s dtype."""
    if not _mode.in_dynamic_mode():
        if getattr(x, "type", None) == "tensor_array":
            _array_setitem(x, index, value)
            return
        x._rebind(setitem_value(x, index, value))
        return
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    items, tensors = encode_index(index, x, "setitem")
    arrays = [t._data for t in tensors]
    tinfo = [(tuple(a.shape), a.dtype.kind == "b") for a in arrays]
    check_index(tuple(x.shape), items, tinfo, arrays)
    setitem_value_shape(getitem_shape(tuple(x.shape), items, tinfo),
                        tuple(np.shape(value)) if not hasattr(value, "shape") else
                        tuple(value.shape))
    grad = is_grad_enabled()
    if grad and x._node is None and not x.stop_gradient:
        raise RuntimeError(
            f"setitem: tensor '{x.name}' is a leaf that needs a gradient (stop_gradient=False); "
            "assigning into it would lose its gradient. Assign into a copy (y = x.clone() or "
            "x * 1) or under core.no_grad()")
    shell = _shell(x)
    out = apply("setitem", [shell, shell if value is x else value, tensors], {"index": items})
    if shell._node is not None or out._node is not None:
        record_rebind(x, shell)
    x._data = out._data
    if out._node is not None:
        x._node, x._out_idx, x.stop_gradient = out._node, out._out_idx, False
    elif x._node is not None:  # under no_grad: the new value is cut off from the graph
        x._node, x._out_idx, x.stop_gradient = None, (0, None), True


def setitem_value(x, index, value):
    """The new value ``x[index] = value`` gives a non-persistable static Variable ``x``: a new
    Variable of the block being built, ``x`` itself left as it is (:func:`setitem` then makes
    ``x`` stand for it). Converted code uses it directly where ``x`` belongs to an enclosing
    block, which a ``cond`` / ``while`` body cannot rebind: the name takes the result."""
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    items, tensors = encode_index(index, None, "setitem")
    if getattr(x, "type", "lod_tensor") != "lod_tensor":
        raise TypeError(f"setitem: static Variable '{x.name}' is a {x.type}; write an "
                        "element of a tensor array with core.layers.array_write")
    if getattr(x, "persistable", False):
        raise TypeError(
            f"setitem: static Variable '{x.name}' is persistable (a parameter or global "
            "variable); x[index] = value gives x a new value inside the program, which a "
            "persistable variable cannot take: assign into a copy (y = "
            "core.layers.assign(x); y[index] = value)")
    return apply("setitem", [x, value, tensors], {"index": items})


def _shell(x):
    """A new plain Tensor with ``x``'s current value and place in the graph."""
    shell = object.__new__(Tensor)
    shell._data, shell._name, shell._grad = x._data, None, None
    shell._node, shell._out_idx, shell._detached = x._node, x._out_idx, x._detached
    shell.stop_gradient, shell.persistable = x.stop_gradient, False
    return shell


def _array_item(array, index):
    """``array[index]`` of a static tensor array: the element (``read_from_array``), as
    indexing the Python list an eager array is gives; a negative index counts from the end."""
    if isinstance(index, (slice, tuple)) or index is None or index is Ellipsis:
        raise TypeError(f"a tensor array ('{array.name}') takes one int or int Tensor index, "
                        f"got {index!r}; read its elements with array_read or stack it first")
    if isinstance(index, numbers.Integral):
        index = np.asarray(int(index), dtype=np.int64)
    return apply("read_from_array", [array, index])


def _array_setitem(array, index, value):
    """``array[index] = value`` on a static tensor array, as on the Python list it stands for:
    item ``index`` (negative: counted from the end) must exist -- an ``assert`` op says so at
    run time -- and takes ``value`` (``write_to_array`` into ``array`` itself)."""
    if isinstance(index, (slice, tuple)) or index is None or index is Ellipsis:
        raise TypeError(f"a tensor array ('{array.name}') takes one int or int Tensor index, "
                        f"got {index!r}")
    length = apply("array_length", [array])
    if isinstance(index, numbers.Integral):
        index = np.asarray([int(index)], dtype=np.int64)
        i = length + index if index[0] < 0 else apply("assign", [index])
    else:
        i = apply("cast", [index], {"out_dtype": "int64"}) if index.dtype != np.int64 else index
        i = i + length * apply("cast", [i < 0], {"out_dtype": "int64"})
    ok = apply("logical_and", [i >= 0, i < length])
    apply("assert", [ok, []], {"summarize": 20, "cond_name": ok.name, "data_names": [],
                               "message": f"list assignment index out of range (tensor array "
                                          f"'{array.name}', a list filled in a loop)"})
    if not hasattr(value, "block"):
        value = apply("assign", [np.asarray(value, dtype=array.dtype)])
    apply("write_to_array", [value, i, array], None, {0: array})


def encode_index(index, x=None, what="getitem"):
    """``(items, index_tensors)`` for a Python index. With an eager tensor ``x``, arrays and
    lists become eager tensors on ``x``'s place and 1-element tensor slice bounds become
    ints; without one (static mode) they stay ndarrays / Variables. ``what`` names the
    operation in errors."""
    if not isinstance(index, tuple):
        index = (index,)
    items, tensors = [], []
    for item in index:
        items.append(_encode_item(item, tensors, x, what))
    return items, tensors


def _encode_item(item, tensors, x, what="getitem"):
    if item is None:
        return {"kind": "none"}
    if item is Ellipsis:
        return {"kind": "ellipsis"}
    if isinstance(item, slice):
        return {"kind": "slice", "start": _bound(item.start, "start", what),
                "stop": _bound(item.stop, "stop", what), "step": _bound(item.step, "step", what)}
    if isinstance(item, (bool, np.bool_)):
        raise TypeError(f"{what}: a Python bool ({item}) is not a supported index; use a bool "
                        "tensor mask")
    if isinstance(item, numbers.Integral):
        return {"kind": "int", "value": int(item)}
    if _is_tensor_like(item) or isinstance(item, (list, tuple, np.ndarray)):
        tensors.append(_index_tensor(item, x, what))
        return {"kind": "tensor", "input": len(tensors) - 1}
    raise TypeError(f"{what}: unsupported index {item!r} of type {type(item).__name__}; "
                    "expected an int, slice, None, Ellipsis, or an int / bool Tensor, list or "
                    "ndarray")


def _is_tensor_like(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "stop_gradient")


def _is_static_variable(v):
    return _is_tensor_like(v) and getattr(v, "block", None) is not None


def _bound(v, which, what="getitem"):
    """A slice bound as an int (or None)."""
    if v is None or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))):
        return None if v is None else int(v)
    if _is_static_variable(v):
        raise TypeError(
            f"{what}: slice {which} is a static Variable ('{v.name}'); in static mode slice "
            "bounds must be Python ints (use Python values, e.g. from x.shape, or "
            "core.layers.slice / gather)")
    if _is_tensor_like(v):
        if np.dtype(v.dtype).kind not in "iu" or int(np.prod(v.shape)) != 1:
            raise TypeError(f"{what}: slice {which} must be an int or a 1-element int tensor, "
                            f"got a {np.dtype(v.dtype).name} tensor of shape {list(v.shape)}")
        return int(v)
    raise TypeError(f"{what}: slice {which} must be an int, None or a 1-element int tensor, "
                    f"got {v!r} of type {type(v).__name__}")


def _index_tensor(item, x, what="getitem"):
    """An int / bool index as a tensor (eager), or a Variable / ndarray (static)."""
    if _is_tensor_like(item):
        kind, shape = np.dtype(item.dtype).kind, list(item.shape)
        value = item
    else:
        arr = np.asarray(item)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)  # NOTE: ``x[[]]`` selects nothing, as in numpy
        kind, shape = arr.dtype.kind, list(arr.shape)
        value = arr
    if kind not in "iub":
        raise TypeError(f"{what}: an index tensor must hold ints or bools, got "
                        f"{np.dtype(value.dtype).name} of shape {shape}")
    if kind == "b" and not shape:
        raise TypeError(f"{what}: a 0-d bool index is not supported; use a mask with the "
                        "shape of the dims it selects")
    if x is not None and not _is_tensor_like(value):
        value = to_tensor(value, place=x.place)
    return value


_register_operators(getitem=getitem, setitem=setitem)  # x[index] and x[index] = value

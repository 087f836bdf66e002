"""Operators and common methods shared by eager Tensors and static Variables.

Each one applies a registered op through the dispatcher, so the same expression computes now
in eager mode and appends an operator in static mode. This module sits below both the static
IR and the eager side: the functions it calls are registered by the modules above it when
they are imported (:func:`register`): ``apply`` by :mod:`core.dispatch`, ``getitem`` and
``setitem`` by :mod:`core.indexing`, ``reshape`` by :mod:`core.layers.shape`.
"""
from .dtypes import dtype_name

__all__ = ["TensorOps", "register"]

_HOOKS = ("apply", "getitem", "setitem", "reshape")


def _unregistered(*args, **kwargs):
    raise RuntimeError("tensor operators need core's dispatcher, which registers itself when "
                       "core is imported: import core first")


# The registered functions, module globals so that each operator finds them at call time.
apply = getitem = setitem = reshape = _unregistered


def register(**hooks):
    """Set the functions the operators call: ``apply(op_type, inputs, attrs=None)``,
    ``getitem(x, index)``, ``setitem(x, index, value)`` and ``reshape(x, shape)``."""
    for name, fn in hooks.items():
        if name not in _HOOKS:
            raise ValueError(f"register(): unknown hook {name!r}; expected one of {_HOOKS}")
        globals()[name] = fn


def _axes(axis):
    if axis is None:
        return None
    return [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]


def _reduce(op_type, x, axis, keepdim):
    dim = _axes(axis)
    return apply(op_type, [x], {"dim": dim, "keep_dim": bool(keepdim), "reduce_all": dim is None})


class TensorOps:
    """Mixin: Python operators and methods in terms of registered ops."""

    __slots__ = ()
    __array_priority__ = 100  # ndarray (op) Tensor defers to Tensor's reflected operator

    # -- arithmetic ----------------------------------------------------------------------------
    def __add__(self, other):
        return apply("elementwise_add", [self, other])

    def __radd__(self, other):
        return apply("elementwise_add", [other, self])

    def __sub__(self, other):
        return apply("elementwise_sub", [self, other])

    def __rsub__(self, other):
        return apply("elementwise_sub", [other, self])

    def __mul__(self, other):
        return apply("elementwise_mul", [self, other])

    def __rmul__(self, other):
        return apply("elementwise_mul", [other, self])

    def __truediv__(self, other):
        return apply("elementwise_div", [self, other])

    def __rtruediv__(self, other):
        return apply("elementwise_div", [other, self])

    def __floordiv__(self, other):
        return apply("elementwise_floordiv", [self, other])

    def __rfloordiv__(self, other):
        return apply("elementwise_floordiv", [other, self])

    def __mod__(self, other):
        return apply("elementwise_mod", [self, other])

    def __rmod__(self, other):
        return apply("elementwise_mod", [other, self])

    def __pow__(self, other):
        return apply("elementwise_pow", [self, other])

    def __rpow__(self, other):
        return apply("elementwise_pow", [other, self])

    def __matmul__(self, other):
        return apply("matmul", [self, other])

    def __rmatmul__(self, other):
        return apply("matmul", [other, self])

    def __neg__(self):
        return apply("scale", [self], {"scale": -1.0})

    def __pos__(self):
        return self

    def __abs__(self):
        return apply("abs", [self])

    # -- comparison and logic (elementwise, bool results) ----------------------------------------
    def __lt__(self, other):
        return apply("less_than", [self, other])

    def __le__(self, other):
        return apply("less_equal", [self, other])

    def __gt__(self, other):
        return apply("greater_than", [self, other])

    def __ge__(self, other):
        return apply("greater_equal", [self, other])

    def __eq__(self, other):
        return apply("equal", [self, other])

    def __ne__(self, other):
        return apply("not_equal", [self, other])

    __hash__ = object.__hash__

    def __invert__(self):
        return apply("logical_not", [self])

    def __and__(self, other):
        return apply("logical_and", [self, other])

    def __or__(self, other):
        return apply("logical_or", [self, other])

    def __xor__(self, other):
        return apply("logical_xor", [self, other])

    # -- indexing --------------------------------------------------------------------------------
    def __getitem__(self, index):
        return getitem(self, index)

    def __setitem__(self, index, value):
        setitem(self, index, value)

    # -- methods ---------------------------------------------------------------------------------
    def sum(self, axis=None, keepdim=False):
        return _reduce("reduce_sum", self, axis, keepdim)

    def mean(self, axis=None, keepdim=False):
        return _reduce("reduce_mean", self, axis, keepdim)

    def max(self, axis=None, keepdim=False):
        return _reduce("reduce_max", self, axis, keepdim)

    def min(self, axis=None, keepdim=False):
        return _reduce("reduce_min", self, axis, keepdim)

    def prod(self, axis=None, keepdim=False):
        return _reduce("reduce_prod", self, axis, keepdim)

    def reshape(self, shape):
        return reshape(self, shape)

    def transpose(self, perm):
        return apply("transpose", [self], {"axis": [int(p) for p in perm]})

    def matmul(self, y, transpose_x=False, transpose_y=False):
        return apply("matmul", [self, y], {"transpose_X": transpose_x, "transpose_Y": transpose_y})

    def abs(self):
        return apply("abs", [self])

    def exp(self):
        return apply("exp", [self])

    def log(self):
        return apply("log", [self])

    def sqrt(self):
        return apply("sqrt", [self])

    def tanh(self):
        return apply("tanh", [self])

    def sigmoid(self):
        return apply("sigmoid", [self])

    def relu(self):
        return apply("relu", [self])

    def unsqueeze(self, axis):
        return apply("unsqueeze", [self], {"axes": _axes(axis)})

    def squeeze(self, axis=None):
        return apply("squeeze", [self], {"axes": _axes(axis) or []})

    def flatten(self, start_axis=0, stop_axis=-1):
        return apply("flatten_contiguous_range", [self],
                     {"start_axis": int(start_axis), "stop_axis": int(stop_axis)})

    def cast(self, dtype):
        return apply("cast", [self], {"out_dtype": dtype_name(dtype)})

    def astype(self, dtype):
        return self.cast(dtype)

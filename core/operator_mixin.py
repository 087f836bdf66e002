"""Operators and common methods shared by eager Tensors and static Variables.

Each one applies a registered op through the dispatcher, so the same expression computes now
in eager mode and appends an operator in static mode. This module sits below both the static
IR and the eager side: the functions it calls are registered by the modules above it when
they are imported (:func:`register`): ``apply`` by :mod:`core.dispatch`, ``getitem`` and
``setitem`` by :mod:`core.indexing`, ``reshape`` by :mod:`core.layers.shape`, and
``functions`` (the module of PaddlePaddle 2.x tensor functions) by :mod:`core.tensor_functions`.
The 2.x methods (``x.add(y)``, ``x.norm()``, ``x.reshape_(shape)``, ...) call the function of
the same name there, so a method and ``paddle.<name>(x, ...)`` are one implementation.
"""
from .dtypes import dtype_name

__all__ = ["TensorOps", "register"]

_HOOKS = ("apply", "getitem", "setitem", "reshape", "functions")


def _unregistered(*args, **kwargs):
    raise RuntimeError("tensor operators need core's dispatcher, which registers itself when "
                       "core is imported: import core first")


# The registered functions, module globals so that each operator finds them at call time.
apply = getitem = setitem = reshape = _unregistered


class _Unregistered:
    def __getattr__(self, name):
        _unregistered()


functions = _Unregistered()


def register(**hooks):
    """Set the functions the operators call: ``apply(op_type, inputs, attrs=None)``,
    ``getitem(x, index)``, ``setitem(x, index, value)``, ``reshape(x, shape)`` and
    ``functions`` (a namespace of the 2.x tensor functions)."""
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

    def reshape(self, shape, *more):
        # NOTE: x.reshape(2, 3) is x.reshape([2, 3]), as in PaddlePaddle
        return reshape(self, [shape, *more] if more else shape)

    def transpose(self, perm, *more):
        perm = [perm, *more] if more else perm
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

    # -- PaddlePaddle 2.x methods: the tensor function of the same name ---------------------------
    def add(self, y):
        return functions.add(self, y)

    def subtract(self, y):
        return functions.subtract(self, y)

    def multiply(self, y):
        return functions.multiply(self, y)

    def divide(self, y):
        return functions.divide(self, y)

    def pow(self, y):
        return functions.pow(self, y)

    def maximum(self, y):
        return functions.maximum(self, y)

    def minimum(self, y):
        return functions.minimum(self, y)

    def remainder(self, y):
        return functions.remainder(self, y)

    mod = remainder

    def floor_divide(self, y):
        return functions.floor_divide(self, y)

    def equal(self, y):
        return functions.equal(self, y)

    def not_equal(self, y):
        return functions.not_equal(self, y)

    def less_than(self, y):
        return functions.less_than(self, y)

    def less_equal(self, y):
        return functions.less_equal(self, y)

    def greater_than(self, y):
        return functions.greater_than(self, y)

    def greater_equal(self, y):
        return functions.greater_equal(self, y)

    def logical_and(self, y):
        return functions.logical_and(self, y)

    def logical_or(self, y):
        return functions.logical_or(self, y)

    def logical_xor(self, y):
        return functions.logical_xor(self, y)

    def logical_not(self):
        return functions.logical_not(self)

    def square(self):
        return functions.square(self)

    def sin(self):
        return functions.sin(self)

    def cos(self):
        return functions.cos(self)

    def floor(self):
        return functions.floor(self)

    def ceil(self):
        return functions.ceil(self)

    def round(self):
        return functions.round(self)

    def sign(self):
        return functions.sign(self)

    def rsqrt(self):
        return functions.rsqrt(self)

    def reciprocal(self):
        return functions.reciprocal(self)

    def scale(self, scale=1.0, bias=0.0, bias_after_scale=True):
        return functions.scale(self, scale, bias, bias_after_scale)

    def clip(self, min=None, max=None):
        return functions.clip(self, min, max)

    def t(self):
        return functions.t(self)

    def norm(self, p="fro", axis=None, keepdim=False):
        return functions.norm(self, p, axis, keepdim)

    def dist(self, y, p=2):
        return functions.dist(self, y, p)

    def dot(self, y):
        return functions.dot(self, y)

    def mm(self, mat2):
        return functions.mm(self, mat2)

    def argmax(self, axis=None, keepdim=False, dtype="int64"):
        return functions.argmax(self, axis, keepdim, dtype)

    def argmin(self, axis=None, keepdim=False, dtype="int64"):
        return functions.argmin(self, axis, keepdim, dtype)

    def argsort(self, axis=-1, descending=False):
        return functions.argsort(self, axis, descending)

    def sort(self, axis=-1, descending=False):
        return functions.sort(self, axis, descending)

    def topk(self, k, axis=None, largest=True, sorted=True):
        return functions.topk(self, k, axis, largest, sorted)

    def cumsum(self, axis=None, dtype=None):
        return functions.cumsum(self, axis, dtype)

    def std(self, axis=None, unbiased=True, keepdim=False):
        return functions.std(self, axis, unbiased, keepdim)

    def var(self, axis=None, unbiased=True, keepdim=False):
        return functions.var(self, axis, unbiased, keepdim)

    def logsumexp(self, axis=None, keepdim=False):
        return functions.logsumexp(self, axis, keepdim)

    def any(self, axis=None, keepdim=False):
        return functions.any(self, axis, keepdim)

    def all(self, axis=None, keepdim=False):
        return functions.all(self, axis, keepdim)

    def gather(self, index, axis=None):
        return functions.gather(self, index, axis)

    def index_select(self, index, axis=0):
        return functions.index_select(self, index, axis)

    def scatter(self, index, updates, overwrite=True):
        return functions.scatter(self, index, updates, overwrite)

    def masked_select(self, mask):
        return functions.masked_select(self, mask)

    def split(self, num_or_sections, axis=0):
        return functions.split(self, num_or_sections, axis)

    def chunk(self, chunks, axis=0):
        return functions.chunk(self, chunks, axis)

    def tile(self, repeat_times):
        return functions.tile(self, repeat_times)

    def expand(self, shape):
        return functions.expand(self, shape)

    def expand_as(self, y):
        return functions.expand_as(self, y)

    broadcast_to = expand

    def flip(self, axis):
        return functions.flip(self, axis)

    def isfinite(self):
        return functions.isfinite(self)

    def isnan(self):
        return functions.isnan(self)

    def isinf(self):
        return functions.isinf(self)

    def log1p(self):
        return functions.log1p(self)

    def expm1(self):
        return functions.expm1(self)

    def log2(self):
        return functions.log2(self)

    def log10(self):
        return functions.log10(self)

    def erf(self):
        return functions.erf(self)

    def sinh(self):
        return functions.sinh(self)

    def cosh(self):
        return functions.cosh(self)

    def asin(self):
        return functions.asin(self)

    def acos(self):
        return functions.acos(self)

    def atan(self):
        return functions.atan(self)

    def amax(self, axis=None, keepdim=False):
        return functions.amax(self, axis, keepdim)

    def amin(self, axis=None, keepdim=False):
        return functions.amin(self, axis, keepdim)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return functions.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1):
        return functions.trace(self, offset, axis1, axis2)

    def kron(self, y):
        return functions.kron(self, y)

    def cross(self, y, axis=None):
        return functions.cross(self, y, axis)

    def inverse(self):
        return functions.inverse(self)

    def clone(self):
        return functions.clone(self)

    def tolist(self):
        return functions.tolist(self)

    def rank(self):
        return functions.rank(self)

    def reverse(self, axis):
        return functions.reverse(self, axis)

    def roll(self, shifts, axis=None):
        return functions.roll(self, shifts, axis)

    def unbind(self, axis=0):
        return functions.unbind(self, axis)

    def unique(self, return_index=False, return_inverse=False, return_counts=False, axis=None,
               dtype="int64"):
        return functions.unique(self, return_index, return_inverse, return_counts, axis, dtype)

    def gather_nd(self, index):
        return functions.gather_nd(self, index)

    def scatter_nd_add(self, index, updates):
        return functions.scatter_nd_add(self, index, updates)

    def index_sample(self, index):
        return functions.index_sample(self, index)

    def strided_slice(self, axes, starts, ends, strides):
        return functions.strided_slice(self, axes, starts, ends, strides)

    def allclose(self, y, rtol=1e-05, atol=1e-08, equal_nan=False):
        return functions.allclose(self, y, rtol, atol, equal_nan)

    def equal_all(self, y):
        return functions.equal_all(self, y)

    def dim(self):
        return len(self.shape)

    def clear_grad(self, set_to_zero=True):
        """2.x spelling of ``clear_gradient`` (eager tensors)."""
        return self.clear_gradient(set_to_zero)

    ndimension = dim

    # -- in place: the object takes the result (as x[i] = v does) -------------------------------
    def reshape_(self, shape, *more):
        return functions.reshape_(self, [shape, *more] if more else shape)

    def squeeze_(self, axis=None):
        return functions.squeeze_(self, axis)

    def unsqueeze_(self, axis):
        return functions.unsqueeze_(self, axis)

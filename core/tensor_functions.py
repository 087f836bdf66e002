"""The PaddlePaddle 2.x tensor functions (``paddle.matmul``, ``paddle.mean``, ...), at ``core.*``.

Each takes 2.0's argument names (``axis``, ``keepdim``, ``x``) and calls the fluid function of
:mod:`core.layers` that runs the same op, so it works eagerly, in static programs and inside
``declarative`` code. Arguments the fluid op cannot express raise a ``ValueError`` naming them.

The functions that are compositions of several ops live beside this module, by theme:
:mod:`core.tensor_search` (gather along an axis, sort, topk, masked_select, ...),
:mod:`core.tensor_math` (cumsum, norm, dist, ...), :mod:`core.tensor_linalg` (diagonal, trace,
kron, inverse, einsum, amax, ...), :mod:`core.tensor_manipulation` (roll, unbind, unique,
scatter_nd_add, index_sample, assign, clone, ...) and :mod:`core.tensor_random` (rand, randn,
randint, ...); this module collects them. In-place variants (``reshape_``) make the tensor or
Variable take the result, as ``x[i] = v`` does. Each function also registers itself as the
``Tensor`` / ``Variable`` method of the same name (:mod:`core.operator_mixin`).
"""
import builtins
import sys

import numpy as np

from . import layers as _L
from . import mode as _mode
from .autograd import record_rebind
from .dtypes import get_default_dtype, set_default_dtype
from .operator_mixin import register as _register_methods
from .tensor import Tensor
from .tensor_autograd import grad
from .tensor_linalg import (amax, amin, cross, diag, diagonal, einsum, inverse, kron,
                            trace)
from .tensor_manipulation import (assign, clone, crop_tensor, gather_nd, index_sample, is_tensor,
                                  meshgrid, multiplex, rank, reverse, roll, scatter_nd,
                                  scatter_nd_add, shard_index, strided_slice, tolist, unbind,
                                  unique)
from .tensor_math import (all, allclose, any, bmm, cumsum, dist, dot, equal_all, eye, logsumexp,
                          mm, norm, std, t, tril, triu, var)
from .tensor_random import normal, rand, randint, randn, randperm, standard_normal, uniform
from .tensor_search import (argsort, flip, gather, index_select, masked_select, nonzero, scatter,
                            sort, topk)

__all__ = [
    "abs", "add", "arange", "argmax", "argmin", "cast", "ceil", "concat", "cos", "divide",
    "equal", "exp", "flatten", "floor", "floor_divide", "full", "gather", "greater_equal",
    "greater_than", "isfinite", "less_equal", "less_than", "linspace", "log", "logical_and",
    "logical_not", "logical_or", "logical_xor", "matmul", "max", "maximum", "mean", "min",
    "minimum", "multiply", "not_equal", "ones", "ones_like", "pow", "prod", "remainder",
    "reshape", "round", "rsqrt", "scale", "shape", "sign", "sin", "slice", "split", "sqrt",
    "square", "squeeze", "stack", "subtract", "sum", "tanh", "tile", "topk", "transpose",
    "unsqueeze", "unstack", "where", "zeros", "zeros_like",
    # 2.x names beyond the fluid ones (tensor_search, tensor_math, tensor_random)
    "add_n", "allclose", "argsort", "bmm", "broadcast_to", "chunk", "cumsum", "dist",
    "dot", "expand", "expand_as", "full_like", "increment", "index_select", "masked_select",
    "mm", "mod", "nonzero", "norm", "numel", "rand", "randint", "randn", "randperm",
    "reciprocal", "reshape_", "scatter", "sort", "squeeze_", "standard_normal", "std", "t",
    "uniform", "unsqueeze_", "var", "normal", "sigmoid", "logsumexp", "any", "all", "eye",
    "tril", "triu", "equal_all", "flip",
    # elementary functions (core.layers.elementary)
    "acos", "asin", "atan", "cosh", "erf", "expm1", "isinf", "isnan", "log10", "log1p", "log2",
    "sinh",
    # core.tensor_linalg and core.tensor_manipulation
    "amax", "amin", "cross", "diag", "diagonal", "einsum", "inverse", "kron", "trace",
    "assign", "clone", "crop_tensor", "gather_nd", "index_sample", "is_tensor", "meshgrid",
    "multiplex", "rank", "reverse", "roll", "scatter_nd", "scatter_nd_add", "shard_index",
    "strided_slice", "tolist", "unbind", "unique", "grad",
    "get_default_dtype", "set_default_dtype",
]
# NOTE: ``clip`` (the 2.x function) is not in __all__: ``core.clip`` stays the gradient-clipping
# module fluid code reaches (``fluid.clip.GradientClipByGlobalNorm``); ``dy2static.clip`` is it.

# same arguments in 2.0 and fluid
abs, ceil, cos, exp, floor, log, round = _L.abs, _L.ceil, _L.cos, _L.exp, _L.floor, _L.log, \
    _L.round
rsqrt, sign, sin, sqrt, square, tanh = _L.rsqrt, _L.sign, _L.sin, _L.sqrt, _L.square, _L.tanh
cast, reshape, shape, slice = _L.cast, _L.reshape, _L.shape, _L.slice
# NOTE: concat takes the 2.x keyword x= beside fluid's input=, stack has the same arguments
concat, stack = _L.concat, _L.stack
tile, transpose, unstack, isfinite = _L.tile, _L.transpose, _L.unstack, _L.isfinite
sigmoid, increment = _L.sigmoid, _L.increment
acos, asin, atan, cosh, erf, sinh = _L.acos, _L.asin, _L.atan, _L.cosh, _L.erf, _L.sinh
expm1, isinf, isnan, log10, log1p, log2 = _L.expm1, _L.isinf, _L.isnan, _L.log10, _L.log1p, \
    _L.log2
equal, not_equal, less_than, less_equal = _L.equal, _L.not_equal, _L.less_than, _L.less_equal
greater_than, greater_equal = _L.greater_than, _L.greater_equal
logical_and, logical_or, logical_not, logical_xor = _L.logical_and, _L.logical_or, \
    _L.logical_not, _L.logical_xor
zeros_like, ones_like, scale, linspace, arange = _L.zeros_like, _L.ones_like, _L.scale, \
    _L.linspace, _L.arange


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """``paddle.matmul``: matrix product, optionally transposing the last two axes."""
    return _L.matmul(x, y, transpose_x, transpose_y, name=name)


def _binary(fluid_fn, doc):
    def fn(x, y, name=None):
        return fluid_fn(x, y, name=name)
    fn.__doc__ = doc
    return fn


add = _binary(_L.elementwise_add, "``paddle.add``: ``x + y`` with broadcasting.")
subtract = _binary(_L.elementwise_sub, "``paddle.subtract``: ``x - y`` with broadcasting.")
multiply = _binary(_L.elementwise_mul, "``paddle.multiply``: ``x * y`` with broadcasting.")
divide = _binary(_L.elementwise_div, "``paddle.divide``: ``x / y`` with broadcasting.")
pow = _binary(_L.elementwise_pow, "``paddle.pow``: ``x ** y`` with broadcasting.")
maximum = _binary(_L.elementwise_max, "``paddle.maximum``: elementwise maximum.")
minimum = _binary(_L.elementwise_min, "``paddle.minimum``: elementwise minimum.")
remainder = _binary(_L.elementwise_mod, "``paddle.remainder``: ``x % y`` (Python's sign).")
floor_divide = _binary(_L.elementwise_floordiv, "``paddle.floor_divide``: ``x // y``.")
for _fn, _name in ((add, "add"), (subtract, "subtract"), (multiply, "multiply"),
                   (divide, "divide"), (pow, "pow"), (maximum, "maximum"), (minimum, "minimum"),
                   (remainder, "remainder"), (floor_divide, "floor_divide")):
    _fn.__name__ = _fn.__qualname__ = _name


def _reduction(fluid_fn, name):
    def fn(x, axis=None, keepdim=False, name=None):
        return fluid_fn(x, dim=axis, keep_dim=keepdim, name=name)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``paddle.{name}(x, axis=None, keepdim=False)``: reduce over ``axis`` " \
        "(all axes when None)."
    return fn


mean = _reduction(_L.reduce_mean, "mean")
max = _reduction(_L.reduce_max, "max")
min = _reduction(_L.reduce_min, "min")
prod = _reduction(_L.reduce_prod, "prod")


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """``paddle.sum``: sum over ``axis`` (all when None), cast to ``dtype`` first if given."""
    if dtype is not None:
        x = _L.cast(x, dtype)
    return _L.reduce_sum(x, dim=axis, keep_dim=keepdim, name=name)


def _arg(fluid_fn, x, axis, keepdim, dtype):
    if axis is None:
        out = fluid_fn(_L.reshape(x, [-1]), axis=0)
        if keepdim:
            out = _L.reshape(out, [1] * len(x.shape))
    else:
        out = fluid_fn(x, axis=axis)
        if keepdim:
            out = _L.unsqueeze(out, [axis])
    return out if np.dtype(dtype) == np.int64 else _L.cast(out, dtype)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """``paddle.argmax``: index of the largest value (of the flattened tensor when ``axis`` is
    None)."""
    return _arg(_L.argmax, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """``paddle.argmin``: index of the smallest value (see :func:`argmax`)."""
    return _arg(_L.argmin, x, axis, keepdim, dtype)


def split(x, num_or_sections, axis=0, name=None):
    """``paddle.split``: ``num_or_sections`` equal parts or parts of the given sizes."""
    return _L.split(x, num_or_sections, dim=axis, name=name)


def _axes(axis):
    return [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]


def squeeze(x, axis=None, name=None):
    """``paddle.squeeze``: drop size-1 axes (``axis``, or all of them when None)."""
    if axis is None:
        axis = [k for k, d in enumerate(x.shape) if d == 1]
    return _L.squeeze(x, _axes(axis), name=name)


def unsqueeze(x, axis, name=None):
    """``paddle.unsqueeze``: insert size-1 axes at ``axis`` (an int or a list)."""
    return _L.unsqueeze(x, _axes(axis), name=name)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """``paddle.flatten``: merge the axes ``start_axis`` .. ``stop_axis`` into one."""
    dims = list(x.shape)
    n = len(dims)
    start, stop = start_axis % n if n else 0, stop_axis % n if n else 0
    if n and start > stop:
        raise ValueError(f"flatten: start_axis {start_axis} is after stop_axis {stop_axis} "
                         f"for a tensor of rank {n}")
    tail = dims[stop + 1:]
    if builtins.any(d is None or d < 0 for d in tail):
        raise ValueError(f"flatten: the axes after stop_axis must be known, got shape {dims}")
    # NOTE: 0 copies the input's size at the same index, so unknown leading axes stay unknown
    return _L.reshape(x, [0] * start + [-1] + tail, name=name)


def _float_or_int(value, dtype):
    if dtype is not None:
        return dtype
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    return "int64" if isinstance(value, (int, np.integer)) else get_default_dtype()


def full(shape, fill_value, dtype=None, name=None):
    """``paddle.full``: a tensor of ``shape`` filled with ``fill_value`` (a number, or a
    one-element tensor whose value is read when the op runs)."""
    if isinstance(fill_value, (np.ndarray, np.generic)):
        fill_value = fill_value.item()
    if hasattr(fill_value, "shape"):
        dtype = dtype or fill_value.dtype
        value = _L.cast(_L.reshape(fill_value, []), dtype)
        return _L.elementwise_add(_L.fill_constant(shape, dtype, 0), value, name=name)
    return _L.fill_constant(shape, _float_or_int(fill_value, dtype), fill_value, name=name)


def zeros(shape, dtype=None, name=None):
    """``paddle.zeros`` (of the default dtype, float32, unless named)."""
    return _L.zeros(shape, dtype or get_default_dtype(), name=name)


def ones(shape, dtype=None, name=None):
    """``paddle.ones`` (of the default dtype, float32, unless named)."""
    return _L.ones(shape, dtype or get_default_dtype(), name=name)


def _bound(x, value, arg):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        if hasattr(value, "shape"):
            return float(value)
        raise TypeError(f"clip(): argument {arg!r} must be a number or None, got "
                        f"{type(value).__name__}")
    return float(value)


def clip(x, min=None, max=None, name=None):
    """``paddle.clip``: values of ``x`` limited to ``[min, max]`` (either bound may be None)."""
    lo, hi = _bound(x, min, "min"), _bound(x, max, "max")
    if lo is None and hi is None:
        return _L.assign(x)
    if np.dtype(x.dtype).kind in "iu":
        info = np.iinfo(x.dtype)
        lo, hi = info.min if lo is None else lo, info.max if hi is None else hi
    else:
        big = float(np.finfo(np.dtype(x.dtype)).max)
        lo, hi = -big if lo is None else lo, big if hi is None else hi
    if lo > hi:
        raise ValueError(f"clip(): 'min' ({lo}) is greater than 'max' ({hi})")
    return _L.clip(x, lo, hi, name=name)


def where(condition, x=None, y=None, name=None):
    """``paddle.where``: ``x`` where ``condition`` holds, else ``y`` (broadcast); with only
    ``condition``, the indices of its true entries (``nonzero(condition, as_tuple=True)``)."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where(): give both 'x' and 'y', or neither")
    return _L.where(condition, x, y, name=name)


mod = remainder


def reciprocal(x, name=None):
    """``paddle.reciprocal``: ``1 / x``."""
    return _L.elementwise_div(_L.ones_like(x), x, name=name)


def full_like(x, fill_value, dtype=None, name=None):
    """``paddle.full_like``: a tensor shaped like ``x`` filled with ``fill_value``."""
    out = _L.zeros_like(x) if dtype is None else _L.cast(_L.zeros_like(x), dtype)
    return _L.scale(out, 1.0, float(fill_value))


def numel(x, name=None):
    """``paddle.numel``: the number of elements of ``x``, an int64 tensor of shape [1]."""
    return _L.reduce_prod(_L.cast(_L.shape(x), "int64"), dim=[0], keep_dim=True)


def expand(x, shape, name=None):
    """``paddle.expand``: broadcast ``x`` to ``shape`` (-1 keeps a dimension)."""
    dims = list(x.shape)
    shape = [int(d) for d in shape]
    if len(shape) < len(dims):
        raise ValueError(f"expand(): 'shape' {shape} has fewer dimensions than x {dims}")
    dims = [1] * (len(shape) - len(dims)) + dims
    times = []
    for i, (d, s) in enumerate(zip(dims, shape)):
        if s == -1 or s == d:
            times.append(1)
        elif d == 1:
            times.append(s)
        else:
            raise ValueError(f"expand(): dimension {i} of x is {d}; it can only become "
                             f"{shape[i]} when it is 1")
    return _L.expand(_L.reshape(x, dims), times, name=name)


broadcast_to = expand


def expand_as(x, y, name=None):
    """``paddle.expand_as``: broadcast ``x`` to the shape of ``y``."""
    return expand(x, list(y.shape), name=name)


def chunk(x, chunks, axis=0, name=None):
    """``paddle.chunk``: ``chunks`` equal parts along ``axis``."""
    return _L.split(x, int(chunks), dim=axis, name=name)


def add_n(inputs, name=None):
    """``paddle.add_n``: the sum of a list of same-shaped tensors."""
    if not isinstance(inputs, (list, tuple)):
        return _L.assign(inputs)
    return _L.sums(list(inputs))


def _take(x, out):
    """In-place: ``x`` takes the value of ``out`` (the name and every other name for the same
    object see it; values computed from ``x`` before keep theirs), as ``x[i] = v`` does."""
    if not _mode.in_dynamic_mode():
        x._rebind(out)
        return x
    if x._node is None and not x.stop_gradient:
        raise RuntimeError(f"in-place change of tensor '{x.name}', a leaf that needs a gradient "
                           "(stop_gradient=False), would lose its gradient; use the "
                           "out-of-place function")
    shell = Tensor(x._data, stop_gradient=x.stop_gradient)
    shell._node, shell._out_idx, shell._detached = x._node, x._out_idx, x._detached
    if x._node is not None:
        record_rebind(x, shell)
    x._data, x._node, x._out_idx = out._data, out._node, out._out_idx
    x.stop_gradient = out.stop_gradient
    return x


def reshape_(x, shape, name=None):
    """``paddle.reshape_``: :func:`reshape` in place (returns ``x``)."""
    return _take(x, _L.reshape(x, shape))


def squeeze_(x, axis=None, name=None):
    """``paddle.squeeze_``: :func:`squeeze` in place (returns ``x``)."""
    return _take(x, squeeze(x, axis))


def unsqueeze_(x, axis, name=None):
    """``paddle.unsqueeze_``: :func:`unsqueeze` in place (returns ``x``)."""
    return _take(x, unsqueeze(x, axis))


_register_methods(functions=sys.modules[__name__])  # x.add(y), x.norm(), ... call these

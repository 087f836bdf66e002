"""The PaddlePaddle 2.0 tensor functions (``paddle.matmul``, ``paddle.mean``, ...), at ``core.*``.

Each takes 2.0's argument names (``axis``, ``keepdim``, ``x``) and calls the fluid function of
:mod:`core.layers` that runs the same op, so it works eagerly, in static programs and inside
``declarative`` code. Arguments the fluid op cannot express raise a ``ValueError`` naming them.
"""
import numpy as np

from . import layers as _L

__all__ = [
    "abs", "add", "arange", "argmax", "argmin", "cast", "ceil", "concat", "cos", "divide",
    "equal", "exp", "flatten", "floor", "floor_divide", "full", "gather", "greater_equal",
    "greater_than", "isfinite", "less_equal", "less_than", "linspace", "log", "logical_and",
    "logical_not", "logical_or", "logical_xor", "matmul", "max", "maximum", "mean", "min",
    "minimum", "multiply", "not_equal", "ones", "ones_like", "pow", "prod", "remainder",
    "reshape", "round", "rsqrt", "scale", "shape", "sign", "sin", "slice", "split", "sqrt",
    "square", "squeeze", "stack", "subtract", "sum", "tanh", "tile", "topk", "transpose",
    "unsqueeze", "unstack", "where", "zeros", "zeros_like",
]

# same arguments in 2.0 and fluid
abs, ceil, cos, exp, floor, log, round = _L.abs, _L.ceil, _L.cos, _L.exp, _L.floor, _L.log, \
    _L.round
rsqrt, sign, sin, sqrt, square, tanh = _L.rsqrt, _L.sign, _L.sin, _L.sqrt, _L.square, _L.tanh
cast, concat, reshape, shape, slice, stack = _L.cast, _L.concat, _L.reshape, _L.shape, \
    _L.slice, _L.stack
tile, transpose, unstack, where, isfinite = _L.tile, _L.transpose, _L.unstack, _L.where, \
    _L.isfinite
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
    if any(d is None or d < 0 for d in tail):
        raise ValueError(f"flatten: the axes after stop_axis must be known, got shape {dims}")
    # NOTE: 0 copies the input's size at the same index, so unknown leading axes stay unknown
    return _L.reshape(x, [0] * start + [-1] + tail, name=name)


def gather(x, index, axis=None, name=None):
    """``paddle.gather``: rows of ``x`` at ``index`` (axis 0)."""
    if axis not in (None, 0):
        raise ValueError(f"gather: axis={axis} is not supported; only axis 0 (transpose the "
                         "axis to the front first)")
    return _L.gather(x, index)


def topk(x, k, axis=-1, largest=True, sorted=True, name=None):
    """``paddle.topk``: ``(values, indices)`` of the ``k`` largest entries of the last axis."""
    if axis not in (-1, len(x.shape) - 1) or not largest:
        raise ValueError(f"topk: only the largest values along the last axis are supported, "
                         f"got axis={axis}, largest={largest}")
    return _L.topk(x, k, name=name)


def _float_or_int(value, dtype):
    if dtype is not None:
        return dtype
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    return "int64" if isinstance(value, (int, np.integer)) else "float32"


def full(shape, fill_value, dtype=None, name=None):
    """``paddle.full``: a tensor of ``shape`` filled with ``fill_value``."""
    return _L.fill_constant(shape, _float_or_int(fill_value, dtype), fill_value, name=name)


def zeros(shape, dtype=None, name=None):
    """``paddle.zeros`` (float32 by default)."""
    return _L.zeros(shape, dtype or "float32", name=name)


def ones(shape, dtype=None, name=None):
    """``paddle.ones`` (float32 by default)."""
    return _L.ones(shape, dtype or "float32", name=name)

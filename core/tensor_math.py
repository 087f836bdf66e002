"""PaddlePaddle 2.x math functions that are compositions of registered ops (``paddle.cumsum``,
``paddle.norm``, ``paddle.dist``, ``paddle.t``, ...).

Each is written with :mod:`core.layers` functions, so it runs eagerly, in static programs and in
converted code with the gradients of the ops it is made of. ``cumsum`` multiplies by a constant
upper-triangular matrix of ones along the axis, which needs that axis's size to be known.
"""
import builtins

import numpy as np

from . import layers as _L
from . import mode as _mode
from .dtypes import get_default_dtype
from .tensor import to_tensor

__all__ = ["all", "allclose", "any", "bmm", "cumsum", "dist", "dot", "equal_all", "eye",
           "logsumexp", "mm", "norm", "std", "t", "tril", "triu", "var"]


def _constant(array):
    return to_tensor(array) if _mode.in_dynamic_mode() else _L.assign(array)


def _dims(axis):
    if axis is None:
        return None
    return [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]


def t(input, name=None):
    """``paddle.t``: the transpose of a tensor of rank <= 2 (rank 0 and 1 unchanged)."""
    rank = len(input.shape)
    if rank > 2:
        raise ValueError(f"t(): input must have rank <= 2, got shape {input.shape}; use "
                         "transpose(x, perm)")
    return _L.transpose(input, [1, 0]) if rank == 2 else _L.assign(input)


def cumsum(x, axis=None, dtype=None, name=None):
    """``paddle.cumsum``: running sums along ``axis`` (of the flattened tensor when None)."""
    if dtype is not None:
        x = _L.cast(x, dtype)
    if axis is None:
        x, axis = _L.reshape(x, [-1]), 0
    rank = len(x.shape)
    if not -rank <= int(axis) < rank:
        raise ValueError(f"cumsum(): argument 'axis' must be in [{-rank}, {rank}), got {axis}")
    axis = int(axis) % rank
    n = x.shape[axis]
    if n is None or n < 0:
        raise ValueError(f"cumsum(): the size of axis {axis} must be known, got {x.shape}")
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = _L.transpose(x, perm) if axis != rank - 1 else x
    kind = np.dtype(x.dtype).kind
    work = _L.cast(moved, "float64") if kind in "iub" else moved
    upper = _constant(np.triu(np.ones((n, n), dtype=np.dtype(work.dtype))))
    out = _L.matmul(work, upper)
    if kind in "iub":
        out = _L.cast(_L.round(out), "int64" if kind == "b" else x.dtype)
    return _L.transpose(out, perm) if axis != rank - 1 else out


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """``paddle.norm``: the vector p-norm over ``axis`` (all entries when None); ``'fro'`` and 2
    are the square root of the sum of squares, ``inf`` / ``-inf`` the largest / smallest
    absolute value, 0 the count of non-zero entries."""
    dims = _dims(axis)
    if p == "fro" or p == 2:
        return _L.sqrt(_L.reduce_sum(_L.square(x), dim=dims, keep_dim=keepdim))
    if isinstance(p, str):
        raise ValueError(f"norm(): argument 'p' must be 'fro' or a number, got {p!r}")
    p = float(p)
    if p == np.inf:
        return _L.reduce_max(_L.abs(x), dim=dims, keep_dim=keepdim)
    if p == -np.inf:
        return _L.reduce_min(_L.abs(x), dim=dims, keep_dim=keepdim)
    if p == 0:
        nz = _L.cast(_L.not_equal(x, _L.zeros_like(x)), x.dtype)
        return _L.reduce_sum(nz, dim=dims, keep_dim=keepdim)
    if p == 1:
        return _L.reduce_sum(_L.abs(x), dim=dims, keep_dim=keepdim)
    powered = _L.elementwise_pow(_L.abs(x), _L.fill_constant([], x.dtype, p))
    total = _L.reduce_sum(powered, dim=dims, keep_dim=keepdim)
    return _L.elementwise_pow(total, _L.fill_constant([], x.dtype, 1.0 / p))


def dist(x, y, p=2, name=None):
    """``paddle.dist``: the p-norm of ``x - y`` (broadcast) over all entries."""
    return norm(_L.elementwise_sub(x, y), p=p)


def dot(x, y, name=None):
    """``paddle.dot``: the inner product of 1-D tensors, or of each row of 2-D ones."""
    return _L.reduce_sum(_L.elementwise_mul(x, y), dim=[-1])


def mm(input, mat2, name=None):
    """``paddle.mm``: matrix product."""
    return _L.matmul(input, mat2)


def bmm(x, y, name=None):
    """``paddle.bmm``: batched matrix product of [B, N, K] and [B, K, M] tensors."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"bmm(): x and y must have rank 3, got shapes {x.shape} and {y.shape}")
    return _L.matmul(x, y)


def var(x, axis=None, unbiased=True, keepdim=False, name=None):
    """``paddle.var``: the variance over ``axis`` (divided by n - 1 when ``unbiased``)."""
    dims = _dims(axis)
    centred = _L.elementwise_sub(x, _L.reduce_mean(x, dim=dims, keep_dim=True))
    shape = list(x.shape)
    count = int(np.prod([shape[d] for d in dims])) if dims is not None else int(np.prod(shape))
    if count < 0:
        raise ValueError(f"var(): the reduced axes must have known sizes, got shape {shape}")
    total = _L.reduce_sum(_L.square(centred), dim=dims, keep_dim=keepdim)
    return _L.scale(total, 1.0 / builtins.max(count - (1 if unbiased else 0), 1))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """``paddle.std``: the square root of :func:`var`."""
    return _L.sqrt(var(x, axis, unbiased, keepdim))


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``paddle.logsumexp``: ``log(sum(exp(x)))`` over ``axis``, computed stably."""
    dims = _dims(axis)
    top = _L.reduce_max(x, dim=dims, keep_dim=True)
    top.stop_gradient = True
    total = _L.reduce_sum(_L.exp(_L.elementwise_sub(x, top)), dim=dims, keep_dim=True)
    out = _L.elementwise_add(_L.log(total), top)
    if keepdim:
        return out
    rank = len(x.shape)
    axes = list(range(rank)) if dims is None else sorted(d % rank for d in dims)
    return _L.squeeze(out, axes) if axes else out


def any(x, axis=None, keepdim=False, name=None):
    """``paddle.any``: whether any entry over ``axis`` is true."""
    return _L.reduce_any(x, dim=_dims(axis), keep_dim=keepdim)


def all(x, axis=None, keepdim=False, name=None):
    """``paddle.all``: whether every entry over ``axis`` is true."""
    return _L.reduce_all(x, dim=_dims(axis), keep_dim=keepdim)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """``paddle.allclose``: whether ``|x - y| <= atol + rtol * |y|`` everywhere (a bool tensor
    of shape [])."""
    if equal_nan:
        raise ValueError("allclose(): equal_nan=True is not supported")
    diff = _L.abs(_L.elementwise_sub(x, y))
    bound = _L.scale(_L.abs(y), float(rtol), float(atol))
    return _L.reduce_all(_L.less_equal(diff, bound))


def equal_all(x, y, name=None):
    """``paddle.equal_all``: whether ``x`` and ``y`` have the same shape and entries."""
    if list(x.shape) != list(y.shape):
        return _constant(np.array(False))
    return _L.reduce_all(_L.equal(x, y))


def eye(num_rows, num_columns=None, dtype=None, name=None):
    """``paddle.eye``: the identity matrix (of the default dtype, float32, unless named)."""
    cols = num_rows if num_columns is None else num_columns
    dtype = np.dtype(dtype or get_default_dtype())
    return _constant(np.eye(int(num_rows), int(cols), dtype=dtype))


def _band(x, diagonal, lower, api):
    shape = list(x.shape)
    if len(shape) < 2 or builtins.any(d is None or d < 0 for d in shape[-2:]):
        raise ValueError(f"{api}(): x must have rank >= 2 with known last two sizes, got "
                         f"{shape}")
    rows, cols = shape[-2:]
    band = np.tril if lower else np.triu
    mask = band(np.ones((rows, cols), dtype=bool), int(diagonal))
    return _L.where(_constant(mask), x, _L.zeros_like(x))


def tril(x, diagonal=0, name=None):
    """``paddle.tril``: ``x`` with the entries above the ``diagonal``-th diagonal zeroed."""
    return _band(x, diagonal, True, "tril")


def triu(x, diagonal=0, name=None):
    """``paddle.triu``: ``x`` with the entries below the ``diagonal``-th diagonal zeroed."""
    return _band(x, diagonal, False, "triu")

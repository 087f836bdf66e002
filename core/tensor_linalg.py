"""PaddlePaddle 2.x linear-algebra functions (``paddle.diagonal``, ``paddle.trace``,
``paddle.diag``, ``paddle.kron``, ``paddle.cross``, ``paddle.inverse``, ``paddle.einsum``) and
``paddle.amax`` / ``paddle.amin``.

All but ``inverse`` and ``einsum`` (ops of their own) are compositions of registered ops, so
they run eagerly, in static programs and in converted code with the gradients of the ops they
are made of. ``diagonal`` gathers the entries ``i * cols + i + offset`` of the two axes
flattened into one; it and ``kron`` need the sizes of the axes they rearrange to be known.
"""
import builtins

import numpy as np

from . import layers as _L
from . import mode as _mode
from .checks import check_variable
from .dispatch import apply as _apply
from .tensor import to_tensor
from .tensor_search import gather

__all__ = ["amax", "amin", "cross", "diag", "diagonal", "einsum", "inverse", "kron", "trace"]


def _constant(array):
    return to_tensor(array) if _mode.in_dynamic_mode() else _L.assign(array)


def _known(x, axes, api):
    shape = list(x.shape)
    for a in axes:
        if shape[a] is None or shape[a] < 0:
            raise ValueError(f"{api}(): the size of axis {a} must be known, got shape {shape}")
    return shape


def _axis(rank, axis, arg, api):
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{api}(): argument '{arg}' must be an int, got {type(axis).__name__}")
    if not -rank <= axis < rank:
        raise ValueError(f"{api}(): argument '{arg}' must be in [{-rank}, {rank}), got {axis}")
    return int(axis) % rank


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """``paddle.diagonal``: the entries ``x[..., i, i + offset]`` of the 2-D planes spanned by
    ``axis1`` and ``axis2``; those axes are removed and the diagonal becomes the last one."""
    check_variable(x, "x", "diagonal")
    rank = len(x.shape)
    if rank < 2:
        raise ValueError(f"diagonal(): x must have rank >= 2, got shape {list(x.shape)}")
    a1, a2 = _axis(rank, axis1, "axis1", "diagonal"), _axis(rank, axis2, "axis2", "diagonal")
    if a1 == a2:
        raise ValueError(f"diagonal(): 'axis1' and 'axis2' must differ, both are {a1}")
    shape = _known(x, (a1, a2), "diagonal")
    rows, cols, offset = shape[a1], shape[a2], int(offset)
    first = builtins.max(0, -offset)
    length = builtins.max(0, builtins.min(rows - first, cols - first - offset))
    if length == 0:
        raise ValueError(f"diagonal(): offset {offset} leaves no entry in a {rows} x {cols} "
                         "plane")
    perm = [i for i in range(rank) if i not in (a1, a2)] + [a1, a2]
    moved = x if perm == list(range(rank)) else _L.transpose(x, perm)
    flat = _L.reshape(moved, [0] * (rank - 2) + [rows * cols])
    i = np.arange(first, first + length)
    return gather(flat, _constant((i * cols + i + offset).astype("int64")), axis=-1)


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """``paddle.trace``: the sum of :func:`diagonal` (over its last axis)."""
    return _L.reduce_sum(diagonal(x, offset, axis1, axis2), dim=[-1])


def diag(x, offset=0, padding_value=0, name=None):
    """``paddle.diag``: for a 1-D ``x`` of length n, the square matrix of size
    ``n + |offset|`` with ``x`` on its ``offset``-th diagonal and ``padding_value``
    elsewhere; for a 2-D ``x``, its ``offset``-th diagonal (1-D)."""
    check_variable(x, "x", "diag")
    rank = len(x.shape)
    if rank == 2:
        return diagonal(x, offset)
    if rank != 1:
        raise ValueError(f"diag(): x must be 1-D or 2-D, got shape {list(x.shape)}")
    n = _known(x, (0,), "diag")[0]
    offset = int(offset)
    size = n + builtins.abs(offset)
    i = np.arange(n)
    at = (i + builtins.max(0, -offset)) * size + i + builtins.max(0, offset)
    base = _L.fill_constant([size * size], x.dtype, padding_value)
    out = _L.scatter(base, _constant(at.astype("int64")), x, overwrite=True)
    return _L.reshape(out, [size, size])


def kron(x, y, name=None):
    """``paddle.kron``: the Kronecker product; the lower-rank operand gets leading 1s."""
    check_variable(x, "x", "kron")
    check_variable(y, "y", "kron")
    rank = builtins.max(len(x.shape), len(y.shape))
    xs = [1] * (rank - len(x.shape)) + list(x.shape)
    ys = [1] * (rank - len(y.shape)) + list(y.shape)
    if builtins.any(d is None or d < 0 for d in xs + ys):
        raise ValueError(f"kron(): the shapes of x and y must be known, got {list(x.shape)} "
                         f"and {list(y.shape)}")
    # NOTE: [a0, 1, a1, 1, ...] * [1, b0, 1, b1, ...] -> [a0, b0, a1, b1, ...] -> [a0*b0, ...]
    xe = _L.reshape(x, [d for a in xs for d in (a, 1)])
    ye = _L.reshape(y, [d for b in ys for d in (1, b)])
    return _L.reshape(_L.elementwise_mul(xe, ye), [a * b for a, b in zip(xs, ys)])


def cross(x, y, axis=None, name=None):
    """``paddle.cross``: the cross product of 3-vectors along ``axis`` (the first axis of size
    3 when None); ``x`` and ``y`` have the same shape."""
    check_variable(x, "x", "cross")
    check_variable(y, "y", "cross")
    if list(x.shape) != list(y.shape):
        raise ValueError(f"cross(): x and y must have the same shape, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    rank = len(x.shape)
    if axis is None:
        sizes = [k for k, d in enumerate(x.shape) if d == 3]
        if not sizes:
            raise ValueError(f"cross(): x of shape {list(x.shape)} has no axis of size 3")
        axis = sizes[0]
    axis = _axis(rank, axis, "axis", "cross")
    if x.shape[axis] != 3:
        raise ValueError(f"cross(): axis {axis} of x must have size 3, got shape "
                         f"{list(x.shape)}")
    xs, ys = _L.split(x, 3, dim=axis), _L.split(y, 3, dim=axis)

    def term(i, j):
        return _L.elementwise_sub(_L.elementwise_mul(xs[i], ys[j]),
                                  _L.elementwise_mul(xs[j], ys[i]))

    return _L.concat([term(1, 2), term(2, 0), term(0, 1)], axis=axis)


def inverse(x, name=None):
    """``paddle.inverse``: the inverse of a square matrix, or of each one of a batch
    ``[..., n, n]`` (floating dtypes)."""
    check_variable(x, "x", "inverse", ("float32", "float64"))
    shape = list(x.shape)
    if len(shape) < 2 or (shape[-1] != shape[-2] and shape[-1] >= 0 and shape[-2] >= 0):
        raise ValueError(f"inverse(): x must be [..., n, n], got shape {shape}")
    return _apply("inverse", [x])


def einsum(equation, *operands):
    """``paddle.einsum``: the Einstein summation ``equation`` (``'ij,jk->ik'``; without
    ``->`` the output holds the letters used once, in alphabetical order) of ``operands``.
    Letters and ``->`` only (no ``...``)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be a str, got "
                        f"{type(equation).__name__}")
    eq = equation.replace(" ", "")
    if "." in eq:
        raise ValueError(f"einsum(): '...' (broadcast dims) is not supported, got {equation!r}")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise ValueError(f"einsum(): equation {equation!r} names {len(ins)} operands, got "
                         f"{len(operands)}")
    letters = "".join(ins)
    if not arrow:
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for c in eq.replace(",", "").replace("->", ""):
        if not c.isalpha():
            raise ValueError(f"einsum(): equation {equation!r}: {c!r} is not a letter")
    for sub, t in zip(ins, operands):
        check_variable(t, "operands", "einsum")
        if len(sub) != len(t.shape):
            raise ValueError(f"einsum(): subscript {sub!r} has {len(sub)} letters for an "
                             f"operand of shape {list(t.shape)}")
    for c in out:
        if c not in letters or out.count(c) > 1:
            raise ValueError(f"einsum(): output letter {c!r} of {equation!r} must appear once "
                             "there and in an input")
    return _apply("einsum", [list(operands)], {"equation": ",".join(ins) + "->" + out})


def _amax(x, axis, keepdim, largest, api):
    check_variable(x, "x", api)
    dims = None if axis is None else \
        [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
    reduce = _L.reduce_max if largest else _L.reduce_min
    if np.dtype(x.dtype).kind != "f":
        return reduce(x, dim=dims, keep_dim=keepdim)
    fixed = _L.assign(x)
    fixed.stop_gradient = True
    top = reduce(fixed, dim=dims, keep_dim=True)
    # NOTE: Paddle's amax / amin share the gradient evenly between tied extremes (max / min
    # give each the whole of it): the extreme plus sum((x - x) * tie / count), with x, tie and
    # count fixed in all but the first x, so the value is the exact extreme.
    tie = _L.cast(_L.equal(fixed, top), x.dtype)
    weights = _L.elementwise_div(tie, _L.reduce_sum(tie, dim=dims, keep_dim=True))
    weights.stop_gradient = True
    zero = _L.reduce_sum(_L.elementwise_mul(_L.elementwise_sub(x, fixed), weights), dim=dims,
                         keep_dim=keepdim)
    return _L.elementwise_add(reduce(fixed, dim=dims, keep_dim=keepdim), zero)


def amax(x, axis=None, keepdim=False, name=None):
    """``paddle.amax``: the largest value over ``axis`` (all axes when None); tied maxima share
    the gradient evenly."""
    return _amax(x, axis, keepdim, True, "amax")


def amin(x, axis=None, keepdim=False, name=None):
    """``paddle.amin``: the smallest value over ``axis``; tied minima share the gradient
    evenly."""
    return _amax(x, axis, keepdim, False, "amin")

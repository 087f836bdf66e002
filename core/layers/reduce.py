"""Functional API: reductions (``paddle.fluid.layers`` signatures): reduce_sum/mean/max/min/
prod, mean, argmax, argmin and topk.

``dim`` is an int, a list of ints, or None for every axis (a reduction over every axis without
``keep_dim`` has shape ``[]``). Axes are normalised to non-negative here.
"""
from ..checks import check_axis, check_bool, check_int, check_variable, is_int
from ..dispatch import apply

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "mean",
           "argmax", "argmin", "topk"]


def _reduce(op_type, input, dim, keep_dim):
    check_variable(input, "input", op_type)
    keep_dim = check_bool(keep_dim, "keep_dim", op_type)
    rank = len(input.shape)
    if dim is None:
        return apply(op_type, [input], {"dim": None, "keep_dim": keep_dim,
                                        "reduce_all": True})
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if not all(is_int(d) for d in dims):
        raise TypeError(f"{op_type}(): argument 'dim' must be None, an int or a list of ints, "
                        f"got {dim!r}")
    axes = sorted({check_axis(d, rank, "dim", op_type) for d in dims})
    return apply(op_type, [input], {"dim": axes, "keep_dim": keep_dim,
                                    "reduce_all": len(axes) >= rank})


def reduce_sum(input, dim=None, keep_dim=False, name=None):
    """Sum over ``dim`` (every axis when None)."""
    return _reduce("reduce_sum", input, dim, keep_dim)


def reduce_mean(input, dim=None, keep_dim=False, name=None):
    """Mean over ``dim`` (every axis when None)."""
    return _reduce("reduce_mean", input, dim, keep_dim)


def reduce_max(input, dim=None, keep_dim=False, name=None):
    """Maximum over ``dim``; at ties every maximal element gets the gradient."""
    return _reduce("reduce_max", input, dim, keep_dim)


def reduce_min(input, dim=None, keep_dim=False, name=None):
    """Minimum over ``dim``; at ties every minimal element gets the gradient."""
    return _reduce("reduce_min", input, dim, keep_dim)


def reduce_prod(input, dim=None, keep_dim=False, name=None):
    """Product over ``dim`` (its gradient is right also where elements are 0)."""
    return _reduce("reduce_prod", input, dim, keep_dim)


def mean(x, name=None):
    """The mean of every element of ``x``, shape ``[]``."""
    check_variable(x, "x", "mean")
    return apply("mean", [x])


def _arg(op_type, x, axis):
    check_variable(x, "x", op_type)
    check_int(axis, "axis", op_type, integral_float=False)
    if not x.shape:
        raise ValueError(f"{op_type}(): argument 'x' must have rank >= 1, got shape []")
    return apply(op_type, [x], {"axis": check_axis(axis, len(x.shape), "axis", op_type)})


def argmax(x, axis=0):
    """Index (int64) of the largest element along ``axis``."""
    return _arg("argmax", x, axis)


def argmin(x, axis=0):
    """Index (int64) of the smallest element along ``axis``."""
    return _arg("argmin", x, axis)


def topk(input, k, name=None):
    """``(values, indices)``: the ``k`` largest entries along the last axis, largest first,
    and their int64 indices."""
    api = "topk"
    check_variable(input, "input", api)
    check_int(k, "k", api, integral_float=False)
    if not input.shape:
        raise ValueError("topk(): argument 'input' must have rank >= 1, got shape []")
    n = input.shape[-1]
    if k < 1 or (n is not None and n >= 0 and k > n):
        raise ValueError(f"topk(): argument 'k' must be in [1, {n}] for an input of shape "
                         f"{list(input.shape)}, got {k}")
    return apply("topk", [input], {"k": int(k)})


def _bool_reduce(op_type, input, dim, keep_dim):
    check_variable(input, "input", op_type, dtypes=("bool",))
    return _reduce(op_type, input, dim, keep_dim)


def reduce_all(input, dim=None, keep_dim=False, name=None):
    """Logical AND of a bool tensor over ``dim`` (every axis when None)."""
    return _bool_reduce("reduce_all", input, dim, keep_dim)


def reduce_any(input, dim=None, keep_dim=False, name=None):
    """Logical OR of a bool tensor over ``dim`` (every axis when None)."""
    return _bool_reduce("reduce_any", input, dim, keep_dim)


__all__ += ["reduce_all", "reduce_any"]

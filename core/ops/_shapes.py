"""Shape helpers shared by op definitions: broadcasting with Paddle's ``axis``, reductions of
broadcast gradients, and static shape inference with unknown (-1) dims."""
import numpy as np

__all__ = ["ndim", "align_for_axis", "unbroadcast", "broadcast_shapes", "ShapeError",
           "normalize_axis", "ufunc_dtype"]


class ShapeError(ValueError):
    """Shapes that cannot work together; the message names the op and both shapes."""


def ndim(a):
    return getattr(a, "ndim", 0)


def _expanded(shape, target_ndim, axis):
    return tuple([1] * axis + list(shape) + [1] * (target_ndim - axis - len(shape)))


def align_for_axis(x, y, axis):
    """Reshape the lower-rank operand so its dims start at ``axis`` of the other (Paddle's
    elementwise rule); ``axis == -1`` means trailing alignment, i.e. numpy broadcasting."""
    nx, ny = ndim(x), ndim(y)
    if axis == -1 or nx == ny or nx == 0 or ny == 0:
        return x, y
    if ny < nx:
        return x, y.reshape(_expanded(y.shape, nx, axis))
    return x.reshape(_expanded(x.shape, ny, axis)), y


def aligned_shape(shape, other_ndim, axis):
    """``shape`` as :func:`align_for_axis` would reshape it against an operand of rank
    ``other_ndim`` (unchanged when it is not the lower-rank one)."""
    if axis == -1 or len(shape) >= other_ndim or len(shape) == 0:
        return tuple(shape)
    return _expanded(shape, other_ndim, axis)


def unbroadcast(g, shape):
    """Sum gradient ``g`` over the dims broadcasting added, back to ``shape``."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and g.shape[i + lead] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def broadcast_shapes(a, b, what="broadcast"):
    """numpy broadcasting of two static shapes that may hold -1 (unknown) dims."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for i, (p, q) in enumerate(zip(a, b)):
        if p == q:
            out.append(p)
        elif p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p == -1:
            out.append(q)
        elif q == -1:
            out.append(p)
        else:
            raise ShapeError(f"{what}: shapes {list(a)} and {list(b)} do not broadcast "
                             f"(dim {i}: {p} vs {q})")
    return tuple(out)


def normalize_axis(axis, rank, what="axis"):
    """``axis`` in ``[-rank, rank)`` mapped to ``[0, rank)``; a clear error otherwise."""
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ShapeError(f"{what} {axis} is out of range for a tensor of rank {rank}")
    return axis % max(rank, 1)


_probe_cache = {}


def ufunc_dtype(ufunc, *dtypes):
    """The dtype numpy's ``ufunc`` returns for inputs of ``dtypes`` (0-d arrays: strong types)."""
    # NOTE: dtype objects key the cache (``dtype.name`` is a slow Python property)
    key = (ufunc,) + tuple(d if type(d) is not str else np.dtype(d) for d in dtypes)
    d = _probe_cache.get(key)
    if d is None:
        with np.errstate(all="ignore"):
            d = ufunc(*[np.ones(1, dtype=t) for t in dtypes]).dtype
        _probe_cache[key] = d
    return d

"""Reduction ops: reduce_sum/mean/max/min/prod, reduce_all/any (bool, no gradient), mean,
argmax/argmin and topk.

``reduce_*`` take ``dim`` (None or a list of axes, negative allowed), ``keep_dim`` and
``reduce_all``; ``reduce_all``, ``dim=None`` and ``dim=[]`` all mean every axis, and a
reduction over every axis without ``keep_dim`` has shape ``[]``. Output dtypes are numpy's
(``reduce_sum`` of int32 is int64, ``reduce_mean`` of ints is float64).
"""
import functools

import numpy as np

from ._shapes import ShapeError, normalize_axis
from .registry import Meta, OpDef, register_op

__all__ = ["reduced_axes", "reduced_shape"]


def reduced_axes(rank, dim, reduce_all):
    """The sorted, non-negative axes a reduction covers."""
    if reduce_all or not dim:
        return tuple(range(rank))
    axes = sorted({normalize_axis(int(d), rank, "reduce dim") for d in dim})
    return tuple(axes)


def reduced_shape(shape, axes, keep_dim):
    """``shape`` with ``axes`` removed (or set to 1 when ``keep_dim``)."""
    if keep_dim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


_DTYPE_PROBES = {}


def _probe_dtype(fn_name, dtype):
    key = (fn_name, np.dtype(dtype).name)
    if key not in _DTYPE_PROBES:
        _DTYPE_PROBES[key] = getattr(np, fn_name)(np.ones(1, dtype)).dtype
    return _DTYPE_PROBES[key]


class _Reduce(OpDef):
    """``Out = fn(X, axes)``; ``grad(xp, x, out_k, dout_k, axes)`` works on keep-dims shapes."""

    attrs = {"dim": None, "keep_dim": False, "reduce_all": False}
    fn = None  # name of the xp reduction

    def infer(self, x, dim, keep_dim, reduce_all):
        axes = reduced_axes(len(x.shape), dim, reduce_all)
        return Meta(reduced_shape(x.shape, axes, keep_dim), _probe_dtype(self.fn, x.dtype))

    def forward(self, ctx, x, dim, keep_dim, reduce_all):
        axes = reduced_axes(x.ndim, dim, reduce_all)
        return getattr(ctx.xp, self.fn)(x, axis=axes, keepdims=keep_dim)

    def fast_kernel(self, xp, metas, dim, keep_dim, reduce_all):
        if metas[0] is None or type(self).forward is not _Reduce.forward:
            return None
        axes = reduced_axes(len(metas[0].shape), dim, reduce_all)
        ufunc = _REDUCING_UFUNCS.get(self.fn) if xp is np else None
        if ufunc is not None and metas[0].dtype.kind == "f":
            # NOTE: numpy's sum/max/... are Python wrappers around the ufunc's reduce (the same
            # computation); calling reduce directly saves microseconds per call in loops.
            return functools.partial(ufunc.reduce, axis=axes, keepdims=keep_dim)
        return functools.partial(getattr(xp, self.fn), axis=axes, keepdims=keep_dim)

    def backward(self, ctx, ins, outs, douts, dim, keep_dim, reduce_all):
        x = ins[0]
        axes = reduced_axes(x.ndim, dim, reduce_all)
        kshape = reduced_shape(x.shape, axes, True)
        g = self.grad(ctx.xp, x, outs[0].reshape(kshape), douts[0].reshape(kshape), axes)
        return (g.astype(x.dtype, copy=False),)


_REDUCING_UFUNCS = {"sum": np.add, "max": np.maximum, "min": np.minimum, "prod": np.multiply}


def _spread(xp, g, shape):
    # NOTE: a writable copy, not a broadcast view: gradients are accumulated and zeroed in place.
    return xp.broadcast_to(g, shape).copy()


@register_op
class reduce_sum(_Reduce):
    fn = "sum"

    def grad(self, xp, x, out, dout, axes):
        return _spread(xp, dout, x.shape)


@register_op
class reduce_mean(_Reduce):
    fn = "mean"

    def grad(self, xp, x, out, dout, axes):
        n = 1
        for a in axes:
            n *= x.shape[a]
        return _spread(xp, dout / n, x.shape)


@register_op
class reduce_max(_Reduce):
    fn = "max"

    def grad(self, xp, x, out, dout, axes):
        # NOTE: as in Paddle, every element equal to the maximum receives the full gradient.
        return dout * (x == out)


@register_op
class reduce_min(_Reduce):
    fn = "min"

    def grad(self, xp, x, out, dout, axes):
        return dout * (x == out)


@register_op
class reduce_prod(_Reduce):
    fn = "prod"

    def grad(self, xp, x, out, dout, axes):
        # NOTE: products of the other elements (exclusive cumulative products from both ends),
        # not out / x, so zeros in X get the right gradient.
        keep = [i for i in range(x.ndim) if i not in axes]
        perm = keep + list(axes)
        xt = xp.transpose(x, perm)
        flat = xt.reshape(xt.shape[:len(keep)] + (-1,))
        ones = xp.ones_like(flat[..., :1])
        left = xp.cumprod(xp.concatenate([ones, flat[..., :-1]], -1), -1)
        rev = xp.flip(flat, -1)
        right = xp.flip(xp.cumprod(xp.concatenate([ones, rev[..., :-1]], -1), -1), -1)
        others = (left * right).reshape(xt.shape)
        return dout * xp.transpose(others, [perm.index(i) for i in range(x.ndim)])


@register_op
class mean(OpDef):
    """The mean of every element, shape ``[]``."""

    def infer(self, x):
        return Meta((), _probe_dtype("mean", x.dtype))

    def forward(self, ctx, x):
        return ctx.xp.mean(x)

    def backward(self, ctx, ins, outs, douts):
        x = ins[0]
        return (_spread(ctx.xp, douts[0] / max(x.size, 1), x.shape).astype(x.dtype, copy=False),)


class _Arg(OpDef):
    """Index (int64) of the extreme element along ``axis``; no gradient."""

    attrs = {"axis": 0, "keepdims": False}
    differentiable = False
    fn = None

    def infer(self, x, axis, keepdims):
        axes = (normalize_axis(axis, len(x.shape), f"op '{self.type}' axis"),)
        return Meta(reduced_shape(x.shape, axes, keepdims), np.dtype(np.int64))

    def forward(self, ctx, x, axis, keepdims):
        xp = ctx.xp
        out = getattr(xp, self.fn)(x, axis=axis).astype("int64")
        return xp.expand_dims(out, axis) if keepdims else out


@register_op
class argmax(_Arg):
    fn = "argmax"


@register_op
class argmin(_Arg):
    fn = "argmin"


@register_op
class topk(OpDef):
    """The ``k`` largest values along the last axis, in descending order, and their int64
    indices (ties: the lower index first)."""

    outputs = ("Out", "Indices")
    attrs = {"k": 1}
    nondiff_outputs = ("Indices",)

    def infer(self, x, k):
        if not x.shape:
            raise ShapeError("op 'topk': X must have rank >= 1, got shape []")
        n = x.shape[-1]
        if n != -1 and not 1 <= k <= n:
            raise ShapeError(f"op 'topk': k={k} is out of range for a last axis of size {n}")
        shape = tuple(x.shape[:-1]) + (k,)
        return Meta(shape, np.dtype(x.dtype)), Meta(shape, np.dtype(np.int64))

    def forward(self, ctx, x, k):
        xp = ctx.xp
        if not 1 <= k <= x.shape[-1]:
            raise ValueError(f"k={k} is out of range for a last axis of size {x.shape[-1]}")
        # NOTE: sorting -x (widened for unsigned and bool) keeps equal values in index order.
        key = x.astype("int64") if x.dtype.kind in "ub" else x
        idx = xp.argsort(-key, axis=-1, kind="stable")[..., :k].astype("int64")
        return xp.take_along_axis(x, idx, -1), idx

    def backward(self, ctx, ins, outs, douts, k):
        xp = ctx.xp
        x, idx = ins[0], outs[1]
        dx = xp.zeros_like(x).reshape(-1, x.shape[-1])
        rows = xp.arange(dx.shape[0])[:, None]
        dx[rows, idx.reshape(-1, k)] = douts[0].reshape(-1, k)
        return (dx.reshape(x.shape),)


class _BoolReduce(OpDef):
    """``Out = all / any of X (cast to bool) over the axes``; no gradient."""

    attrs = {"dim": None, "keep_dim": False, "reduce_all": False}
    differentiable = False
    fn = None

    def infer(self, x, dim, keep_dim, reduce_all):
        axes = reduced_axes(len(x.shape), dim, reduce_all)
        return Meta(reduced_shape(x.shape, axes, keep_dim), np.dtype(bool))

    def forward(self, ctx, x, dim, keep_dim, reduce_all):
        axes = reduced_axes(x.ndim, dim, reduce_all)
        return getattr(ctx.xp, self.fn)(x.astype(bool, copy=False), axis=axes,
                                        keepdims=keep_dim)


@register_op
class reduce_all(_BoolReduce):
    fn = "all"


@register_op
class reduce_any(_BoolReduce):
    fn = "any"

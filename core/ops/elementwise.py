"""Binary elementwise ops with Paddle's ``axis`` broadcasting, and comparisons / logic.

``elementwise_<op>(X, Y, axis)``: when ``axis`` is -1 shapes broadcast as in numpy; otherwise
the lower-rank operand's dims line up with the other's starting at ``axis``. Python scalars
are weak operands (numpy 2 promotion).
"""
import operator

import numpy as np

from ._shapes import (ShapeError, aligned_shape, align_for_axis, broadcast_shapes, ndim,
                      ufunc_dtype, unbroadcast)
from .registry import Meta, OpDef, register_op


def _shape(a):
    return getattr(a, "shape", ())


class _Binary(OpDef):
    inputs = ("X", "Y")
    outputs = ("Out",)
    attrs = {"axis": -1}
    ufunc = None  # the numpy ufunc whose type rules and name give the xp function

    def infer(self, x, y, axis):
        _check_axis_fits(self.type, tuple(x.shape), tuple(y.shape), axis)
        xs = aligned_shape(x.shape, len(y.shape), axis)
        ys = aligned_shape(y.shape, len(x.shape), axis)
        shape = broadcast_shapes(xs, ys, f"op '{self.type}'")
        return Meta(shape, ufunc_dtype(self.ufunc, x.dtype, y.dtype))

    def forward(self, ctx, x, y, axis):
        if axis != -1:  # numpy would broadcast a misplaced operand into a wrong shape
            _check_axis_fits(self.type, tuple(_shape(x)), tuple(_shape(y)), axis)
        try:
            xa, ya = align_for_axis(x, y, axis)
            return getattr(ctx.xp, self.ufunc.__name__)(xa, ya)
        except ValueError:
            _explain_mismatch(self.type, x, y, axis)
            raise

    def fast_kernel(self, xp, metas, axis):
        if type(self).forward is not _Binary.forward:
            return None
        if xp is np and all(m is not None and len(m.shape) == 0 for m in metas):
            # NOTE: 0-d operands (loop counters, predicates): numpy's ufunc returns a numpy
            # scalar for them, and the Python operator on numpy scalars gives the same value
            # and dtype without the ufunc call's overhead.
            fn = _SCALAR_OPERATORS.get(self.ufunc)
            if fn is None and all(np.dtype(m.dtype) == np.bool_ for m in metas):
                # NOTE: on two booleans the bitwise operator is the logical one
                fn = _BOOL_OPERATORS.get(self.ufunc)
            if fn is not None:
                return fn
        fn = getattr(xp, self.ufunc.__name__)
        if axis == -1:
            return fn
        return _aligned_kernel(fn, metas, axis)

    def backward(self, ctx, ins, outs, douts, axis):
        x, y = ins
        xa, ya = align_for_axis(x, y, axis)
        gx, gy = self.grads(ctx, xa, ya, outs[0], douts[0])
        need_x, need_y = ctx.needs_grad
        rx = unbroadcast(gx, _shape(xa)).reshape(_shape(x)) if need_x and gx is not None else None
        ry = unbroadcast(gy, _shape(ya)).reshape(_shape(y)) if need_y and gy is not None else None
        return rx, ry

    def grads(self, ctx, x, y, out, dout):
        """Gradients w.r.t. the aligned operands, before un-broadcasting."""
        raise NotImplementedError


def _check_axis_fits(op_type, xs, ys, axis):
    """With Paddle's ``axis`` the lower-rank shape must fit inside the other from ``axis``."""
    small, big = (ys, xs) if len(ys) < len(xs) else (xs, ys)
    if axis != -1 and small and len(small) < len(big) and \
            not 0 <= axis <= len(big) - len(small):
        raise ShapeError(f"{op_type}: with axis={axis} the dims {list(small)} cannot line up "
                         f"with {list(big)} (X {list(xs)}, Y {list(ys)}); axis must be in "
                         f"[0, {len(big) - len(small)}] or -1")


def _explain_mismatch(op_type, x, y, axis):
    """Raise a :class:`ShapeError` naming the op, both shapes and ``axis`` when they do not
    fit (the kernel's own error otherwise propagates unchanged)."""
    xs, ys = tuple(_shape(x)), tuple(_shape(y))
    _check_axis_fits(op_type, xs, ys, axis)
    broadcast_shapes(aligned_shape(xs, len(ys), axis), aligned_shape(ys, len(xs), axis),
                     f"{op_type}: X {list(xs)} and Y {list(ys)} (axis={axis})")


def _aligned_kernel(fn, metas, axis):
    """``fn`` with Paddle's ``axis`` alignment resolved at compile time: the lower-rank operand
    (of fully known shape) is reshaped to the shape :func:`align_for_axis` would give it."""
    if any(m is None for m in metas):
        return None
    x, y = metas
    nx, ny = len(x.shape), len(y.shape)
    if ny < nx and ny and -1 not in y.shape:
        shape = aligned_shape(y.shape, nx, axis)
        return lambda a, b: fn(a, b.reshape(shape))
    if nx < ny and nx and -1 not in x.shape:
        shape = aligned_shape(x.shape, ny, axis)
        return lambda a, b: fn(a.reshape(shape), b)
    return fn if nx == ny else None


_SCALAR_OPERATORS = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
    np.true_divide: operator.truediv, np.floor_divide: operator.floordiv, np.mod: operator.mod,
    np.power: operator.pow, np.less: operator.lt, np.less_equal: operator.le,
    np.greater: operator.gt, np.greater_equal: operator.ge, np.equal: operator.eq,
    np.not_equal: operator.ne,
}
_BOOL_OPERATORS = {np.logical_and: operator.and_, np.logical_or: operator.or_,
                   np.logical_xor: operator.xor}


@register_op
class elementwise_add(_Binary):
    ufunc = np.add

    def grads(self, ctx, x, y, out, dout):
        return dout, dout


@register_op
class elementwise_sub(_Binary):
    ufunc = np.subtract

    def grads(self, ctx, x, y, out, dout):
        return dout, -dout


@register_op
class elementwise_mul(_Binary):
    ufunc = np.multiply

    def grads(self, ctx, x, y, out, dout):
        nx, ny = ctx.needs_grad
        return (dout * y if nx else None), (dout * x if ny else None)


@register_op
class elementwise_div(_Binary):
    ufunc = np.true_divide

    def grads(self, ctx, x, y, out, dout):
        gx = dout / y
        return gx, (-gx * out if ctx.needs_grad[1] else None)


@register_op
class elementwise_pow(_Binary):
    ufunc = np.power

    def grads(self, ctx, x, y, out, dout):
        xp = ctx.xp
        nx, ny = ctx.needs_grad
        gx = dout * y * xp.power(x, y - 1) if nx else None
        # NOTE: d/dy x**y = x**y log x is only defined for x > 0; elsewhere it is taken as 0.
        gy = dout * out * xp.log(xp.where(x > 0, x, 1)) if ny else None
        return gx, gy


@register_op
class elementwise_max(_Binary):
    ufunc = np.maximum

    def grads(self, ctx, x, y, out, dout):
        # NOTE: at ties the gradient goes to X, as in Paddle.
        mask = x >= y
        return dout * mask, dout * ~mask


@register_op
class elementwise_min(_Binary):
    ufunc = np.minimum

    def grads(self, ctx, x, y, out, dout):
        mask = x <= y
        return dout * mask, dout * ~mask


@register_op
class elementwise_mod(_Binary):
    """Python's (and numpy's) modulo: the result has the sign of Y. No gradient."""

    ufunc = np.mod
    differentiable = False


@register_op
class elementwise_floordiv(_Binary):
    """Floor division. No gradient."""

    ufunc = np.floor_divide
    differentiable = False


class _Compare(_Binary):
    differentiable = False

    def infer(self, x, y, axis):
        return Meta(super().infer(x, y, axis).shape, np.dtype(bool))


@register_op
class less_than(_Compare):
    ufunc = np.less


@register_op
class less_equal(_Compare):
    ufunc = np.less_equal


@register_op
class greater_than(_Compare):
    ufunc = np.greater


@register_op
class greater_equal(_Compare):
    ufunc = np.greater_equal


@register_op
class equal(_Compare):
    ufunc = np.equal


@register_op
class not_equal(_Compare):
    ufunc = np.not_equal


@register_op
class logical_and(_Compare):
    ufunc = np.logical_and


@register_op
class logical_or(_Compare):
    ufunc = np.logical_or


@register_op
class logical_xor(_Compare):
    ufunc = np.logical_xor


@register_op
class logical_not(OpDef):
    differentiable = False

    def infer(self, x):
        return Meta(tuple(x.shape), np.dtype(bool))

    def forward(self, ctx, x):
        return ctx.xp.logical_not(x)


__all__ = [n for n in dir() if n.startswith(("elementwise_", "less_", "greater_", "logical_"))] + \
    ["equal", "not_equal", "ndim"]

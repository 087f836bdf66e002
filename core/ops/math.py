"""Math ops: scale, unary math, clip, sums, matmul, mul, cast, assign, assign_value and the
finiteness checks ``isfinite`` / ``has_nan``, and ``cos_sim``.

Unary ops return numpy's dtype for the input (``exp`` of an int tensor is float64) except
``scale``, ``clip`` and ``round``, which keep the input's dtype. ``matmul`` follows
``numpy.matmul`` (1-D operands, batch broadcasting); ``mul`` is fluid's flatten-then-matmul.
"""
import numpy as np

from ..dtypes import convert_dtype
from ._shapes import ShapeError, broadcast_shapes, ufunc_dtype, unbroadcast
from .registry import Meta, OpDef, register_op

__all__ = ["matmul_shape", "flat2d"]


def _same(x):
    return Meta(tuple(x.shape), np.dtype(x.dtype))


@register_op
class scale(OpDef):
    """``scale * x + bias`` (``scale * (x + bias)`` when ``bias_after_scale`` is False)."""

    attrs = {"scale": 1.0, "bias": 0.0, "bias_after_scale": True}

    def infer(self, x, scale, bias, bias_after_scale):
        return _same(x)

    def forward(self, ctx, x, scale, bias, bias_after_scale):
        out = x * scale + bias if bias_after_scale else (x + bias) * scale
        # NOTE: the dtype is X's even for int X and float attrs (fluid's rule), so -int_tensor
        # stays an int tensor.
        return out.astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, scale, bias, bias_after_scale):
        return (douts[0] * scale,)


class _Unary(OpDef):
    """``Out = fn(X)`` with numpy's output dtype; ``grad`` gives dX from x, out and dout."""

    fn = None  # the numpy ufunc; the kernel calls the xp function of the same name

    def infer(self, x):
        return Meta(tuple(x.shape), ufunc_dtype(self.fn, x.dtype))

    def forward(self, ctx, x):
        return getattr(ctx.xp, self.fn.__name__)(x)

    def fast_kernel(self, xp, metas, **attrs):
        """The xp ufunc itself, where ``forward`` is this class's one ufunc call."""
        if attrs or type(self).forward is not _Unary.forward or self.fn is None:
            return None
        return getattr(xp, self.fn.__name__, None)

    def backward(self, ctx, ins, outs, douts):
        return (self.grad(ctx.xp, ins[0], outs[0], douts[0]),)

    def grad(self, xp, x, out, dout):
        raise NotImplementedError(f"op '{self.type}' has no gradient")


@register_op
class abs(_Unary):
    fn = np.absolute

    def grad(self, xp, x, out, dout):
        # NOTE: the subgradient at 0 is taken as 0 (sign(0) == 0), as in Paddle.
        return dout * xp.sign(x)


@register_op
class exp(_Unary):
    fn = np.exp

    def grad(self, xp, x, out, dout):
        return dout * out


@register_op
class log(_Unary):
    fn = np.log

    def grad(self, xp, x, out, dout):
        return dout / x


@register_op
class sqrt(_Unary):
    fn = np.sqrt

    def grad(self, xp, x, out, dout):
        return dout * 0.5 / out


@register_op
class rsqrt(_Unary):
    """``1 / sqrt(x)``."""

    fn = np.sqrt

    def forward(self, ctx, x):
        return ctx.xp.reciprocal(ctx.xp.sqrt(x))

    def grad(self, xp, x, out, dout):
        return dout * -0.5 * out * out * out


@register_op
class square(_Unary):
    fn = np.square

    def grad(self, xp, x, out, dout):
        return dout * 2 * x


@register_op
class sin(_Unary):
    fn = np.sin

    def grad(self, xp, x, out, dout):
        return dout * xp.cos(x)


@register_op
class cos(_Unary):
    fn = np.cos

    def grad(self, xp, x, out, dout):
        return -dout * xp.sin(x)


@register_op
class sign(_Unary):
    fn = np.sign
    differentiable = False


@register_op
class floor(_Unary):
    fn = np.floor
    differentiable = False


@register_op
class ceil(_Unary):
    fn = np.ceil
    differentiable = False


@register_op
class round(_Unary):
    """Round half away from zero (C's ``round``, as Paddle does), keeping X's dtype."""

    fn = np.trunc
    differentiable = False

    def infer(self, x):
        return _same(x)

    def forward(self, ctx, x):
        xp = ctx.xp
        # NOTE: numpy's round is half-to-even; trunc plus a correction gives half-away-from-zero
        # exactly (adding 0.5 then flooring is wrong for 0.49999999999999994).
        t = xp.trunc(x)
        return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t).astype(x.dtype, copy=False)


@register_op
class clip(OpDef):
    """``min(max(x, min), max)``, keeping X's dtype; the gradient flows where min < x < max."""

    attrs = {"min": -1.0, "max": 1.0}

    def infer(self, x, min, max):
        return _same(x)

    def forward(self, ctx, x, min, max):
        # NOTE: for int X with fractional bounds the clipped value is truncated back to X's dtype.
        return ctx.xp.clip(x, min, max).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, min, max):
        x = ins[0]
        return (douts[0] * ((x > min) & (x < max)),)


@register_op
class sums(OpDef):
    """The sum of a list of tensors (numpy broadcasting between them)."""

    inputs = ("X*",)

    def infer(self, xs):
        if not xs:
            raise ShapeError("op 'sums': input X is an empty list")
        shape = ()
        for m in xs:
            shape = broadcast_shapes(shape, m.shape, "op 'sums'")
        return Meta(shape, np.result_type(*[m.dtype for m in xs]))

    def forward(self, ctx, xs):
        if not xs:
            raise ValueError("input X is an empty list")
        out = ctx.xp.array(xs[0], copy=True)
        for x in xs[1:]:
            out = out + x
        return out

    def backward(self, ctx, ins, outs, douts):
        return ([unbroadcast(douts[0], getattr(x, "shape", ())) for x in ins[0]],)


def _t(xp, a, transpose):
    return xp.swapaxes(a, -1, -2) if transpose and a.ndim >= 2 else a


def matmul_shape(xs, ys, tx, ty, what="op 'matmul'"):
    """Static output shape of ``matmul`` (numpy rules, -1 for unknown dims)."""
    xs, ys = list(xs), list(ys)
    if not xs or not ys:
        raise ShapeError(f"{what}: operands must have rank >= 1, got {xs} and {ys}")
    if tx and len(xs) >= 2:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if ty and len(ys) >= 2:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    x2 = [1] + xs if len(xs) == 1 else xs
    y2 = ys + [1] if len(ys) == 1 else ys
    k1, k2 = x2[-1], y2[-2]
    if k1 != -1 and k2 != -1 and k1 != k2:
        raise ShapeError(f"{what}: contraction dims differ: X {xs} vs Y {ys} ({k1} != {k2})")
    out = list(broadcast_shapes(x2[:-2], y2[:-2], what)) + [x2[-2], y2[-1]]
    if len(ys) == 1:
        out.pop(-1)
    if len(xs) == 1:
        out.pop(-1 if len(ys) == 1 else -2)
    return tuple(out)


@register_op
class matmul(OpDef):
    """``alpha * op(X) @ op(Y)``; op transposes the last two axes when asked (1-D operands are
    never transposed) and the batch dims broadcast."""

    inputs = ("X", "Y")
    attrs = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}

    def infer(self, x, y, transpose_X, transpose_Y, alpha):
        shape = matmul_shape(x.shape, y.shape, transpose_X, transpose_Y)
        return Meta(shape, ufunc_dtype(np.matmul, x.dtype, y.dtype))

    def fast_kernel(self, xp, metas, transpose_X, transpose_Y, alpha):
        return xp.matmul if not transpose_X and not transpose_Y and alpha == 1.0 else None

    def forward(self, ctx, x, y, transpose_X, transpose_Y, alpha):
        xp = ctx.xp
        try:
            out = xp.matmul(_t(xp, x, transpose_X), _t(xp, y, transpose_Y))
        except ValueError:
            matmul_shape(x.shape, y.shape, transpose_X, transpose_Y)  # names both shapes
            raise
        return out if alpha == 1.0 else (out * alpha).astype(out.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts, transpose_X, transpose_Y, alpha):
        xp = ctx.xp
        x, y = ins
        # NOTE: 1-D operands become [1, K] (X) and [K, 1] (Y) so one 2-D rule covers all cases;
        # dout gets the dims numpy dropped back before the products.
        x2 = x[None, :] if x.ndim == 1 else x
        y2 = y[:, None] if y.ndim == 1 else y
        g = douts[0] * alpha if alpha != 1.0 else douts[0]
        if y.ndim == 1:
            g = xp.expand_dims(g, -1)
        if x.ndim == 1:
            g = xp.expand_dims(g, -2)
        tx, ty = transpose_X and x.ndim >= 2, transpose_Y and y.ndim >= 2
        a, b = _t(xp, x2, tx), _t(xp, y2, ty)
        dx = dy = None
        if ctx.needs_grad[0]:
            da = xp.matmul(g, xp.swapaxes(b, -1, -2))
            dx = unbroadcast(_t(xp, da, tx), x2.shape).reshape(x.shape)
        if ctx.needs_grad[1]:
            db = xp.matmul(xp.swapaxes(a, -1, -2), g)
            dy = unbroadcast(_t(xp, db, ty), y2.shape).reshape(y.shape)
        return dx, dy


def flat2d(shape, num_col_dims):
    """``shape`` flattened to 2-D at ``num_col_dims`` (-1 when a part holds an unknown dim)."""
    def prod(dims):
        p = 1
        for d in dims:
            if d == -1:
                return -1
            p *= d
        return p

    return prod(shape[:num_col_dims]), prod(shape[num_col_dims:])


@register_op
class mul(OpDef):
    """fluid's ``mul``: X flattened to 2-D after its first ``x_num_col_dims`` dims, Y after
    ``y_num_col_dims``, multiplied; Out has shape ``X.shape[:xn] + Y.shape[yn:]``."""

    inputs = ("X", "Y")
    attrs = {"x_num_col_dims": 1, "y_num_col_dims": 1}

    def infer(self, x, y, x_num_col_dims, y_num_col_dims):
        kx = flat2d(x.shape, x_num_col_dims)[1]
        ky = flat2d(y.shape, y_num_col_dims)[0]
        if kx != -1 and ky != -1 and kx != ky:
            raise ShapeError(f"op 'mul': X {list(x.shape)} flattened at {x_num_col_dims} and Y "
                             f"{list(y.shape)} flattened at {y_num_col_dims} do not match "
                             f"({kx} != {ky})")
        shape = tuple(x.shape[:x_num_col_dims]) + tuple(y.shape[y_num_col_dims:])
        return Meta(shape, ufunc_dtype(np.matmul, x.dtype, y.dtype))

    def forward(self, ctx, x, y, x_num_col_dims, y_num_col_dims):
        x2 = x.reshape(flat2d(x.shape, x_num_col_dims))
        y2 = y.reshape(flat2d(y.shape, y_num_col_dims))
        return ctx.xp.matmul(x2, y2).reshape(x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:])

    def backward(self, ctx, ins, outs, douts, x_num_col_dims, y_num_col_dims):
        xp = ctx.xp
        x, y = ins
        x2 = x.reshape(flat2d(x.shape, x_num_col_dims))
        y2 = y.reshape(flat2d(y.shape, y_num_col_dims))
        g = douts[0].reshape(x2.shape[0], y2.shape[1])
        dx = xp.matmul(g, y2.T).reshape(x.shape) if ctx.needs_grad[0] else None
        dy = xp.matmul(x2.T, g).reshape(y.shape) if ctx.needs_grad[1] else None
        return dx, dy


@register_op
class cast(OpDef):
    """X converted to ``out_dtype`` (a dtype name); the gradient is cast back to X's dtype."""

    attrs = {"out_dtype": "float32"}

    def infer(self, x, out_dtype):
        return Meta(tuple(x.shape), convert_dtype(out_dtype))

    def forward(self, ctx, x, out_dtype):
        return x.astype(convert_dtype(out_dtype))

    def backward(self, ctx, ins, outs, douts, out_dtype):
        return (douts[0].astype(ins[0].dtype),)


@register_op
class assign(OpDef):
    """A copy of X (a tensor or a constant array); differentiable."""

    def infer(self, x):
        return _same(x)

    def forward(self, ctx, x):
        return ctx.xp.array(x, copy=True)

    def backward(self, ctx, ins, outs, douts):
        return (douts[0],)


@register_op
class assign_value(OpDef):
    """A constant from attrs: ``values`` (a flat list) reshaped to ``shape``, of ``dtype``."""

    inputs = ()
    attrs = {"shape": [], "dtype": "float32", "values": []}
    differentiable = False

    def infer(self, shape, dtype, values):
        return Meta(tuple(shape), convert_dtype(dtype))

    def forward(self, ctx, shape, dtype, values):
        n = 1
        for d in shape:
            n *= d
        if len(values) != n:
            raise ValueError(f"attr 'values' has {len(values)} elements, shape {list(shape)} "
                             f"needs {n}")
        return ctx.xp.asarray(values, dtype=convert_dtype(dtype)).reshape(tuple(shape))


@register_op
class isfinite(OpDef):
    """fluid's ``isfinite``: a one-element bool tensor, True when every element is finite."""

    differentiable = False

    def infer(self, x):
        return Meta((1,), np.dtype(bool))

    def forward(self, ctx, x):
        return ctx.xp.isfinite(x).all().reshape(1)


@register_op
class has_nan(OpDef):
    """fluid's ``has_nan``: a one-element bool tensor, True when any element is NaN."""

    differentiable = False

    def infer(self, x):
        return Meta((1,), np.dtype(bool))

    def forward(self, ctx, x):
        return ctx.xp.isnan(x).any().reshape(1)


@register_op
class cos_sim(OpDef):
    """Row-wise cosine similarity (fluid ``cos_sim``): X ``[N, ...]`` and Y ``[N, ...]`` or
    ``[1, ...]`` (one row compared with every row of X) are flattened to rows;
    ``Out = <x, y> / (|x| |y|)`` of shape ``[N, 1]``, with the norms ``XNorm`` ``[N, 1]`` and
    ``YNorm`` (``[N, 1]`` or ``[1, 1]``). A zero row gives nan, as in Paddle."""

    inputs = ("X", "Y")
    outputs = ("Out", "XNorm", "YNorm")
    nondiff_outputs = ("XNorm", "YNorm")

    def _check(self, xs, ys):
        if len(xs) < 1 or len(xs) != len(ys) or any(
                a != b and a != -1 and b != -1 for a, b in zip(xs[1:], ys[1:])) or \
                (ys[0] not in (1, -1, xs[0]) and xs[0] != -1):
            raise ShapeError(f"cos_sim: Y must have X's shape, or 1 row of it; got X "
                             f"{list(xs)} and Y {list(ys)}")

    def infer(self, x, y):
        self._check(tuple(x.shape), tuple(y.shape))
        dt = np.dtype(x.dtype)
        return Meta((x.shape[0], 1), dt), Meta((x.shape[0], 1), dt), Meta((y.shape[0], 1), dt)

    def forward(self, ctx, x, y):
        xp = ctx.xp
        self._check(x.shape, y.shape)
        x2, y2 = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
        xn = xp.sqrt((x2 * x2).sum(1, keepdims=True))
        yn = xp.sqrt((y2 * y2).sum(1, keepdims=True))
        with np.errstate(invalid="ignore", divide="ignore"):
            out = (x2 * y2).sum(1, keepdims=True) / (xn * yn)
        return out.astype(x.dtype, copy=False), xn, yn

    def backward(self, ctx, ins, outs, douts):
        x, y = ins
        out, xn, yn = outs
        x2, y2 = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
        d = douts[0]
        dx = d * (y2 / (xn * yn) - out * x2 / (xn * xn))
        dy = d * (x2 / (xn * yn) - out * y2 / (yn * yn))
        if y.shape[0] == 1 and x.shape[0] != 1:
            dy = dy.sum(0, keepdims=True)
        return dx.reshape(x.shape).astype(x.dtype), dy.reshape(y.shape).astype(y.dtype)

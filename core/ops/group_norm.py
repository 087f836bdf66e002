"""Per-sample normalisation over channel groups: ``group_norm`` and ``instance_norm``.

Both view ``X`` ``[N, C, *spatial]`` as ``[N, G, C/G * prod(spatial)]`` and normalise each row
to ``(x - mean) / sqrt(var + epsilon)`` with the biased variance, then apply a per-channel
scale and shift. ``instance_norm`` is the case ``G = C`` (each channel of each sample on its
own). Outputs follow Paddle: ``group_norm`` saves ``Mean`` and ``Variance`` ``[N, G]``;
``instance_norm`` saves ``SavedMean`` and ``SavedVariance`` ``[N * C]``, the latter the
*inverse* standard deviation.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["group_norm", "instance_norm"]


def _per_channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _normalise(xp, x, groups, epsilon):
    """``(xhat, mean [N, G], var [N, G], inv_std [N, G])`` of channels-first ``x``."""
    n = x.shape[0]
    rows = x.reshape(n, groups, -1)
    mean = rows.mean(axis=2)
    centred = rows - mean[..., None]
    var = (centred * centred).mean(axis=2)
    inv_std = 1 / xp.sqrt(var + epsilon)
    return (centred * inv_std[..., None]).reshape(x.shape), mean, var, inv_std


def _affine(y, scale, bias):
    if scale is not None:
        y = y * _per_channel(scale, y.ndim)
    if bias is not None:
        y = y + _per_channel(bias, y.ndim)
    return y


def _grads(xp, x, dy, scale, bias, groups, inv_std, needs):
    """``(dX, dScale, dBias)`` of ``_affine(_normalise(x))`` (channels-first)."""
    n, axes = x.shape[0], (0,) + tuple(range(2, x.ndim))
    mean = x.reshape(n, groups, -1).mean(axis=2)
    xhat = ((x.reshape(n, groups, -1) - mean[..., None]) * inv_std[..., None]).reshape(x.shape)
    need_x, need_scale, need_bias = needs
    dscale = (dy * xhat).sum(axis=axes) if need_scale and scale is not None else None
    dbias = dy.sum(axis=axes) if need_bias and bias is not None else None
    dx = None
    if need_x:
        g = (dy * _per_channel(scale, dy.ndim) if scale is not None else dy).reshape(n, groups, -1)
        h = xhat.reshape(n, groups, -1)
        dx = inv_std[..., None] * (g - g.mean(axis=2, keepdims=True)
                                   - h * (g * h).mean(axis=2, keepdims=True))
        dx = dx.reshape(x.shape).astype(x.dtype, copy=False)
    return dx, dscale, dbias


def _check_affine(who, c, scale, bias):
    for name, m in (("Scale", scale), ("Bias", bias)):
        if m is not None and (len(m.shape) != 1 or (c >= 0 and m.shape[0] >= 0 and
                                                    m.shape[0] != c)):
            raise ShapeError(f"{who}: {name} must have shape [{c}] (one value per channel), "
                             f"got {list(m.shape)}")


def _cf(x, last):
    return x if not last else x.transpose((0, x.ndim - 1) + tuple(range(1, x.ndim - 1)))


def _back(y, last):
    return y if not last else y.transpose((0,) + tuple(range(2, y.ndim)) + (1,))


@register_op
class group_norm(OpDef):
    """Group normalisation: ``groups`` groups of channels per sample (NCHW-like or, with
    ``data_layout='NHWC'``, channels last)."""

    inputs = ("X", "Scale", "Bias")
    outputs = ("Y", "Mean", "Variance")
    attrs = {"epsilon": 1e-5, "groups": 1, "data_layout": "NCHW"}
    nondiff_outputs = ("Mean", "Variance")

    def _plan(self, shape, groups, data_layout):
        if data_layout not in ("NCHW", "NHWC"):
            raise ShapeError(f"group_norm: data_layout must be 'NCHW' or 'NHWC', got "
                             f"{data_layout!r}")
        if len(shape) < 2:
            raise ShapeError(f"group_norm: X must have rank >= 2, got shape {list(shape)}")
        c = shape[-1] if data_layout == "NHWC" else shape[1]
        if groups < 1 or (c >= 0 and c % groups):
            raise ShapeError(f"group_norm: the {c} channels of X {list(shape)} must be "
                             f"divisible by groups ({groups})")
        return c, data_layout == "NHWC" and len(shape) > 2

    def infer(self, x, scale, bias, epsilon, groups, data_layout):
        c, _ = self._plan(x.shape, groups, data_layout)
        _check_affine("group_norm", c, scale, bias)
        stat = Meta((x.shape[0], groups), x.dtype)
        return Meta(tuple(x.shape), x.dtype), stat, stat

    def forward(self, ctx, x, scale, bias, epsilon, groups, data_layout):
        _, last = self._plan(x.shape, groups, data_layout)
        xhat, mean, var, _ = _normalise(ctx.xp, _cf(x, last), groups, epsilon)
        y = _back(_affine(xhat, scale, bias), last).astype(x.dtype, copy=False)
        return ctx.xp.ascontiguousarray(y), mean, var

    def backward(self, ctx, ins, outs, douts, epsilon, groups, data_layout):
        xp = ctx.xp
        x, scale, bias = ins
        _, last = self._plan(x.shape, groups, data_layout)
        inv_std = 1 / xp.sqrt(outs[2] + epsilon)
        dx, ds, db = _grads(xp, _cf(x, last), _cf(douts[0], last), scale, bias, groups,
                            inv_std, ctx.needs_grad)
        return (None if dx is None else xp.ascontiguousarray(_back(dx, last))), ds, db


@register_op
class instance_norm(OpDef):
    """Instance normalisation of channels-first ``X`` ``[N, C, *spatial]``: each channel of
    each sample normalised over its spatial axes; ``Scale`` and ``Bias`` are optional."""

    inputs = ("X", "Scale", "Bias")
    outputs = ("Y", "SavedMean", "SavedVariance")
    attrs = {"epsilon": 1e-5}
    nondiff_outputs = ("SavedMean", "SavedVariance")

    @staticmethod
    def _check(shape):
        if len(shape) < 3:
            raise ShapeError(f"instance_norm: X must be [N, C, *spatial] with at least one "
                             f"spatial axis, got shape {list(shape)}")
        return shape[1]

    def infer(self, x, scale, bias, epsilon):
        c = self._check(x.shape)
        _check_affine("instance_norm", c, scale, bias)
        nc = -1 if min(x.shape[:2]) < 0 else x.shape[0] * c
        return Meta(tuple(x.shape), x.dtype), Meta((nc,), x.dtype), Meta((nc,), x.dtype)

    def forward(self, ctx, x, scale, bias, epsilon):
        c = self._check(x.shape)
        xhat, mean, _, inv_std = _normalise(ctx.xp, x, c, epsilon)
        y = _affine(xhat, scale, bias).astype(x.dtype, copy=False)
        return y, mean.reshape(-1), inv_std.reshape(-1)

    def backward(self, ctx, ins, outs, douts, epsilon):
        x, scale, bias = ins
        c = self._check(x.shape)
        inv_std = outs[2].reshape(x.shape[0], c)
        return _grads(ctx.xp, x, douts[0], scale, bias, c, inv_std, ctx.needs_grad)

"""Normalisation ops: ``batch_norm`` and ``layer_norm``.

Both normalise ``x`` to ``(x - mean) / sqrt(var + epsilon)`` with the *biased* variance and
then scale and shift. ``batch_norm`` takes the statistics per channel over the batch (and the
spatial axes), ``layer_norm`` per sample over the trailing axes from ``begin_norm_axis``.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["batch_norm", "layer_norm"]


def _bn_axes(ndim, data_layout):
    """``(channel axis, reduction axes)`` of a batch_norm input of rank ``ndim``."""
    if ndim < 2:
        raise ShapeError(f"batch_norm: X must have rank >= 2 ([N, C, ...]), got rank {ndim}")
    if data_layout not in ("NCHW", "NHWC"):
        raise ShapeError(f"batch_norm: data_layout must be 'NCHW' or 'NHWC', got "
                         f"{data_layout!r}")
    ch = ndim - 1 if data_layout == "NHWC" else 1
    return ch, tuple(a for a in range(ndim) if a != ch)


def _per_channel(v, ndim, ch):
    """A [C] vector shaped to broadcast along axis ``ch`` of a rank-``ndim`` array."""
    shape = [1] * ndim
    shape[ch] = -1
    return v.reshape(shape)


@register_op
class batch_norm(OpDef):
    """Batch normalisation; training mode uses and folds in the batch statistics.

    ``SavedMean`` is the mean used and ``SavedVariance`` the *inverse* standard deviation
    ``1 / sqrt(var + epsilon)`` (Paddle's convention); the backward pass reads both.
    """

    inputs = ("X", "Scale", "Bias", "Mean", "Variance")
    outputs = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")
    attrs = {"momentum": 0.9, "epsilon": 1e-5, "is_test": False, "data_layout": "NCHW",
             "use_global_stats": False}
    nondiff_inputs = ("Mean", "Variance")
    nondiff_outputs = ("MeanOut", "VarianceOut", "SavedMean", "SavedVariance")

    def infer(self, x, scale, bias, mean, var, momentum, epsilon, is_test, data_layout,
              use_global_stats):
        ch, _ = _bn_axes(len(x.shape), data_layout)
        c = x.shape[ch]
        for name, m in (("Scale", scale), ("Bias", bias), ("Mean", mean), ("Variance", var)):
            if len(m.shape) != 1 or (c >= 0 and m.shape[0] >= 0 and m.shape[0] != c):
                raise ShapeError(f"batch_norm: {name} must have shape [{c}] (the channels of "
                                 f"X {list(x.shape)}), got {list(m.shape)}")
        stat = Meta((c,), mean.dtype)
        return Meta(tuple(x.shape), x.dtype), stat, stat, stat, stat

    def forward(self, ctx, x, scale, bias, mean, var, momentum, epsilon, is_test, data_layout,
                use_global_stats):
        xp = ctx.xp
        ch, axes = _bn_axes(x.ndim, data_layout)
        if is_test or use_global_stats:
            mu, sigma2 = mean, var
            mean_out, var_out = mean.copy(), var.copy()
        else:
            mu = x.mean(axis=axes)
            sigma2 = ((x - _per_channel(mu, x.ndim, ch)) ** 2).mean(axis=axes)
            mean_out = momentum * mean + (1 - momentum) * mu
            var_out = momentum * var + (1 - momentum) * sigma2
        inv_std = 1 / xp.sqrt(sigma2 + epsilon)
        # NOTE: fold scale and shift into one multiply-add per element.
        a = scale * inv_std
        y = x * _per_channel(a.astype(x.dtype), x.ndim, ch) + \
            _per_channel((bias - mu * a).astype(x.dtype), x.ndim, ch)
        sd = mean.dtype
        return (y, mean_out.astype(sd), var_out.astype(sd), mu.astype(sd, copy=True),
                inv_std.astype(sd))

    def backward(self, ctx, ins, outs, douts, momentum, epsilon, is_test, data_layout,
                 use_global_stats):
        x, scale = ins[0], ins[1]
        mu, inv_std = outs[3], outs[4]
        dy = douts[0]
        ch, axes = _bn_axes(x.ndim, data_layout)
        need_x, need_scale, need_bias = ctx.needs_grad[:3]
        xhat = (x - _per_channel(mu, x.ndim, ch)) * _per_channel(inv_std, x.ndim, ch)
        dbias = dy.sum(axis=axes)
        dscale = (dy * xhat).sum(axis=axes)
        dx = None
        if need_x:
            k = _per_channel(scale * inv_std, x.ndim, ch)
            if is_test or use_global_stats:
                dx = dy * k  # the statistics are constants here
            else:
                m = x.size // x.shape[ch]
                dx = k * (dy - _per_channel(dbias / m, x.ndim, ch)
                          - xhat * _per_channel(dscale / m, x.ndim, ch))
        return (dx, dscale if need_scale else None, dbias if need_bias else None, None, None)


def _ln_split(shape, begin_norm_axis):
    if not 1 <= begin_norm_axis < len(shape):
        raise ShapeError(f"layer_norm: begin_norm_axis must be in [1, {len(shape) - 1}] for X "
                         f"of shape {list(shape)}, got {begin_norm_axis}")
    left, right = 1, 1
    for s in shape[:begin_norm_axis]:
        left = -1 if s < 0 or left < 0 else left * s
    for s in shape[begin_norm_axis:]:
        right = -1 if s < 0 or right < 0 else right * s
    return left, right


@register_op
class layer_norm(OpDef):
    """Layer normalisation over the axes from ``begin_norm_axis``; ``Scale`` and ``Bias`` are
    optional flat vectors of the normalised size. ``Mean`` and ``Variance`` (per row) are
    saved for the backward pass."""

    inputs = ("X", "Scale", "Bias")
    outputs = ("Y", "Mean", "Variance")
    attrs = {"begin_norm_axis": 1, "epsilon": 1e-5}
    nondiff_outputs = ("Mean", "Variance")

    def infer(self, x, scale, bias, begin_norm_axis, epsilon):
        left, right = _ln_split(x.shape, begin_norm_axis)
        for name, m in (("Scale", scale), ("Bias", bias)):
            if m is not None and (len(m.shape) != 1 or
                                  (right >= 0 and m.shape[0] >= 0 and m.shape[0] != right)):
                raise ShapeError(f"layer_norm: {name} must have shape [{right}] (X "
                                 f"{list(x.shape)} from axis {begin_norm_axis}), got "
                                 f"{list(m.shape)}")
        return Meta(tuple(x.shape), x.dtype), Meta((left,), x.dtype), Meta((left,), x.dtype)

    def forward(self, ctx, x, scale, bias, begin_norm_axis, epsilon):
        xp = ctx.xp
        left, right = _ln_split(x.shape, begin_norm_axis)
        x2 = x.reshape(left, right)
        mu = x2.mean(axis=1)
        xc = x2 - mu[:, None]
        var = (xc * xc).mean(axis=1)
        y = xc * (1 / xp.sqrt(var + epsilon))[:, None]
        if scale is not None:
            y = y * scale
        if bias is not None:
            y = y + bias
        return y.reshape(x.shape).astype(x.dtype, copy=False), mu, var

    def backward(self, ctx, ins, outs, douts, begin_norm_axis, epsilon):
        xp = ctx.xp
        x, scale, bias = ins
        mu, var = outs[1], outs[2]
        left, right = _ln_split(x.shape, begin_norm_axis)
        dy = douts[0].reshape(left, right)
        inv_std = (1 / xp.sqrt(var + epsilon))[:, None]
        xhat = (x.reshape(left, right) - mu[:, None]) * inv_std
        need_x, need_scale, need_bias = ctx.needs_grad
        dscale = (dy * xhat).sum(axis=0) if need_scale and scale is not None else None
        dbias = dy.sum(axis=0) if need_bias and bias is not None else None
        dx = None
        if need_x:
            g = dy * scale if scale is not None else dy
            dx = inv_std * (g - g.mean(axis=1, keepdims=True)
                            - xhat * (g * xhat).mean(axis=1, keepdims=True))
            dx = dx.reshape(x.shape)
        return dx, dscale, dbias

"""Optimizer update ops: one parameter update per op, with Paddle's formulas.

Each op reads a parameter, its gradient, the learning rate (a 1-element tensor, so a decayed
rate needs no new program) and the optimizer's accumulators, and returns their new values.
Optimizers run them with ``outputs=`` mapping every ``*Out`` slot onto its input tensor, so
the update happens in place in eager mode and writes the persistable variables in static mode.
None of them has a gradient.
"""
from .registry import Meta, OpDef, register_op

__all__ = ["adagrad", "adam", "adamax", "lamb", "momentum", "rmsprop", "sgd"]


def _scalar(a):
    """A 1-element array (shape [1] or []) as a 0-d array of the same module and dtype."""
    return a.reshape(())


class _Update(OpDef):
    differentiable = False

    def infer(self, *metas, **attrs):
        # Each output mirrors the input slot with the same name ('ParamOut' <- 'Param').
        names = list(self.inputs)
        out = [Meta(tuple(metas[names.index(o[:-3])].shape), metas[names.index(o[:-3])].dtype)
               for o in self.outputs]
        return out[0] if len(out) == 1 else out


@register_op
class sgd(_Update):
    """``ParamOut = Param - LearningRate * Grad``."""

    inputs = ("Param", "Grad", "LearningRate")
    outputs = ("ParamOut",)

    def forward(self, ctx, param, grad, lr):
        return param - _scalar(lr).astype(param.dtype) * grad


@register_op
class momentum(_Update):
    """``VelocityOut = mu * Velocity + Grad``; then ``ParamOut = Param - lr * VelocityOut``,
    or with Nesterov ``ParamOut = Param - lr * (Grad + mu * VelocityOut)``."""

    inputs = ("Param", "Grad", "Velocity", "LearningRate")
    outputs = ("ParamOut", "VelocityOut")
    attrs = {"mu": 0.9, "use_nesterov": False}

    def forward(self, ctx, param, grad, velocity, lr, mu, use_nesterov):
        lr = _scalar(lr).astype(param.dtype)
        v_out = velocity * mu + grad
        if use_nesterov:
            p_out = param - (grad + v_out * mu) * lr
        else:
            p_out = param - v_out * lr
        return p_out, v_out


@register_op
class adam(_Update):
    """Adam as Paddle computes it, with the bias corrections folded into the step size::

        Moment1Out = beta1 * Moment1 + (1 - beta1) * Grad
        Moment2Out = beta2 * Moment2 + (1 - beta2) * Grad ** 2
        lr_t       = LearningRate * sqrt(1 - Beta2Pow) / (1 - Beta1Pow)
        ParamOut   = Param - lr_t * Moment1Out / (sqrt(Moment2Out) + epsilon * sqrt(1 - Beta2Pow))
        Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2

    ``Beta1Pow`` / ``Beta2Pow`` start at ``beta1`` / ``beta2`` (the powers for step 1).
    """

    inputs = ("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")
    outputs = ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}

    def forward(self, ctx, param, grad, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon):
        xp = ctx.xp
        dt = param.dtype
        b1, b2 = _scalar(b1p).astype(dt), _scalar(b2p).astype(dt)
        m1_out = m1 * beta1 + grad * (1.0 - beta1)
        m2_out = m2 * beta2 + grad * grad * (1.0 - beta2)
        corr2 = xp.sqrt(1.0 - b2)
        lr_t = _scalar(lr).astype(dt) * corr2 / (1.0 - b1)
        p_out = param - lr_t * (m1_out / (xp.sqrt(m2_out) + epsilon * corr2))
        return p_out, m1_out, m2_out, b1p * beta1, b2p * beta2


@register_op
class adagrad(_Update):
    """``MomentOut = Moment + Grad ** 2``;
    ``ParamOut = Param - LearningRate * Grad / (sqrt(MomentOut) + epsilon)``."""

    inputs = ("Param", "Grad", "Moment", "LearningRate")
    outputs = ("ParamOut", "MomentOut")
    attrs = {"epsilon": 1e-6}

    def forward(self, ctx, param, grad, moment, lr, epsilon):
        m_out = moment + grad * grad
        p_out = param - _scalar(lr).astype(param.dtype) * grad / (ctx.xp.sqrt(m_out) + epsilon)
        return p_out, m_out


@register_op
class adamax(_Update):
    """Adamax as Paddle computes it::

        MomentOut  = beta1 * Moment + (1 - beta1) * Grad
        InfNormOut = max(beta2 * InfNorm + epsilon, |Grad|)
        ParamOut   = Param - LearningRate / (1 - Beta1Pow) * MomentOut / InfNormOut
        Beta1PowOut = Beta1Pow * beta1
    """

    inputs = ("Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow")
    outputs = ("ParamOut", "MomentOut", "InfNormOut", "Beta1PowOut")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}

    def forward(self, ctx, param, grad, lr, moment, inf_norm, b1p, beta1, beta2, epsilon):
        xp = ctx.xp
        dt = param.dtype
        m_out = moment * beta1 + grad * (1.0 - beta1)
        n_out = xp.maximum(inf_norm * beta2 + epsilon, xp.abs(grad))
        lr_t = _scalar(lr).astype(dt) / (1.0 - _scalar(b1p).astype(dt))
        return param - lr_t * (m_out / n_out), m_out, n_out, b1p * beta1


@register_op
class rmsprop(_Update):
    """RMSProp as Paddle computes it::

        MeanSquareOut = rho * MeanSquare + (1 - rho) * Grad ** 2
        MeanGradOut   = rho * MeanGrad + (1 - rho) * Grad           (centered only)
        MomentOut     = momentum * Moment
                        + LearningRate * Grad / sqrt(MeanSquareOut - MeanGradOut ** 2 + epsilon)
        ParamOut      = Param - MomentOut

    (``MeanGradOut ** 2`` is left out when not ``centered``; ``MeanGrad`` is then passed
    through unchanged.)
    """

    inputs = ("Param", "Grad", "MeanSquare", "MeanGrad", "Moment", "LearningRate")
    outputs = ("ParamOut", "MeanSquareOut", "MeanGradOut", "MomentOut")
    attrs = {"rho": 0.95, "epsilon": 1e-6, "momentum": 0.0, "centered": False}

    def forward(self, ctx, param, grad, ms, mg, mom, lr, rho, epsilon, momentum, centered):
        xp = ctx.xp
        ms_out = ms * rho + grad * grad * (1.0 - rho)
        if centered:
            mg_out = mg * rho + grad * (1.0 - rho)
            denom = ms_out - mg_out * mg_out + epsilon
        else:
            mg_out = mg
            denom = ms_out + epsilon
        mom_out = mom * momentum + _scalar(lr).astype(param.dtype) * grad / xp.sqrt(denom)
        return param - mom_out, ms_out, mg_out, mom_out


@register_op
class lamb(_Update):
    """LAMB as Paddle computes it::

        Moment1Out = beta1 * Moment1 + (1 - beta1) * Grad
        Moment2Out = beta2 * Moment2 + (1 - beta2) * Grad ** 2
        r          = (Moment1Out / (1 - Beta1Pow)) / (sqrt(Moment2Out / (1 - Beta2Pow)) + epsilon)
                     + weight_decay * Param
        ratio      = |Param| / |r| (2-norms; 1 when either is 0)
        ParamOut   = Param - LearningRate * ratio * r
        Beta1PowOut = Beta1Pow * beta1, Beta2PowOut = Beta2Pow * beta2
    """

    inputs = ("Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")
    outputs = ("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut")
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "weight_decay": 0.01}

    def forward(self, ctx, param, grad, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon,
                weight_decay):
        xp = ctx.xp
        dt = param.dtype
        m1_out = m1 * beta1 + grad * (1.0 - beta1)
        m2_out = m2 * beta2 + grad * grad * (1.0 - beta2)
        m1_hat = m1_out / (1.0 - _scalar(b1p).astype(dt))
        m2_hat = m2_out / (1.0 - _scalar(b2p).astype(dt))
        r = m1_hat / (xp.sqrt(m2_hat) + epsilon) + param * weight_decay
        p_norm = xp.sqrt((param * param).sum())
        r_norm = xp.sqrt((r * r).sum())
        ratio = xp.where((p_norm > 0) & (r_norm > 0), p_norm / xp.where(r_norm > 0, r_norm, 1),
                         1.0).astype(dt)
        p_out = param - _scalar(lr).astype(dt) * ratio * r
        return p_out.astype(dt, copy=False), m1_out, m2_out, b1p * beta1, b2p * beta2

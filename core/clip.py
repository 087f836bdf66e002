"""Gradient clipping: by value, by each gradient's norm, or by the global norm of all.

A clip object is called with ``[(param, grad)]`` and returns the list with clipped
gradients, built from ordinary ops so the same code serves eager tensors and static
Variables. Parameters created with ``ParamAttr(need_clip=False)`` are left alone.
Names from both API generations: ``GradientClipByGlobalNorm`` (fluid 1.8) and
``ClipGradByGlobalNorm`` (2.0), and likewise for the others.
"""
from .checks import check_positive
from .dispatch import apply

__all__ = [
    "ClipGradByGlobalNorm",
    "ClipGradByNorm",
    "ClipGradByValue",
    "GradientClipBase",
    "GradientClipByGlobalNorm",
    "GradientClipByNorm",
    "GradientClipByValue",
]


def _sum_of_squares(g):
    return apply("square", [g]).sum()


class GradientClipBase:
    """Base class: ``__call__(params_grads)`` returns the clipped ``[(param, grad)]``."""

    def __call__(self, params_grads):
        todo = [(p, g) for p, g in params_grads
                if g is not None and getattr(p, "need_clip", True)]
        if not todo:
            return list(params_grads)
        clipped = dict(zip((id(p) for p, _ in todo), self._clip(todo)))
        return [(p, clipped.get(id(p), g)) for p, g in params_grads]

    def _clip(self, params_grads):
        """The clipped gradients of ``params_grads`` (all of which are to be clipped)."""
        raise NotImplementedError(f"{type(self).__name__} does not define _clip")


class GradientClipByValue(GradientClipBase):
    """Each gradient element clipped to ``[min, max]`` (``min`` defaults to ``-max``)."""

    def __init__(self, max, min=None):
        max = float(max)
        min = -max if min is None else float(min)
        if min > max:
            raise ValueError(f"GradientClipByValue: 'min' ({min}) must not exceed 'max' ({max})")
        self.max, self.min = max, min

    def _clip(self, params_grads):
        return [apply("clip", [g], {"min": self.min, "max": self.max}) for _, g in params_grads]

    def __repr__(self):
        return f"GradientClipByValue(min={self.min}, max={self.max})"


class GradientClipByNorm(GradientClipBase):
    """Each gradient scaled down to L2 norm ``clip_norm`` when its norm exceeds it."""

    def __init__(self, clip_norm):
        self.clip_norm = float(check_positive(clip_norm, "clip_norm", "GradientClipByNorm"))

    def _clip(self, params_grads):
        out = []
        for _, g in params_grads:
            norm = apply("sqrt", [_sum_of_squares(g)])
            scale = self.clip_norm / apply("elementwise_max", [norm, self.clip_norm])
            out.append(g * scale)
        return out

    def __repr__(self):
        return f"GradientClipByNorm(clip_norm={self.clip_norm})"


class GradientClipByGlobalNorm(GradientClipBase):
    """All gradients scaled by ``clip_norm / max(global_norm, clip_norm)``, where
    ``global_norm = sqrt(sum of every gradient's squared L2 norm)``."""

    def __init__(self, clip_norm, group_name="default_group"):
        self.clip_norm = float(check_positive(clip_norm, "clip_norm",
                                                  "GradientClipByGlobalNorm"))
        self.group_name = group_name

    def _clip(self, params_grads):
        total = None
        for _, g in params_grads:
            s = _sum_of_squares(g)
            total = s if total is None else total + s
        norm = apply("sqrt", [total])
        scale = self.clip_norm / apply("elementwise_max", [norm, self.clip_norm])
        return [g * scale for _, g in params_grads]

    def __repr__(self):
        return f"GradientClipByGlobalNorm(clip_norm={self.clip_norm})"


ClipGradByValue = GradientClipByValue
ClipGradByNorm = GradientClipByNorm
ClipGradByGlobalNorm = GradientClipByGlobalNorm

"""Learning-rate schedules (``paddle.optimizer.lr``, 2.0 semantics).

A scheduler is passed as an optimizer's ``learning_rate``. It holds ``last_epoch`` (the
number of :meth:`LRScheduler.step` calls, 0 after construction) and ``last_lr``; the
optimizer reads the rate with ``scheduler()`` at each update and the user advances it with
``scheduler.step()`` (per epoch or per batch, as they choose). Schedules are eager-mode
objects: a static program needs a constant float rate.
"""
import math

from .checks import check_int, check_number, check_positive

__all__ = [
    "CosineAnnealingDecay",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LRScheduler",
    "LambdaDecay",
    "LinearWarmup",
    "MultiStepDecay",
    "NaturalExpDecay",
    "PiecewiseDecay",
    "PolynomialDecay",
    "StepDecay",
]


class LRScheduler:
    """Base class: subclasses define :meth:`get_lr` from ``base_lr`` and ``last_epoch``."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        self.base_lr = float(check_number(learning_rate, "learning_rate", type(self).__name__))
        self.last_epoch = int(last_epoch)
        self.last_lr = self.base_lr
        self.verbose = bool(verbose)
        self.step()

    def __call__(self):
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch=None):
        """Advance one step (or jump to ``epoch``) and recompute the rate."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else int(epoch)
        self.last_lr = float(self.get_lr())
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def get_lr(self):
        """The rate at ``last_epoch``."""
        raise NotImplementedError(f"{type(self).__name__} does not define get_lr")

    def state_dict(self):
        return {"last_epoch": self.last_epoch, "last_lr": self.last_lr}

    def set_state_dict(self, state):
        missing = [k for k in ("last_epoch", "last_lr") if k not in state]
        if missing:
            raise KeyError(f"{type(self).__name__}.set_state_dict: missing keys {missing}")
        self.last_epoch = int(_item(state["last_epoch"]))
        self.last_lr = float(_item(state["last_lr"]))

    set_dict = set_state_dict

    def __repr__(self):
        return f"{type(self).__name__}(last_epoch={self.last_epoch}, last_lr={self.last_lr})"


def _item(v):
    return v.item() if hasattr(v, "item") else v


class StepDecay(LRScheduler):
    """``base_lr * gamma ** (last_epoch // step_size)``."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = check_int(step_size, "step_size", "StepDecay", minimum=1)
        self.gamma = float(check_number(gamma, "gamma", "StepDecay"))
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class MultiStepDecay(LRScheduler):
    """``base_lr * gamma ** (number of milestones <= last_epoch)``."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        milestones = [int(m) for m in milestones]
        if milestones != sorted(milestones):
            raise ValueError(f"MultiStepDecay: 'milestones' must be increasing, got {milestones}")
        self.milestones, self.gamma = milestones, float(gamma)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * self.gamma ** passed


class PiecewiseDecay(LRScheduler):
    """``values[i]`` while ``last_epoch < boundaries[i]``, ``values[-1]`` after the last."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: 'values' needs one more entry than 'boundaries' "
                             f"({len(boundaries)} boundaries), got {len(values)} values")
        self.boundaries = [int(b) for b in boundaries]
        self.values = [float(v) for v in values]
        super().__init__(self.values[0], last_epoch, verbose)

    def get_lr(self):
        for b, v in zip(self.boundaries, self.values):
            if self.last_epoch < b:
                return v
        return self.values[-1]


class ExponentialDecay(LRScheduler):
    """``base_lr * gamma ** last_epoch``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = float(check_positive(gamma, "gamma", "ExponentialDecay"))
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class NaturalExpDecay(LRScheduler):
    """``base_lr * exp(-gamma * last_epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = float(check_number(gamma, "gamma", "NaturalExpDecay"))
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """``base_lr / (1 + gamma * last_epoch)``."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = float(check_number(gamma, "gamma", "InverseTimeDecay"))
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1.0 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """``(base_lr - end_lr) * (1 - t / decay_steps) ** power + end_lr`` with
    ``t = min(last_epoch, decay_steps)``; with ``cycle`` the horizon grows in multiples of
    ``decay_steps`` instead."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps = check_int(decay_steps, "decay_steps", "PolynomialDecay", minimum=1)
        self.end_lr, self.power, self.cycle = float(end_lr), float(power), bool(cycle)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = steps * max(1, math.ceil(t / steps))
        else:
            t = min(t, steps)
        return (self.base_lr - self.end_lr) * (1 - t / steps) ** self.power + self.end_lr


class CosineAnnealingDecay(LRScheduler):
    """``eta_min + (base_lr - eta_min) * (1 + cos(pi * last_epoch / T_max)) / 2``."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = check_int(T_max, "T_max", "CosineAnnealingDecay", minimum=1)
        self.eta_min = float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        cos = math.cos(math.pi * self.last_epoch / self.T_max)
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + cos) / 2


class LinearWarmup(LRScheduler):
    """From ``start_lr`` linearly to ``end_lr`` over ``warmup_steps``, then ``learning_rate``
    (a float, or a scheduler that is stepped from 0 after the warm-up)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, (LRScheduler, int, float)):
            raise TypeError(f"LinearWarmup: 'learning_rate' must be a float or an LRScheduler, "
                            f"got {type(learning_rate).__name__}")
        self.learning_rate = learning_rate
        self.warmup_steps = check_int(warmup_steps, "warmup_steps", "LinearWarmup", minimum=1)
        self.start_lr, self.end_lr = float(start_lr), float(end_lr)
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            frac = self.last_epoch / self.warmup_steps
            return (self.end_lr - self.start_lr) * frac + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return float(self.learning_rate)


class LambdaDecay(LRScheduler):
    """``base_lr * lr_lambda(last_epoch)``."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: 'lr_lambda' must be callable, got "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)

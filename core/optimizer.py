"""Optimizers: ``SGD``, ``Momentum``, ``Adam``, ``Adagrad``, ``Adamax``, ``RMSProp``, ``Lamb``
(also ``SGDOptimizer`` ... for fluid code).

``minimize(loss)`` collects ``(param, grad)`` pairs, clips the gradients (``grad_clip``),
adds weight decay (a parameter's own regularizer, else ``regularization``) — the order
Paddle uses — and applies the optimizer's update op (``core/ops/optimizer.py``) to each
parameter with every output written in place.

* Eager mode: gradients are the ones ``loss.backward()`` accumulated; the update happens now.
* Static mode: ``core.static.backward.append_backward`` adds the gradient ops, then the clip,
  decay and update ops are appended to the loss's program; the learning rate and the
  accumulators are persistable global variables initialised by the startup program. Returns
  ``(optimize_ops, params_grads)``.

Accumulators (Adam's moments, Momentum's velocity) are tensors held by the optimizer, keyed by
parameter name, named ``<param name>_<accumulator>_0`` (``linear_0.w_0_moment1_0``); they
and the learning-rate schedule's state make up :meth:`Optimizer.state_dict`.
"""
import collections
import numbers

import numpy as np

from . import mode as _mode
from . import unique_name
from .autograd import no_grad
from .backend import to_place
from .clip import GradientClipBase
from .dispatch import apply
from .dtypes import dtype_name
from .lr import LRScheduler
from .regularizer import L2Decay, WeightDecayRegularizer, append_regularization
from .static import backward, builder
from .tensor import Parameter, Tensor

__all__ = [
    "SGD",
    "Adagrad",
    "AdagradOptimizer",
    "Adam",
    "AdamOptimizer",
    "Adamax",
    "AdamaxOptimizer",
    "Lamb",
    "LambOptimizer",
    "RMSProp",
    "RMSPropOptimizer",
    "Momentum",
    "MomentumOptimizer",
    "Optimizer",
    "SGDOptimizer",
]

_LR_KEY = "LR_Scheduler"


def _eager_params_of(loss):
    """The trainable eager Parameters the tape of ``loss`` reaches (in first-seen order)."""
    seen, found, stack = set(), [], [loss]
    while stack:
        t = stack.pop()
        if isinstance(t, Parameter):
            if id(t) not in seen:
                seen.add(id(t))
                found.append(t)
            continue
        node = getattr(t, "_node", None)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for v in node.inputs:
            stack.extend(v if isinstance(v, (list, tuple)) else [v])
    return [p for p in found if p.trainable]


class Optimizer:
    """Base class. Subclasses set ``op_type`` and define :meth:`_accumulators_for` and
    :meth:`_update_inputs`."""

    op_type = None

    def __init__(self, learning_rate, parameter_list=None, regularization=None, grad_clip=None,
                 name=None, parameters=None, weight_decay=None):
        who = type(self).__name__
        if isinstance(learning_rate, bool) or not isinstance(learning_rate,
                                                             (numbers.Real, LRScheduler)):
            raise TypeError(f"{who}: 'learning_rate' must be a float or an LRScheduler from "
                            f"core.lr, got {type(learning_rate).__name__}")
        if isinstance(learning_rate, numbers.Real) and learning_rate < 0:
            raise ValueError(f"{who}: 'learning_rate' must be >= 0, got {learning_rate}")
        if regularization is None and weight_decay is not None:
            regularization = L2Decay(weight_decay) if isinstance(weight_decay, numbers.Real) \
                else weight_decay
        if regularization is not None and not isinstance(regularization, WeightDecayRegularizer):
            raise TypeError(f"{who}: 'regularization' must be L1Decay or L2Decay, got "
                            f"{type(regularization).__name__}")
        if grad_clip is not None and not isinstance(grad_clip, GradientClipBase):
            raise TypeError(f"{who}: 'grad_clip' must be a core.clip object such as "
                            f"GradientClipByGlobalNorm, got {type(grad_clip).__name__}")
        params = parameter_list if parameter_list is not None else parameters
        self._learning_rate = learning_rate
        self._parameter_list = list(params) if params is not None else None
        self.regularization = regularization
        self._grad_clip = grad_clip
        self._name = name
        self._accumulators = collections.OrderedDict()  # acc name -> {param name: tensor}
        self._pending = {}  # loaded state for accumulators not created yet
        self._static_lr = {}  # id(program) -> learning-rate Variable

    # -- learning rate ---------------------------------------------------------------------------
    def current_step_lr(self):
        """The learning rate the next update uses (a float)."""
        lr = self._learning_rate
        return float(lr()) if isinstance(lr, LRScheduler) else float(lr)

    get_lr = current_step_lr

    def set_lr(self, value):
        """Replace a float learning rate (not allowed when a schedule drives it)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(f"{type(self).__name__}.set_lr: the learning rate is driven by "
                               f"{type(self._learning_rate).__name__}; step the schedule instead")
        self._learning_rate = float(value)

    def _lr_input(self, param, cache):
        """The learning-rate tensor / Variable for ``param`` (global rate times its factor)."""
        factor = float((getattr(param, "optimize_attr", None) or {}).get("learning_rate", 1.0))
        if _mode.in_dynamic_mode():
            key = (factor, param.dtype.name, param.place)
            if key not in cache:
                value = np.array([self.current_step_lr() * factor], dtype=param.dtype)
                cache[key] = to_place(value, param.place)
            return cache[key]
        lr = self._static_lr_var(param)
        return lr if factor == 1.0 else apply("scale", [lr], {"scale": factor})

    def _static_lr_var(self, param):
        program = param.block.program
        var = self._static_lr.get(id(program))
        if var is None:
            var = builder.create_global_var(name=unique_name.generate("learning_rate"),
                                            shape=[1], dtype="float32",
                                            value=self.current_step_lr(), persistable=True)
            if isinstance(self._learning_rate, LRScheduler):
                # NOTE: as in PaddlePaddle 2: the Executor writes the schedule's current value
                # into this variable before every run; the user calls ``scheduler.step()``.
                builder.register_lr_schedule(program, var.name, self._learning_rate)
            self._static_lr[id(program)] = var
        return var

    # -- accumulators ----------------------------------------------------------------------------
    def _accumulators_for(self, param):
        """``[(accumulator name, fill value, shape or None for the param's shape)]``."""
        return []

    def _get_accumulator(self, acc, param, fill, shape):
        store = self._accumulators.setdefault(acc, collections.OrderedDict())
        t = store.get(param.name)
        if t is not None:
            return t
        name = f"{param.name}_{acc}_0"
        shape = list(param.shape) if shape is None else list(shape)
        if _mode.in_dynamic_mode():
            value = np.full(shape, fill, dtype=param.dtype)
            if name in self._pending:
                value = _checked_value(self._pending.pop(name), name, shape, param.dtype)
            t = Tensor(to_place(value, param.place), name=name, persistable=True)
        else:
            t = builder.create_global_var(name=name, shape=shape, dtype=dtype_name(param.dtype),
                                          value=float(fill), persistable=True)
        store[param.name] = t
        return t

    def _accumulator_inputs(self, param):
        return [self._get_accumulator(a, param, fill, shape)
                for a, fill, shape in self._accumulators_for(param)]

    # -- the update ------------------------------------------------------------------------------
    def _update_attrs(self):
        return {}

    def _update_inputs(self, param, grad, lr, accs):
        """``(inputs, outputs)`` of the update op: one entry per input slot, and the map from
        output slot to the tensor it overwrites."""
        raise NotImplementedError(f"{type(self).__name__} does not define its update")

    def _apply_update(self, param, grad, lr_cache):
        accs = self._accumulator_inputs(param)
        lr = self._lr_input(param, lr_cache)
        inputs, outputs = self._update_inputs(param, grad, lr, accs)
        return apply(self.op_type, inputs, self._update_attrs(), outputs=outputs)

    def _process_grads(self, params_grads):
        params_grads = sorted(params_grads, key=lambda pg: pg[0].name)
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        return append_regularization(params_grads, self.regularization)

    def apply_gradients(self, params_grads):
        """Clip, regularize and apply the updates for ``[(param, grad)]``; returns the list of
        static operators appended (empty in eager mode)."""
        if _mode.in_dynamic_mode():
            with no_grad():
                cache = {}
                for p, g in self._process_grads(params_grads):
                    self._apply_update(p, g, cache)
            return []
        params_grads = self._process_grads(params_grads)
        if not params_grads:
            return []
        block = params_grads[0][0].block.program.global_block()
        start = len(block.ops)
        cache = {}
        for p, g in params_grads:
            self._apply_update(p, g, cache)
        return list(block.ops[start:])

    def _eager_params_grads(self, params):
        pairs = []
        for p in params:
            if not getattr(p, "trainable", True) or p._grad is None:
                continue
            pairs.append((p, Tensor(p._grad)))
        return pairs

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Update the parameters to decrease ``loss``; see the module docstring."""
        params = parameter_list if parameter_list is not None else self._parameter_list
        if _mode.in_dynamic_mode():
            if params is None:
                params = _eager_params_of(loss)
                if not params:
                    raise ValueError(f"{type(self).__name__}.minimize: no parameter_list was "
                                     "given and the loss depends on no trainable parameter")
            self.apply_gradients(self._eager_params_grads(params))
            return [], None
        params_grads = backward.append_backward(loss, params, no_grad_set)
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        with builder.op_role_guard("optimize", loss.block.program):
            return self.apply_gradients(params_grads), params_grads

    def step(self):
        """2.0 spelling: apply the accumulated gradients of ``parameters`` (eager mode)."""
        if not _mode.in_dynamic_mode():
            raise RuntimeError(f"{type(self).__name__}.step() is for eager mode; in a static "
                               "program call minimize(loss)")
        if self._parameter_list is None:
            raise ValueError(f"{type(self).__name__}.step() needs the optimizer to be built with "
                             "parameter_list= (or parameters=)")
        self.apply_gradients(self._eager_params_grads(self._parameter_list))

    def clear_gradients(self):
        """Zero the gradients of the optimizer's parameters."""
        for p in self._parameter_list or []:
            if getattr(p, "trainable", True):
                p.clear_gradient()

    clear_grad = clear_gradients

    # -- state -----------------------------------------------------------------------------------
    def state_dict(self):
        """``{accumulator name: tensor}`` plus, with a schedule, its state under
        ``'LR_Scheduler'`` (a dict of numbers, as Paddle stores it)."""
        state = collections.OrderedDict()
        for store in self._accumulators.values():
            for t in store.values():
                state[t.name] = t
        if isinstance(self._learning_rate, LRScheduler):
            state[_LR_KEY] = self._learning_rate.state_dict()
        return state

    def set_dict(self, state_dict):
        """Load :meth:`state_dict` output. Accumulators not created yet are kept and used when
        they are; a shape mismatch raises an error naming the accumulator."""
        if not hasattr(state_dict, "items"):
            raise TypeError(f"{type(self).__name__}.set_dict: expected a dict, got "
                            f"{type(state_dict).__name__}")
        lr_state = dict(state_dict.get(_LR_KEY, {}))
        rest = {}
        for k, v in state_dict.items():
            if k.startswith(_LR_KEY + "."):
                lr_state[k[len(_LR_KEY) + 1:]] = v
            elif k != _LR_KEY:
                rest[k] = v
        if lr_state and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(lr_state)
        existing = {t.name: t for store in self._accumulators.values() for t in store.values()}
        plan = []
        for k, v in rest.items():
            if k in existing:
                t = existing[k]
                plan.append((t, _checked_value(v, k, t.shape, t.dtype)))
            else:
                self._pending[k] = v
        for t, arr in plan:
            t.set_value(arr)

    set_state_dict = set_dict
    load_state_dict = set_dict


def _checked_value(value, name, shape, dtype):
    arr = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    if list(arr.shape) != list(shape):
        raise ValueError(f"optimizer state '{name}' has shape {list(shape)} but the state dict "
                         f"gives shape {list(arr.shape)}")
    return arr.astype(dtype, copy=False)


class SGD(Optimizer):
    """``param -= lr * grad``."""

    op_type = "sgd"

    def __init__(self, learning_rate=0.001, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)

    def _update_inputs(self, param, grad, lr, accs):
        return [param, grad, lr], {0: param}


class Momentum(Optimizer):
    """``velocity = momentum * velocity + grad``; ``param -= lr * velocity`` (or the Nesterov
    form)."""

    op_type = "momentum"

    def __init__(self, learning_rate=0.001, momentum=0.9, parameter_list=None,
                 use_nesterov=False, regularization=None, grad_clip=None, name=None, **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        self._momentum, self._use_nesterov = float(momentum), bool(use_nesterov)

    def _accumulators_for(self, param):
        return [("velocity", 0.0, None)]

    def _update_attrs(self):
        return {"mu": self._momentum, "use_nesterov": self._use_nesterov}

    def _update_inputs(self, param, grad, lr, accs):
        (velocity,) = accs
        return [param, grad, velocity, lr], {0: param, 1: velocity}


class Adam(Optimizer):
    """Adam with Paddle's formulas (see the ``adam`` op)."""

    op_type = "adam"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 lazy_mode=False, **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        for arg, v in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 <= v < 1.0:
                raise ValueError(f"Adam: '{arg}' must be in [0, 1), got {v}")
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)

    def _accumulators_for(self, param):
        return [("moment1", 0.0, None), ("moment2", 0.0, None),
                ("beta1_pow_acc", self._beta1, [1]), ("beta2_pow_acc", self._beta2, [1])]

    def _update_attrs(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _update_inputs(self, param, grad, lr, accs):
        m1, m2, b1p, b2p = accs
        return [param, grad, lr, m1, m2, b1p, b2p], {0: param, 1: m1, 2: m2, 3: b1p, 4: b2p}


class Adagrad(Optimizer):
    """Adagrad (see the ``adagrad`` op); the squared-gradient sum starts at
    ``initial_accumulator_value``."""

    op_type = "adagrad"

    def __init__(self, learning_rate, epsilon=1e-06, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0, **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        self._epsilon = float(epsilon)
        self._initial = float(initial_accumulator_value)

    def _accumulators_for(self, param):
        return [("moment", self._initial, None)]

    def _update_attrs(self):
        return {"epsilon": self._epsilon}

    def _update_inputs(self, param, grad, lr, accs):
        (moment,) = accs
        return [param, grad, moment, lr], {0: param, 1: moment}


def _check_beta(who, **betas):
    for arg, v in betas.items():
        if not 0.0 <= v < 1.0:
            raise ValueError(f"{who}: '{arg}' must be in [0, 1), got {v}")


class Adamax(Optimizer):
    """Adamax with Paddle's formulas (see the ``adamax`` op)."""

    op_type = "adamax"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        _check_beta("Adamax", beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)

    def _accumulators_for(self, param):
        return [("moment", 0.0, None), ("inf_norm", 0.0, None),
                ("beta1_pow_acc", self._beta1, [1])]

    def _update_attrs(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _update_inputs(self, param, grad, lr, accs):
        m, n, b1p = accs
        return [param, grad, lr, m, n, b1p], {0: param, 1: m, 2: n, 3: b1p}


class RMSProp(Optimizer):
    """RMSProp with Paddle's formulas (see the ``rmsprop`` op)."""

    op_type = "rmsprop"

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        if not 0.0 <= rho < 1.0:
            raise ValueError(f"RMSProp: 'rho' must be in [0, 1), got {rho}")
        if epsilon < 0 or momentum < 0:
            raise ValueError(f"RMSProp: 'epsilon' and 'momentum' must be >= 0, got "
                             f"{epsilon} and {momentum}")
        self._rho, self._epsilon = float(rho), float(epsilon)
        self._momentum, self._centered = float(momentum), bool(centered)

    def _accumulators_for(self, param):
        return [("mean_square", 0.0, None), ("mean_grad", 0.0, None), ("momentum", 0.0, None)]

    def _update_attrs(self):
        return {"rho": self._rho, "epsilon": self._epsilon, "momentum": self._momentum,
                "centered": self._centered}

    def _update_inputs(self, param, grad, lr, accs):
        ms, mg, mom = accs
        return [param, grad, ms, mg, mom, lr], {0: param, 1: ms, 2: mg, 3: mom}


class Lamb(Optimizer):
    """LAMB with Paddle's formulas (see the ``lamb`` op); ``exclude_from_weight_decay_fn``
    (param -> bool) turns the decay off for some parameters."""

    op_type = "lamb"

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None, **kwargs):
        super().__init__(learning_rate, parameter_list, regularization, grad_clip, name,
                         **kwargs)
        _check_beta("Lamb", beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = float(beta1), float(beta2), float(epsilon)
        self._weight_decay = float(lamb_weight_decay)
        self._exclude = exclude_from_weight_decay_fn
        self._current = None

    def _accumulators_for(self, param):
        return [("moment1", 0.0, None), ("moment2", 0.0, None),
                ("beta1_pow_acc", self._beta1, [1]), ("beta2_pow_acc", self._beta2, [1])]

    def _apply_update(self, param, grad, lr_cache):
        self._current = param
        try:
            return super()._apply_update(param, grad, lr_cache)
        finally:
            self._current = None

    def _update_attrs(self):
        decay = self._weight_decay
        if self._exclude is not None and self._current is not None and \
                self._exclude(self._current):
            decay = 0.0
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "weight_decay": decay}

    def _update_inputs(self, param, grad, lr, accs):
        m1, m2, b1p, b2p = accs
        return [param, grad, lr, m1, m2, b1p, b2p], {0: param, 1: m1, 2: m2, 3: b1p, 4: b2p}


SGDOptimizer = SGD
MomentumOptimizer = Momentum
AdamOptimizer = Adam
AdagradOptimizer = Adagrad
AdamaxOptimizer = Adamax
RMSPropOptimizer = RMSProp
LambOptimizer = Lamb

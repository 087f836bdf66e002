"""Normalisation layers: ``BatchNorm`` and ``LayerNorm`` (fluid 1.8 dygraph signatures)."""
import numpy as np

from ..checks import check_choice, check_float_input, check_int, check_number, \
    check_probability
from ..dispatch import apply
from ..initializer import Constant
from ..layers.activation import apply_act
from ..param_attr import ParamAttr
from .functional import first_output
from .layer import Layer

__all__ = ["BatchNorm", "LayerNorm"]


class BatchNorm(Layer):
    """Batch normalisation over the channel axis.

    While training it normalises with the batch's statistics and updates the running mean and
    variance in place (``running = momentum * running + (1 - momentum) * batch``); in
    inference (``eval()``, or ``is_test=True``) it normalises with the running statistics.
    As in Paddle, the running statistics are non-trainable parameters ``_mean`` and
    ``_variance``, so they appear in ``parameters()`` and ``state_dict()``.
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(dtype=dtype)
        check_choice(data_layout, "data_layout", ("NCHW", "NHWC"), "BatchNorm")
        momentum = check_probability(momentum, "momentum", "BatchNorm")
        c = check_int(num_channels, "num_channels", "BatchNorm", minimum=1)
        self._num_channels, self._act, self._is_test = c, act, bool(is_test)
        self._momentum = float(momentum)
        self._epsilon = float(check_number(epsilon, "epsilon", "BatchNorm", minimum=0))
        self._data_layout, self._use_global_stats = data_layout, bool(use_global_stats)
        self.weight = self.create_parameter([c], param_attr, dtype,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([c], bias_attr, dtype, is_bias=True)
        self._mean = self.create_parameter(
            [c], ParamAttr(name=moving_mean_name, initializer=Constant(0.0), trainable=False,
                           do_model_average=do_model_average_for_mean_and_var), dtype)
        self._variance = self.create_parameter(
            [c], ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                           trainable=False,
                           do_model_average=do_model_average_for_mean_and_var), dtype)

    def forward(self, input):
        axis = 1 if self._data_layout == "NCHW" else len(input.shape) - 1
        if len(input.shape) < 2 or input.shape[axis] not in (-1, self._num_channels):
            raise ValueError(f"BatchNorm ({self.full_name()}): expected {self._num_channels} "
                             f"channels on axis {axis} ({self._data_layout}), got input shape "
                             f"{list(input.shape)}")
        check_float_input(input, f"BatchNorm ({self.full_name()})")
        attrs = {"momentum": self._momentum, "epsilon": self._epsilon,
                 "is_test": self._is_test or not self.training,
                 "data_layout": self._data_layout, "use_global_stats": self._use_global_stats}
        out = apply("batch_norm", [input, self.weight, self.bias, self._mean, self._variance],
                    attrs, outputs={1: self._mean, 2: self._variance})
        return apply_act(first_output(out), self._act, "BatchNorm")

    def extra_repr(self):
        return (f"num_channels={self._num_channels}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}")


class LayerNorm(Layer):
    """Normalises over the trailing dims ``normalized_shape``, then an elementwise scale and
    shift (``scale`` / ``shift`` False drop them)."""

    def __init__(self, normalized_shape, scale=True, shift=True, epsilon=1e-05, param_attr=None,
                 bias_attr=None, act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        if not isinstance(normalized_shape, (list, tuple)):
            normalized_shape = [normalized_shape]
        self._shape = [check_int(s, "normalized_shape", "LayerNorm") for s in normalized_shape]
        if not self._shape or min(self._shape) <= 0:
            raise ValueError(f"LayerNorm(): argument 'normalized_shape' must be positive ints, got "
                             f"{normalized_shape}")
        self._epsilon = float(check_number(epsilon, "epsilon", "LayerNorm", minimum=0))
        self._act = act
        n = [int(np.prod(self._shape))]
        self.weight = self.create_parameter(n, param_attr, dtype,
                                            default_initializer=Constant(1.0)) if scale else None
        self.bias = self.create_parameter(n, bias_attr, dtype, is_bias=True) if shift else None

    def forward(self, input):
        shape = list(input.shape)
        k = len(self._shape)
        tail = shape[len(shape) - k:]
        if len(shape) < k or any(a not in (-1, b) for a, b in zip(tail, self._shape)):
            raise ValueError(f"LayerNorm ({self.full_name()}): the input's trailing dims must "
                             f"be {self._shape}, got input shape {shape}")
        check_float_input(input, f"LayerNorm ({self.full_name()})")
        out = apply("layer_norm", [input, self.weight, self.bias],
                    {"begin_norm_axis": len(shape) - k, "epsilon": self._epsilon})
        return apply_act(first_output(out), self._act, "LayerNorm")

    def extra_repr(self):
        return f"normalized_shape={self._shape}, epsilon={self._epsilon}"

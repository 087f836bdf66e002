"""Normalisation layers: ``BatchNorm`` (fluid 1.8, also Paddle 2.x's ``nn.BatchNorm``),
``BatchNorm1D/2D/3D``, ``GroupNorm`` and ``InstanceNorm1D/2D/3D`` (2.x), and ``LayerNorm`` (the
fluid and the 2.x spelling)."""
import numpy as np

from ..checks import check_choice, check_float_input, check_int, check_number, \
    check_probability
from ..dispatch import apply
from ..initializer import Constant
from ..layers.activation import apply_act
from ..param_attr import ParamAttr
from . import functional as F
from .functional import first_output
from .functional.norm import bn_layout
from .layer import Layer
from .spellings import two_spellings

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "GroupNorm",
           "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D", "LayerNorm"]


class BatchNorm(Layer):
    """Batch normalisation over the channel axis.

    While training it normalises with the batch's statistics and updates the running mean and
    variance in place (``running = momentum * running + (1 - momentum) * batch``); in
    inference (``eval()``, or ``is_test=True``) it normalises with the running statistics.
    ``use_global_stats=True`` normalises with the running statistics also while training (and
    leaves them as they are); ``trainable_statistics=True`` uses (and folds in) the batch's
    statistics also in inference. As in Paddle, the running statistics are non-trainable
    parameters ``_mean`` and ``_variance``, so they appear in ``parameters()`` and
    ``state_dict()``.
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype=None, data_layout="NCHW",
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
        self._trainable_statistics = bool(trainable_statistics)
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
        # NOTE: as Paddle's kernel: running statistics when testing without trainable
        # statistics, or always with use_global_stats (the op's is_test then does not matter)
        is_test = (self._is_test or not self.training) and not self._trainable_statistics
        attrs = {"momentum": self._momentum, "epsilon": self._epsilon, "is_test": is_test,
                 "data_layout": self._data_layout, "use_global_stats": self._use_global_stats}
        out = apply("batch_norm", [input, self.weight, self.bias, self._mean, self._variance],
                    attrs, outputs={1: self._mean, 2: self._variance})
        return apply_act(first_output(out), self._act, "BatchNorm")

    def extra_repr(self):
        return (f"num_channels={self._num_channels}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}")


class _BatchNormNd(BatchNorm):
    """The 2.x batch norms: ``(num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
    bias_attr=None, data_format, use_global_stats=None)``, the parameters and running
    statistics of :class:`BatchNorm` (``weight``, ``bias``, ``_mean``, ``_variance``).
    ``weight_attr=False`` / ``bias_attr=False`` keep a fixed scale of 1 / shift of 0.

    ``use_global_stats`` as in Paddle 2.x: None (default) uses the batch's statistics while
    training and the running ones in ``eval()``; True always the running statistics (also
    while training, and they are not updated); False always the batch's statistics (also in
    ``eval()``, where the running statistics are still updated, as Paddle's kernel does)."""

    formats = ()
    ranks = ()

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format=None, use_global_stats=None, name=None):
        api = type(self).__name__
        data_format = self.formats[0] if data_format is None else data_format
        check_choice(data_format, "data_format", self.formats, api)
        if use_global_stats is not None and not isinstance(use_global_stats, bool):
            raise TypeError(f"{api}(): argument 'use_global_stats' must be None, True or False, "
                            f"got {use_global_stats!r}")
        if weight_attr is False:
            weight_attr = ParamAttr(initializer=Constant(1.0), trainable=False)
        if bias_attr is False:
            bias_attr = ParamAttr(initializer=Constant(0.0), trainable=False)
        super().__init__(num_features, momentum=momentum, epsilon=epsilon,
                         param_attr=weight_attr, bias_attr=bias_attr,
                         data_layout=bn_layout(data_format),
                         use_global_stats=bool(use_global_stats),
                         trainable_statistics=use_global_stats is False)
        self._data_format = data_format

    def forward(self, input):
        if len(input.shape) not in self.ranks:
            raise ValueError(f"{type(self).__name__} ({self.full_name()}): expected a "
                             f"{' or '.join(f'{r}-D' for r in self.ranks)} input "
                             f"({self._data_format}), got shape {list(input.shape)}")
        return super().forward(input)


class BatchNorm1D(_BatchNormNd):
    """Batch normalisation of ``[N, C]`` or ``[N, C, L]`` inputs (``NC``/``NCL``/``NLC``)."""

    formats = ("NCL", "NC", "NLC")
    ranks = (2, 3)


class BatchNorm2D(_BatchNormNd):
    """Batch normalisation of NCHW / NHWC images."""

    formats = ("NCHW", "NHWC")
    ranks = (4,)


class BatchNorm3D(_BatchNormNd):
    """Batch normalisation of NCDHW / NDHWC volumes."""

    formats = ("NCDHW", "NDHWC")
    ranks = (5,)


def _affine(layer, n, weight_attr, bias_attr, weight_name="weight"):
    """Per-channel scale (ones) and shift (zeros); an attr of False leaves that one out."""
    weight = None if weight_attr is False else layer.create_parameter(
        [n], weight_attr, default_initializer=Constant(1.0))
    bias = None if bias_attr is False else layer.create_parameter([n], bias_attr, is_bias=True)
    setattr(layer, weight_name, weight)
    layer.bias = bias


class GroupNorm(Layer):
    """Group normalisation (2.x): ``GroupNorm(num_groups, num_channels, epsilon=1e-05,
    weight_attr=None, bias_attr=None, data_format='NCHW')``; ``weight`` / ``bias`` are
    ``[num_channels]``."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__()
        api = "GroupNorm"
        self._groups = check_int(num_groups, "num_groups", api, minimum=1)
        self._channels = check_int(num_channels, "num_channels", api, minimum=1)
        if self._channels % self._groups:
            raise ValueError(f"{api}(): argument 'num_groups'={num_groups} must divide "
                             f"num_channels={num_channels}")
        self._epsilon = float(check_number(epsilon, "epsilon", api, minimum=0))
        check_choice(data_format, "data_format", ("NCHW", "NHWC", "NCL", "NLC", "NCDHW",
                                                  "NDHWC", "NC"), api)
        self._data_format = data_format
        _affine(self, self._channels, weight_attr, bias_attr)

    def forward(self, x):
        axis = len(x.shape) - 1 if self._data_format[-1] == "C" and len(x.shape) > 2 else 1
        if len(x.shape) < 2 or x.shape[axis] not in (-1, self._channels):
            raise ValueError(f"GroupNorm ({self.full_name()}): expected {self._channels} "
                             f"channels on axis {axis}, got input shape {list(x.shape)}")
        return F.group_norm(x, self._groups, self._epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self):
        return f"num_groups={self._groups}, num_channels={self._channels}"


class _InstanceNormNd(Layer):
    """Instance normalisation (2.x): ``(num_features, epsilon=1e-05, momentum=0.9,
    weight_attr=None, bias_attr=None, data_format)``. As in Paddle the per-channel scale is
    the parameter ``scale`` (and ``bias``); ``weight_attr=False`` / ``bias_attr=False`` leave
    them out. ``momentum`` is accepted for compatibility (no running statistics are kept)."""

    formats = ()
    ranks = ()

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format=None, name=None):
        super().__init__()
        api = type(self).__name__
        self._c = check_int(num_features, "num_features", api, minimum=1)
        self._epsilon = float(check_number(epsilon, "epsilon", api, minimum=0))
        data_format = self.formats[0] if data_format is None else data_format
        check_choice(data_format, "data_format", self.formats, api)
        self._data_format = data_format
        _affine(self, self._c, weight_attr, bias_attr, "scale")

    def forward(self, x):
        axis = len(x.shape) - 1 if self._data_format[-1] == "C" else 1
        if len(x.shape) not in self.ranks or x.shape[axis] not in (-1, self._c):
            raise ValueError(f"{type(self).__name__} ({self.full_name()}): expected a "
                             f"{' or '.join(f'{r}-D' for r in self.ranks)} "
                             f"{self._data_format} input with {self._c} channels, got shape "
                             f"{list(x.shape)}")
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._c}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormNd):
    """Instance normalisation of ``[N, C, L]`` inputs."""

    formats, ranks = ("NCL", "NLC"), (3,)


class InstanceNorm2D(_InstanceNormNd):
    """Instance normalisation of NCHW / NHWC images."""

    formats, ranks = ("NCHW", "NHWC"), (4,)


class InstanceNorm3D(_InstanceNormNd):
    """Instance normalisation of NCDHW / NDHWC volumes."""

    formats, ranks = ("NCDHW", "NDHWC"), (5,)


def _layer_norm_call(args, kwargs):
    """``LayerNorm(shape, 1e-6)``: a float second argument is 2.x's ``epsilon``."""
    if len(args) >= 2 and isinstance(args[1], float):
        if "epsilon" in kwargs:
            raise TypeError("LayerNorm(): got 'epsilon' twice (second argument and keyword)")
        kwargs = dict(kwargs, epsilon=args[1])
        if len(args) > 2:
            kwargs.setdefault("param_attr", args[2])
        if len(args) > 3:
            kwargs.setdefault("bias_attr", args[3])
        args = args[:1]
    return args, kwargs


class LayerNorm(Layer):
    """Normalises over the trailing dims ``normalized_shape``, then an elementwise scale and
    shift (``scale`` / ``shift`` False drop them). 2.x spelling: ``LayerNorm(normalized_shape,
    epsilon=1e-05, weight_attr=None, bias_attr=None)`` (``weight_attr=False`` /
    ``bias_attr=False`` drop them)."""

    @two_spellings("LayerNorm", {"weight_attr": "param_attr", "name": None}, _layer_norm_call)
    def __init__(self, normalized_shape, scale=True, shift=True, epsilon=1e-05, param_attr=None,
                 bias_attr=None, act=None, dtype=None):
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

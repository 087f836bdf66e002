"""Convolution and pooling layers: ``Conv2D``, ``Pool2D`` (fluid 1.8 dygraph signatures,
NCHW)."""
from ..checks import check_choice, check_float_input, check_int, check_pair
from ..dispatch import apply
from ..initializer import Normal
from ..layers.activation import apply_act
from ..mode import in_dynamic_mode
from .layer import Layer

__all__ = ["Conv2D", "Pool2D"]


class Conv2D(Layer):
    """2-D convolution of an NCHW input with ``num_filters`` filters of
    ``[num_channels / groups, kh, kw]``, plus a per-filter bias, then ``act``.

    The default weight initializer is Paddle's: ``Normal(0, sqrt(2 / (kh * kw *
    num_channels)))``.
    """

    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        groups = 1 if groups is None else check_int(groups, "groups", "Conv2D", minimum=1)
        num_channels = check_int(num_channels, "num_channels", "Conv2D", minimum=1)
        num_filters = check_int(num_filters, "num_filters", "Conv2D", minimum=1)
        if num_channels % groups or num_filters % groups:
            raise ValueError(f"Conv2D(): argument 'groups'={groups} must divide num_channels="
                             f"{num_channels} and num_filters={num_filters}")
        self._num_channels, self._num_filters, self._groups = num_channels, num_filters, groups
        self._filter_size = check_pair(filter_size, "filter_size", "Conv2D", minimum=1)
        self._stride = check_pair(stride, "stride", "Conv2D", minimum=1)
        self._padding = check_pair(padding, "padding", "Conv2D", minimum=0)
        self._dilation = check_pair(dilation, "dilation", "Conv2D", minimum=1)
        self._act = act
        kh, kw = self._filter_size
        std = (2.0 / (kh * kw * num_channels)) ** 0.5
        self.weight = self.create_parameter([num_filters, num_channels // groups, kh, kw],
                                            param_attr, dtype, is_bias=False,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([num_filters], bias_attr, dtype, is_bias=True)

    def forward(self, input):
        if len(input.shape) != 4 or input.shape[1] not in (-1, self._num_channels):
            raise ValueError(f"Conv2D ({self.full_name()}): expected an NCHW input with "
                             f"{self._num_channels} channels, got shape {list(input.shape)}")
        check_float_input(input, f"Conv2D ({self.full_name()})")
        attrs = {"strides": self._stride, "paddings": self._padding,
                 "dilations": self._dilation, "groups": self._groups}
        if in_dynamic_mode() and self.bias is not None and self._act in (None, "relu"):
            # NOTE: eager only; a static program keeps Paddle's conv2d, elementwise_add, act
            attrs["activation"] = self._act or "identity"
            return apply("conv2d_fusion", [input, self.weight, self.bias], attrs)[0]
        out = apply("conv2d", [input, self.weight], attrs)
        if self.bias is not None:
            out = apply("elementwise_add", [out, self.bias], {"axis": 1})
        return apply_act(out, self._act, "Conv2D")

    def extra_repr(self):
        s = (f"num_channels={self._num_channels}, num_filters={self._num_filters}, "
             f"filter_size={self._filter_size}, stride={self._stride}, padding={self._padding}")
        if self._dilation != [1, 1]:
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + (f", act={self._act}" if self._act else "")


class Pool2D(Layer):
    """Max or average pooling of an NCHW input (``global_pooling`` pools each whole map)."""

    def __init__(self, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
                 global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True,
                 data_format="NCHW"):
        super().__init__()
        check_choice(pool_type, "pool_type", ("max", "avg"), "Pool2D")
        if not global_pooling and pool_size == -1:
            raise ValueError("Pool2D(): argument 'pool_size' must be given unless "
                             "global_pooling=True")
        self._pool_type, self._global = pool_type, bool(global_pooling)
        self._pool_size = check_pair(pool_size, "pool_size", "Pool2D",
                               minimum=None if global_pooling else 1)
        self._stride = check_pair(pool_stride, "pool_stride", "Pool2D", minimum=1)
        self._padding = check_pair(pool_padding, "pool_padding", "Pool2D", minimum=0)
        self._ceil_mode, self._exclusive = bool(ceil_mode), bool(exclusive)
        self._data_format = data_format

    def forward(self, input):
        return apply("pool2d", [input],
                     {"pooling_type": self._pool_type, "ksize": self._pool_size,
                      "strides": self._stride, "paddings": self._padding,
                      "global_pooling": self._global, "ceil_mode": self._ceil_mode,
                      "exclusive": self._exclusive, "data_format": self._data_format})

    def extra_repr(self):
        if self._global:
            return f"pool_type={self._pool_type}, global_pooling=True"
        return (f"pool_size={self._pool_size}, pool_type={self._pool_type}, "
                f"pool_stride={self._stride}, pool_padding={self._padding}")

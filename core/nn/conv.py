"""Convolution layers: ``Conv2D`` (the fluid 1.8 and the 2.x spelling), the 2.x ``Conv1D`` /
``Conv3D`` and transposed ``Conv1DTranspose`` / ``Conv2DTranspose`` / ``Conv3DTranspose``, and
the fluid ``Pool2D``."""
from ..checks import check_choice, check_float_input, check_int, check_pair
from ..dispatch import apply
from ..initializer import Normal, Xavier
from ..layers.activation import apply_act
from ..mode import in_dynamic_mode
from . import functional as F
from .functional.conv import check_tuple, padding_pairs
from .layer import Layer
from .spellings import two_spellings

__all__ = ["Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose",
           "Pool2D"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_PAD_MODE_OF = {"reflect": "reflect", "replicate": "replicate", "circular": "circular"}


def check_padding(padding, n, api, channel_last=False):
    """``padding`` as ``(before, after)`` pairs per spatial axis, or ``'SAME'`` (resolved per
    input in ``forward``)."""
    if isinstance(padding, str):
        key = padding.upper()
        check_choice(key, "padding", ("SAME", "VALID"), api)
        return key if key == "SAME" else [(0, 0)] * n
    return padding_pairs(padding, n, api, channel_last)


def resolve_padding(padding, sizes, kernel, stride, dilation, api):
    """The pairs of a checked ``padding`` for an input whose spatial sizes are ``sizes``."""
    if padding == "SAME":  # NOTE: Paddle computes SAME pads with (and runs at) dilation 1
        return padding_pairs("SAME", len(kernel), api, sizes=sizes, kernel=kernel,
                             stride=stride, dilation=[1] * len(kernel))
    return padding


def _conv_std(kernel, in_channels):
    size = in_channels
    for k in kernel:
        size *= k
    return (2.0 / size) ** 0.5


class Conv2D(Layer):
    """2-D convolution of an NCHW (or NHWC) input with ``num_filters`` filters of
    ``[num_channels / groups, kh, kw]``, plus a per-filter bias, then ``act``.

    The default weight initializer is Paddle's: ``Normal(0, sqrt(2 / (kh * kw *
    num_channels)))``. 2.x spelling: ``Conv2D(in_channels, out_channels, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, padding_mode='zeros', weight_attr=None,
    bias_attr=None, data_format='NCHW')``; ``padding`` also takes ``'SAME'`` / ``'VALID'``,
    four ints ``[top, bottom, left, right]`` or per-axis pairs.
    """

    @two_spellings("Conv2D", {"in_channels": "num_channels", "out_channels": "num_filters",
                              "kernel_size": "filter_size", "weight_attr": "param_attr",
                              "name": None})
    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype="float32", *, padding_mode="zeros", data_format="NCHW"):
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
        if isinstance(padding, str) or (isinstance(padding, (list, tuple)) and len(padding) != 2):
            self._padding = check_padding(padding, 2, "Conv2D", data_format == "NHWC")
        else:
            self._padding = check_pair(padding, "padding", "Conv2D", minimum=0)
        self._dilation = check_pair(dilation, "dilation", "Conv2D", minimum=1)
        check_choice(padding_mode, "padding_mode", _PADDING_MODES, "Conv2D")
        check_choice(data_format, "data_format", ("NCHW", "NHWC"), "Conv2D")
        self._padding_mode, self._data_format = padding_mode, data_format
        self._act = act
        kh, kw = self._filter_size
        std = (2.0 / (kh * kw * num_channels)) ** 0.5
        self.weight = self.create_parameter([num_filters, num_channels // groups, kh, kw],
                                            param_attr, dtype, is_bias=False,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([num_filters], bias_attr, dtype, is_bias=True)

    def _paddings(self, input):
        """The op's ``paddings`` for this input (after any ``padding_mode`` padding)."""
        last = self._data_format == "NHWC"
        if all(isinstance(p, int) for p in self._padding):
            pairs = [(p, p) for p in self._padding]
        else:
            sizes = list(input.shape[1:3] if last else input.shape[2:4])
            pairs = resolve_padding(self._padding, sizes, self._filter_size, self._stride,
                                    self._dilation, "Conv2D")
        if self._padding_mode == "zeros":
            return input, [v for p in pairs for v in p]
        pad = [pairs[1][0], pairs[1][1], pairs[0][0], pairs[0][1]]
        input = F.pad(input, pad, mode=_PAD_MODE_OF[self._padding_mode],
                      data_format=self._data_format)
        return input, [0, 0, 0, 0]

    def forward(self, input):
        axis = 3 if self._data_format == "NHWC" else 1
        if len(input.shape) != 4 or input.shape[axis] not in (-1, self._num_channels):
            raise ValueError(f"Conv2D ({self.full_name()}): expected an {self._data_format} "
                             f"input with {self._num_channels} channels, got shape "
                             f"{list(input.shape)}")
        check_float_input(input, f"Conv2D ({self.full_name()})")
        input, paddings = self._paddings(input)
        dilation = [1, 1] if self._padding == "SAME" else self._dilation
        attrs = {"strides": self._stride, "paddings": paddings,
                 "dilations": dilation, "groups": self._groups,
                 "data_format": self._data_format}
        if in_dynamic_mode() and self.bias is not None and self._act in (None, "relu"):
            # NOTE: eager only; a static program keeps Paddle's conv2d, elementwise_add, act
            attrs["activation"] = self._act or "identity"
            return apply("conv2d_fusion", [input, self.weight, self.bias], attrs)[0]
        out = apply("conv2d", [input, self.weight], attrs)
        if self.bias is not None:
            out = apply("elementwise_add", [out, self.bias], {"axis": axis})
        return apply_act(out, self._act, "Conv2D")

    def extra_repr(self):
        s = (f"num_channels={self._num_channels}, num_filters={self._num_filters}, "
             f"filter_size={self._filter_size}, stride={self._stride}, padding={self._padding}")
        if self._dilation != [1, 1]:
            s += f", dilation={self._dilation}"
        if self._groups != 1:
            s += f", groups={self._groups}"
        return s + (f", act={self._act}" if self._act else "")


class _ConvNd(Layer):
    """The 2.x convolutions other than ``Conv2D``: ``nd`` spatial axes, transposed or not.
    ``weight`` is ``[out, in / groups, *k]`` (``[in, out / groups, *k]`` when transposed),
    ``bias`` ``[out]`` (zeros). The default weight initializer is Paddle's: ``Normal(0,
    sqrt(2 / (prod(k) * in)))``, and Xavier for the transposed ones."""

    nd = 1
    transposed = False
    fn = None
    formats = ()

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None, output_padding=0):
        super().__init__()
        api = type(self).__name__
        self._in = check_int(in_channels, "in_channels", api, minimum=1)
        self._out = check_int(out_channels, "out_channels", api, minimum=1)
        self._groups = check_int(groups, "groups", api, minimum=1)
        if self._in % self._groups or self._out % self._groups:
            raise ValueError(f"{api}(): argument 'groups'={groups} must divide in_channels="
                             f"{self._in} and out_channels={self._out}")
        n = self.nd
        self._kernel = check_tuple(kernel_size, n, "kernel_size", api, minimum=1)
        self._stride = check_tuple(stride, n, "stride", api, minimum=1)
        self._dilation = check_tuple(dilation, n, "dilation", api, minimum=1)
        self._output_padding = check_tuple(output_padding, n, "output_padding", api, minimum=0)
        data_format = self.formats[0] if data_format is None else data_format
        check_choice(data_format, "data_format", self.formats, api)
        self._data_format = data_format
        self._padding = check_padding(padding, n, api, data_format[-1] == "C")
        check_choice(padding_mode, "padding_mode", _PADDING_MODES, api)
        if padding_mode != "zeros" and self.transposed:
            raise ValueError(f"{api}(): argument 'padding_mode' must be 'zeros' for a "
                             f"transposed convolution, got {padding_mode!r}")
        self._padding_mode = padding_mode
        if self.transposed:
            shape = [self._in, self._out // self._groups] + self._kernel
            init = Xavier()
        else:
            shape = [self._out, self._in // self._groups] + self._kernel
            init = Normal(0.0, _conv_std(self._kernel, self._in))
        self.weight = self.create_parameter(shape, weight_attr, default_initializer=init)
        self.bias = self.create_parameter([self._out], bias_attr, is_bias=True)

    def _check_input(self, x):
        axis = len(x.shape) - 1 if self._data_format[-1] == "C" else 1
        if len(x.shape) != self.nd + 2 or x.shape[axis] not in (-1, self._in):
            raise ValueError(f"{type(self).__name__} ({self.full_name()}): expected an "
                             f"{self._data_format} input with {self._in} channels, got shape "
                             f"{list(x.shape)}")

    def forward(self, x, output_size=None):
        self._check_input(x)
        padding = self._padding
        dilation = [1] * self.nd if padding == "SAME" else self._dilation
        if padding != "SAME":
            padding = [v for pair in padding for v in pair]
        if self.transposed:
            return type(self).fn(x, self.weight, self.bias, self._stride, padding,
                                 self._output_padding, self._groups, self._dilation,
                                 output_size, self._data_format)
        if self._padding_mode != "zeros":
            last = self._data_format[-1] == "C"
            sizes = list(x.shape[1:self.nd + 1] if last else x.shape[2:])
            pairs = resolve_padding(self._padding, sizes, self._kernel, self._stride, dilation,
                                    type(self).__name__)
            pad = [v for pr in reversed(pairs) for v in pr]
            x = F.pad(x, pad, mode=_PAD_MODE_OF[self._padding_mode],
                      data_format=self._data_format)
            padding = 0
        return type(self).fn(x, self.weight, self.bias, self._stride, padding, dilation,
                             self._groups, self._data_format)

    def extra_repr(self):
        return (f"{self._in}, {self._out}, kernel_size={self._kernel}, stride={self._stride}, "
                f"padding={self._padding}, data_format={self._data_format}")


class Conv1D(_ConvNd):
    """1-D convolution (2.x), NCL or NLC; ``weight`` ``[out, in / groups, k]``."""

    nd, fn, formats = 1, staticmethod(F.conv1d), ("NCL", "NLC")

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL", name=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class Conv3D(_ConvNd):
    """3-D convolution (2.x), NCDHW or NDHWC; ``weight`` ``[out, in / groups, kd, kh, kw]``."""

    nd, fn, formats = 3, staticmethod(F.conv3d), ("NCDHW", "NDHWC")

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW", name=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format=None, name=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, "zeros", weight_attr, bias_attr, data_format, output_padding)


class Conv1DTranspose(_ConvTransposeNd):
    """1-D transposed convolution (2.x); ``weight`` ``[in, out / groups, k]``;
    ``forward(x, output_size=None)``."""

    nd, fn, formats = 1, staticmethod(F.conv1d_transpose), ("NCL", "NLC")


class Conv2DTranspose(_ConvTransposeNd):
    """2-D transposed convolution (2.x): ``Conv2DTranspose(in_channels, out_channels,
    kernel_size, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
    weight_attr=None, bias_attr=None, data_format='NCHW')``; ``weight`` ``[in, out / groups,
    kh, kw]``; ``forward(x, output_size=None)``."""

    nd, fn, formats = 2, staticmethod(F.conv2d_transpose), ("NCHW", "NHWC")


class Conv3DTranspose(_ConvTransposeNd):
    """3-D transposed convolution (2.x); ``weight`` ``[in, out / groups, kd, kh, kw]``;
    ``forward(x, output_size=None)``."""

    nd, fn, formats = 3, staticmethod(F.conv3d_transpose), ("NCDHW", "NDHWC")


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

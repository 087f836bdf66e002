"""Pooling layers (2.x): ``MaxPool1D/2D/3D``, ``AvgPool1D/2D/3D``, ``AdaptiveAvgPool1D/2D``,
``AdaptiveMaxPool1D/2D``. Each holds its arguments (checked when built) and calls the
function of the same name in :mod:`core.nn.functional`."""
from ..checks import check_bool, check_choice
from . import functional as F
from .functional.conv import check_tuple
from .layer import Layer

__all__ = [
    "AdaptiveAvgPool1D",
    "AdaptiveAvgPool2D",
    "AdaptiveMaxPool1D",
    "AdaptiveMaxPool2D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
]


class _Pool(Layer):
    fn = None
    nd = 2

    def __init__(self, kernel_size, stride=None, padding=0, **kwargs):
        super().__init__()
        api = type(self).__name__
        check_tuple(kernel_size, self.nd, "kernel_size", api, minimum=1)
        if stride is not None:
            check_tuple(stride, self.nd, "stride", api, minimum=1)
        if kwargs.get("return_mask"):
            raise ValueError(f"{api}(): return_mask=True (the argmax indices) is not supported; "
                             "pass return_mask=False")
        if "data_format" in kwargs:
            formats = ("NCDHW", "NDHWC") if self.nd == 3 else ("NCHW", "NHWC")
            check_choice(kwargs["data_format"], "data_format", formats, api)
        check_bool(kwargs.get("ceil_mode", False), "ceil_mode", api)
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding, **kwargs)

    def forward(self, x):
        return type(self).fn(x, **self._args)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._args.items() if v is not None)


class MaxPool2D(_Pool):
    """Max pooling over ``kernel_size`` windows (``stride`` defaults to ``kernel_size``)."""

    fn = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class AvgPool2D(_Pool):
    """Average pooling; ``exclusive`` leaves the padding out of each window's divisor."""

    fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive,
                         divisor_override=divisor_override, data_format=data_format)


class MaxPool3D(_Pool):
    """Max pooling of an NCDHW / NDHWC volume (``stride`` defaults to ``kernel_size``)."""

    fn = staticmethod(F.max_pool3d)
    nd = 3

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class AvgPool3D(_Pool):
    """Average pooling of an NCDHW / NDHWC volume."""

    fn = staticmethod(F.avg_pool3d)
    nd = 3

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode, exclusive=exclusive,
                         divisor_override=divisor_override, data_format=data_format)


class MaxPool1D(_Pool):
    """Max pooling of an ``[N, C, L]`` input."""

    fn = staticmethod(F.max_pool1d)
    nd = 1

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask=return_mask,
                         ceil_mode=ceil_mode)


class AvgPool1D(_Pool):
    """Average pooling of an ``[N, C, L]`` input."""

    fn = staticmethod(F.avg_pool1d)
    nd = 1

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, exclusive=exclusive, ceil_mode=ceil_mode)


class _Adaptive(Layer):
    fn = None

    def __init__(self, output_size, **kwargs):
        super().__init__()
        api = type(self).__name__
        if kwargs.get("return_mask"):
            raise ValueError(f"{api}(): return_mask=True (the argmax indices) is not supported; "
                             "pass return_mask=False")
        if "data_format" in kwargs:
            check_choice(kwargs["data_format"], "data_format", ("NCHW", "NHWC"), api)
        sizes = output_size if isinstance(output_size, (list, tuple)) else [output_size]
        check_tuple([1 if s is None else s for s in sizes], len(sizes), "output_size", api,
                    minimum=1)
        self._args = dict(output_size=output_size, **kwargs)

    def forward(self, x):
        return type(self).fn(x, **self._args)

    def extra_repr(self):
        return f"output_size={self._args['output_size']}"


class AdaptiveAvgPool2D(_Adaptive):
    """Average pooling to a fixed ``output_size`` (an int or a pair; None keeps that size)."""

    fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size, data_format=data_format)


class AdaptiveMaxPool2D(_Adaptive):
    """Max pooling to a fixed ``output_size`` (an int or a pair; None keeps that size)."""

    fn = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)


class AdaptiveAvgPool1D(_Adaptive):
    """Average pooling of an ``[N, C, L]`` input to ``output_size`` positions."""

    fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size, name=None):
        super().__init__(output_size)


class AdaptiveMaxPool1D(_Adaptive):
    """Max pooling of an ``[N, C, L]`` input to ``output_size`` positions."""

    fn = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask=return_mask)

"""Pooling (2.x spellings): max / average pooling over fixed windows (1-D, 2-D, 3-D) and
adaptive pooling to a fixed output size (1-D, 2-D). 1-D and 2-D pools run the ``pool2d`` op (a
1-D pool is a 2-D pool of the input viewed with a height of 1), 3-D ones ``pool3d``."""
from ...checks import check_choice, check_int
from ...dispatch import apply
from .conv import check_tuple, padding_pairs

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
]


def _no_mask(return_mask, api):
    if return_mask:
        raise ValueError(f"{api}(): return_mask=True (the argmax indices) is not supported; "
                         "pass return_mask=False")


_POOL_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _pool(x, kind, kernel_size, stride, padding, ceil_mode, exclusive, data_format, api, d):
    """A ``d``-D (2 or 3) max or average pool: the ``pool2d`` / ``pool3d`` op."""
    check_choice(data_format, "data_format", _POOL_FORMATS[d], api)
    if len(x.shape) != d + 2:
        raise ValueError(f"{api}(): argument 'x' must be {d + 2}-D ({data_format}), got shape "
                         f"{list(x.shape)}")
    ksize = check_tuple(kernel_size, d, "kernel_size", api, minimum=1)
    strides = ksize if stride is None else check_tuple(stride, d, "stride", api, minimum=1)
    last = data_format[-1] == "C"
    sizes = list(x.shape[1:d + 1] if last else x.shape[2:d + 2])
    pads = padding_pairs(padding, d, api, last, sizes, ksize, strides)
    return apply(f"pool{d}d", [x], {"pooling_type": kind, "ksize": ksize, "strides": strides,
                                    "paddings": [v for p in pads for v in p],
                                    "global_pooling": False, "ceil_mode": bool(ceil_mode),
                                    "exclusive": bool(exclusive), "data_format": data_format})


def _pool2d(*args):
    return _pool(*args, 2)


def _pool3d(*args):
    return _pool(*args, 3)


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCDHW", name=None):
    """Max pooling of an NCDHW (or NDHWC) volume; ``stride`` defaults to ``kernel_size``."""
    _no_mask(return_mask, "max_pool3d")
    return _pool3d(x, "max", kernel_size, stride, padding, ceil_mode, True, data_format,
                   "max_pool3d")


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """Average pooling of an NCDHW (or NDHWC) volume."""
    api = "avg_pool3d"
    if divisor_override is None:
        return _pool3d(x, "avg", kernel_size, stride, padding, ceil_mode, exclusive,
                       data_format, api)
    div = check_int(divisor_override, "divisor_override", api, minimum=1)
    kd, kh, kw = check_tuple(kernel_size, 3, "kernel_size", api, minimum=1)
    out = _pool3d(x, "avg", kernel_size, stride, padding, ceil_mode, False, data_format, api)
    return out * (kd * kh * kw / div)


def _as_2d(x, api):
    if len(x.shape) != 3:
        raise ValueError(f"{api}(): argument 'x' must be 3-D [N, C, L], got shape "
                         f"{list(x.shape)}")
    return apply("unsqueeze", [x], {"axes": [2]})


def _from_2d(out):
    return apply("squeeze", [out], {"axes": [2]})


def _one(value, arg, api, default=None):
    if value is None:
        return default
    return [1] + check_tuple(value, 1, arg, api, minimum=1)


def _pad1d(padding, api):
    if isinstance(padding, str):
        return padding
    (lo, hi), = padding_pairs(padding, 1, api)
    return [0, 0, lo, hi]


def max_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, return_mask=False,
               data_format="NCHW", name=None):
    """Max pooling; ``stride`` defaults to ``kernel_size``."""
    _no_mask(return_mask, "max_pool2d")
    return _pool2d(x, "max", kernel_size, stride, padding, ceil_mode, True, data_format,
                   "max_pool2d")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Average pooling; ``exclusive`` leaves padding out of the divisor; ``divisor_override``
    divides every window's sum by that number instead."""
    api = "avg_pool2d"
    if divisor_override is None:
        return _pool2d(x, "avg", kernel_size, stride, padding, ceil_mode, exclusive,
                       data_format, api)
    div = check_int(divisor_override, "divisor_override", api, minimum=1)
    kh, kw = check_tuple(kernel_size, 2, "kernel_size", api, minimum=1)
    out = _pool2d(x, "avg", kernel_size, stride, padding, ceil_mode, False, data_format, api)
    return out * (kh * kw / div)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Max pooling of an ``[N, C, L]`` input."""
    api = "max_pool1d"
    _no_mask(return_mask, api)
    k = _one(kernel_size, "kernel_size", api)
    out = _pool2d(_as_2d(x, api), "max", k, _one(stride, "stride", api, k), _pad1d(padding, api),
                  ceil_mode, True, "NCHW", api)
    return _from_2d(out)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Average pooling of an ``[N, C, L]`` input."""
    api = "avg_pool1d"
    k = _one(kernel_size, "kernel_size", api)
    out = _pool2d(_as_2d(x, api), "avg", k, _one(stride, "stride", api, k), _pad1d(padding, api),
                  ceil_mode, exclusive, "NCHW", api)
    return _from_2d(out)


def _adaptive_size(output_size, sizes, api):
    """``output_size`` (an int or a pair; ``None`` keeps that input size) as two ints."""
    if not isinstance(output_size, (list, tuple)):
        output_size = [output_size, output_size]
    if len(output_size) != 2:
        raise ValueError(f"{api}(): argument 'output_size' must be an int or a pair, got "
                         f"{output_size!r}")
    out = []
    for v, size in zip(output_size, sizes):
        if v is None:
            if size < 0:
                raise ValueError(f"{api}(): output_size None keeps the input's size, which is "
                                 "unknown here; give the size")
            v = size
        out.append(check_int(v, "output_size", api, minimum=1))
    return out


def _adaptive(x, kind, output_size, data_format, api):
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    if len(x.shape) != 4:
        raise ValueError(f"{api}(): argument 'x' must be 4-D ({data_format}), got shape "
                         f"{list(x.shape)}")
    sizes = list(x.shape[1:3] if data_format == "NHWC" else x.shape[2:4])
    return apply("pool2d", [x], {"pooling_type": kind,
                                 "ksize": _adaptive_size(output_size, sizes, api),
                                 "adaptive": True, "data_format": data_format})


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average pooling to a fixed ``output_size`` (int or pair)."""
    return _adaptive(x, "avg", output_size, data_format, "adaptive_avg_pool2d")


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Max pooling of an NCHW ``x`` to a fixed ``output_size`` (int or pair)."""
    _no_mask(return_mask, "adaptive_max_pool2d")
    return _adaptive(x, "max", output_size, "NCHW", "adaptive_max_pool2d")


def adaptive_avg_pool1d(x, output_size, name=None):
    """Average pooling of an ``[N, C, L]`` input to ``output_size`` positions."""
    api = "adaptive_avg_pool1d"
    size = check_int(output_size, "output_size", api, minimum=1)
    return _from_2d(_adaptive(_as_2d(x, api), "avg", [1, size], "NCHW", api))


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Max pooling of an ``[N, C, L]`` input to ``output_size`` positions."""
    api = "adaptive_max_pool1d"
    _no_mask(return_mask, api)
    size = check_int(output_size, "output_size", api, minimum=1)
    return _from_2d(_adaptive(_as_2d(x, api), "max", [1, size], "NCHW", api))

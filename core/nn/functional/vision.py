"""Resizing and video functions (2.x spellings): ``interpolate`` / ``upsample`` (nearest,
linear, bilinear, trilinear, bicubic, and ``area`` as adaptive average pooling),
``pixel_shuffle`` and ``temporal_shift``."""
from ...checks import check_bool, check_choice, check_int, check_number
from ...dispatch import apply
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

__all__ = ["interpolate", "pixel_shuffle", "temporal_shift", "upsample"]

_MODES = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "trilinear": (5,),
          "bicubic": (4,), "area": (3, 4)}
_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_ALIASES = {"NCL": "NCW", "NLC": "NWC"}


def _sizes(x, size, scale_factor, n, last, api):
    """``(out_shape, scale)``: the output's spatial sizes and the op's ``scale`` list."""
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{api}(): give exactly one of 'size' and 'scale_factor'")
    in_sizes = list(x.shape[1:n + 1] if last else x.shape[2:])
    if size is not None:
        if hasattr(size, "numpy") and not hasattr(size, "block"):
            size = size.numpy().tolist()
        size = size if isinstance(size, (list, tuple)) else [size] * n
        if len(size) != n:
            raise ValueError(f"{api}(): argument 'size' must have {n} entries for a "
                             f"{n + 2}-D input, got {list(size)}")
        return [check_int(s, "size", api, minimum=1, tensor=True) for s in size], []
    scales = scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor] * n
    if len(scales) != n:
        raise ValueError(f"{api}(): argument 'scale_factor' must have {n} entries for a "
                         f"{n + 2}-D input, got {list(scales)}")
    scales = [float(check_number(s, "scale_factor", api)) for s in scales]
    if min(scales) <= 0:
        raise ValueError(f"{api}(): argument 'scale_factor' must be > 0, got {scales}")
    if min(in_sizes) < 0:
        raise ValueError(f"{api}(): 'scale_factor' needs the input's spatial sizes, which are "
                         f"unknown here ({in_sizes}); give 'size'")
    return [int(s * f) for s, f in zip(in_sizes, scales)], scales


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format="NCHW", name=None):
    """Resizes the spatial axes of ``x`` to ``size`` (or by ``scale_factor``) with ``mode``,
    following Paddle's ``align_corners`` / ``align_mode`` rules."""
    api = "interpolate"
    check_choice(mode, "mode", tuple(_MODES), api)
    align_corners = check_bool(align_corners, "align_corners", api)
    align_mode = check_int(align_mode, "align_mode", api)
    rank = len(x.shape)
    if rank not in _MODES[mode]:
        raise ValueError(f"{api}(): mode={mode!r} needs a "
                         f"{' or '.join(f'{r}-D' for r in _MODES[mode])} input, got shape "
                         f"{list(x.shape)}")
    data_format = _ALIASES.get(data_format, data_format)
    if data_format not in _FORMATS[rank]:
        # NOTE: Paddle's default 'NCHW' is read by its channel position for 3-D / 5-D inputs
        if data_format in ("NCHW", "NHWC", "NCDHW", "NDHWC", "NCW", "NWC"):
            data_format = _FORMATS[rank][0 if data_format[1] == "C" else 1]
        check_choice(data_format, "data_format", _FORMATS[rank], api)
    last = data_format[-1] == "C"
    n = rank - 2
    out_shape, scale = _sizes(x, size, scale_factor, n, last, api)
    if mode == "area":
        if last:
            raise ValueError(f"{api}(): mode='area' needs a channels-first input")
        if n == 1:
            return adaptive_avg_pool1d(x, out_shape[0])
        return adaptive_avg_pool2d(x, out_shape)
    if align_corners and mode == "nearest":
        raise ValueError(f"{api}(): align_corners=True is not defined for mode='nearest'")
    return apply("interpolate", [x], {"interp_method": mode, "out_shape": out_shape,
                                      "scale": scale, "align_corners": align_corners,
                                      "align_mode": align_mode, "data_format": data_format})


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format="NCHW", name=None):
    """The same function as :func:`interpolate`."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def temporal_shift(x, seg_num, shift_ratio=0.25, data_format="NCHW", name=None):
    """TSM's shift of ``x`` ``[N * seg_num, C, H, W]``: the first ``shift_ratio`` of the
    channels take the previous segment's values, the next ``shift_ratio`` the next one's."""
    api = "temporal_shift"
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    ratio = float(check_number(shift_ratio, "shift_ratio", api, minimum=0))
    if ratio > 0.5:
        raise ValueError(f"{api}(): argument 'shift_ratio' must be in [0, 0.5], got {ratio}")
    return apply("temporal_shift", [x], {"seg_num": check_int(seg_num, "seg_num", api,
                                                              minimum=1),
                                         "shift_ratio": ratio, "data_format": data_format})


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearranges ``x`` ``[N, C * r * r, H, W]`` into ``[N, C, H * r, W * r]`` with
    ``r = upscale_factor`` (ESPCN's sub-pixel convolution output):
    ``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]``; NHWC keeps the
    channels last."""
    api = "pixel_shuffle"
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    r = check_int(upscale_factor, "upscale_factor", api, minimum=1)
    if len(x.shape) != 4:
        raise ValueError(f"{api}(): argument 'x' must be a 4-D tensor, got shape "
                         f"{list(x.shape)}")
    c = x.shape[3] if data_format == "NHWC" else x.shape[1]
    if c >= 0 and c % (r * r):
        raise ValueError(f"{api}(): the channel dim of argument 'x' ({c}) must be divisible by "
                         f"upscale_factor ** 2 ({r * r})")
    return apply("pixel_shuffle", [x], {"upscale_factor": r, "data_format": data_format})

"""Functional API: the vision layers of GAN, video and detection models
(``paddle.fluid.layers`` signatures, with 2.x keyword spellings where cheap).

``conv2d_transpose``, ``conv3d``, ``conv3d_transpose``, ``pool3d``, the ``resize_*`` family
and ``image_resize``, ``interpolate`` (2.x semantics: a scale factor sets the sampling ratio),
``pad2d`` and ``spatial_pad`` (2.x ``F.pad`` order), ``pixel_shuffle``, ``temporal_shift``,
``yolov3_loss``, ``yolo_box``, ``instance_norm`` and ``group_norm``. Each checks its arguments
first; errors name the function, the argument, what was expected and what came.
"""
import math

from .. import unique_name
from ..checks import (FLOATS, check_bool, check_choice, check_int, check_number,
                      check_variable, is_int, same_padding)
from ..dispatch import apply
from ..dtypes import dtype_name
from ..initializer import Constant, Normal
from ..parameter import create_parameter
from .activation import apply_act

__all__ = ["conv2d_transpose", "conv3d", "conv3d_transpose", "group_norm", "image_resize",
           "instance_norm", "interpolate", "pad2d", "pixel_shuffle", "pool3d", "resize_bicubic",
           "resize_bilinear", "resize_linear", "resize_nearest", "resize_trilinear",
           "spatial_pad", "temporal_shift", "yolo_box", "yolov3_loss"]


def _ints(value, n, arg, api, minimum=None):
    """An int or a list / tuple of ``n`` ints as a list of ``n`` Python ints."""
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{api}(): argument '{arg}' must be an int or {n} ints, got "
                             f"{list(value)}")
        return [check_int(v, arg, api, minimum, integral_float=False) for v in value]
    return [check_int(value, arg, api, minimum, integral_float=False)] * n


def _pads(value, d, arg, api, spatial=None, kernel=None, strides=None):
    """Paddings as ``2 d`` ints ``[lo0, hi0, lo1, hi1, ...]`` from an int, ``d`` ints, ``2 d``
    ints, or ``'SAME'`` / ``'VALID'`` (``'SAME'`` needs the known spatial sizes)."""
    if isinstance(value, str):
        mode = value.upper()
        if mode == "VALID":
            return [0] * (2 * d)
        if mode != "SAME" or spatial is None:
            raise ValueError(f"{api}(): argument '{arg}' must be 'SAME', 'VALID' or ints, got "
                             f"{value!r}")
        pads = same_padding(spatial, kernel, strides, [1] * d, arg, api)
        return [v for pair in pads for v in pair]
    if isinstance(value, (list, tuple)) and len(value) == 2 * d:
        return [check_int(v, arg, api, 0, integral_float=False) for v in value]
    return [p for v in _ints(value, d, arg, api, 0) for p in (v, v)]


def _channels(input, data_format, formats, api):
    """``(channels, spatial sizes)`` of ``input`` in ``data_format`` (one of ``formats``)."""
    check_choice(data_format, "data_format", formats, api)
    shape = list(input.shape)
    if len(shape) != len(data_format):
        raise ValueError(f"{api}(): argument 'input' must be a {len(data_format)}-D tensor "
                         f"({data_format}), got shape {shape}")
    if data_format[1] == "C":
        return shape[1], shape[2:]
    return shape[-1], shape[1:-1]


def _weight(shape, dtype, attr, prefix, fan_in):
    std = math.sqrt(2.0 / max(fan_in, 1))
    return create_parameter(shape, dtype_name(dtype), attr=attr, prefix=prefix,
                            default_initializer=Normal(0.0, std))


def _bias(out, size, dtype, bias_attr, layer, axis):
    if bias_attr is False:
        return out
    bias = create_parameter([size], dtype_name(dtype), attr=bias_attr, is_bias=True,
                            prefix=f"{layer}.b")
    return apply("elementwise_add", [out, bias], {"axis": axis})


def _known_channels(c, input, api):
    if c < 0:
        raise ValueError(f"{api}(): the channel dim of 'input' must be known, got shape "
                         f"{list(input.shape)}")
    return c


def _groups(groups, channels, num_filters, api):
    groups = 1 if groups is None else check_int(groups, "groups", api, 1, integral_float=False)
    if channels % groups:
        raise ValueError(f"{api}(): the input's {channels} channels are not divisible by "
                         f"groups={groups}")
    if num_filters % groups:
        raise ValueError(f"{api}(): argument 'num_filters'={num_filters} is not divisible by "
                         f"groups={groups}")
    return groups


def _conv_nd(input, num_filters, filter_size, stride, padding, dilation, groups, param_attr,
             bias_attr, act, name, data_format, d, api):
    formats = ("NCHW", "NHWC") if d == 2 else ("NCDHW", "NDHWC")
    check_variable(input, "input", api, FLOATS)
    c, spatial = _channels(input, data_format, formats, api)
    c = _known_channels(c, input, api)
    num_filters = check_int(num_filters, "num_filters", api, 1, integral_float=False)
    groups = _groups(groups, c, num_filters, api)
    k = _ints(filter_size, d, "filter_size", api, 1)
    strides = _ints(stride, d, "stride", api, 1)
    dilations = _ints(dilation, d, "dilation", api, 1)
    pads = _pads(padding, d, "padding", api, spatial, k, strides)
    if isinstance(padding, str) and padding.upper() == "SAME":
        dilations = [1] * d  # NOTE: as Paddle, 'SAME' resets the dilation
    layer = name or unique_name.generate(api)
    w = _weight([num_filters, c // groups] + k, input.dtype, param_attr, f"{layer}.w",
                math.prod(k) * c)
    out = apply(api, [input, w], {"strides": strides, "paddings": pads,
                                  "dilations": dilations, "groups": groups,
                                  "data_format": data_format})
    out = _bias(out, num_filters, input.dtype, bias_attr, layer,
                1 if data_format[1] == "C" else d + 1)
    return apply_act(out, act, api)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """3-D convolution of an NCDHW (or NDHWC) ``input`` with ``num_filters`` filters of
    ``filter_size`` (an int or 3 ints), plus a bias (``bias_attr=False``: none) and ``act``.
    ``padding``: an int, 3 ints, 6 ints ``[front, back, top, bottom, left, right]``,
    ``'SAME'`` or ``'VALID'``."""
    return _conv_nd(input, num_filters, filter_size, stride, padding, dilation, groups,
                    param_attr, bias_attr, act, name, data_format, 3, "conv3d")


def _conv_transpose(input, num_filters, output_size, filter_size, padding, stride, dilation,
                    groups, param_attr, bias_attr, act, name, data_format, output_padding, d,
                    api):
    formats = ("NCHW", "NHWC") if d == 2 else ("NCDHW", "NDHWC")
    check_variable(input, "input", api, FLOATS)
    c, spatial = _channels(input, data_format, formats, api)
    c = _known_channels(c, input, api)
    num_filters = check_int(num_filters, "num_filters", api, 1, integral_float=False)
    groups = _groups(groups, c, num_filters, api)
    strides = _ints(stride, d, "stride", api, 1)
    dilations = _ints(dilation, d, "dilation", api, 1)
    if output_size is None and filter_size is None:
        raise ValueError(f"{api}(): give 'filter_size' or 'output_size' (or both)")
    sizes = None if output_size is None else _ints(output_size, d, "output_size", api, 1)
    if filter_size is None:
        if isinstance(padding, str) or min(spatial) < 0:
            raise ValueError(f"{api}(): deriving 'filter_size' from 'output_size' needs "
                             f"numeric paddings and known spatial sizes, got padding="
                             f"{padding!r} and input shape {list(input.shape)}")
        pads = _pads(padding, d, "padding", api)
        k = [(o - (s - 1) * st + pads[2 * i] + pads[2 * i + 1] - 1) // dl + 1
             for i, (o, s, st, dl) in enumerate(zip(sizes, spatial, strides, dilations))]
        if min(k) < 1:
            raise ValueError(f"{api}(): output_size {sizes} is smaller than the input "
                             f"{spatial} allows with stride {strides}")
    else:
        k = _ints(filter_size, d, "filter_size", api, 1)
        pads = _pads(padding, d, "padding", api, spatial, k, strides)
    opad = _ints(output_padding, d, "output_padding", api, 0)
    if sizes is not None and min(spatial) >= 0:
        infer = [(s - 1) * st - pads[2 * i] - pads[2 * i + 1] + dl * (kk - 1) + 1
                 for i, (s, st, dl, kk) in enumerate(zip(spatial, strides, dilations, k))]
        opad = [o - f for o, f in zip(sizes, infer)]
        if any(not 0 <= p < max(st, dl) for p, st, dl in zip(opad, strides, dilations)):
            raise ValueError(f"{api}(): argument 'output_size'={sizes} must be in [{infer}, "
                             f"{infer} + stride) for input sizes {spatial}, got {sizes}")
    layer = name or unique_name.generate(api)
    w = _weight([c, num_filters // groups] + k, input.dtype, param_attr, f"{layer}.w",
                math.prod(k) * c)
    out = apply(api, [input, w], {"strides": strides, "paddings": pads,
                                  "output_padding": opad, "dilations": dilations,
                                  "groups": groups, "data_format": data_format})
    out = _bias(out, num_filters, input.dtype, bias_attr, layer,
                1 if data_format[1] == "C" else d + 1)
    return apply_act(out, act, api)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW",
                     output_padding=0):
    """2-D transposed convolution (the gradient of ``conv2d`` with respect to its input) of
    an NCHW (or NHWC) ``input``: filter ``[C, num_filters / groups, kh, kw]``, output size
    ``(in - 1) * stride - pad_lo - pad_hi + dilation * (k - 1) + 1 + output_padding``.
    ``output_size`` picks ``output_padding`` (and gives ``filter_size`` when that is None)."""
    return _conv_transpose(input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, act, name, data_format,
                           output_padding, 2, "conv2d_transpose")


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW",
                     output_padding=0):
    """3-D transposed convolution of an NCDHW (or NDHWC) ``input``; see
    :func:`conv2d_transpose`."""
    return _conv_transpose(input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, act, name, data_format,
                           output_padding, 3, "conv3d_transpose")


def pool3d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCDHW"):
    """Max or average pooling of an NCDHW (or NDHWC) volume; ``exclusive`` average pooling
    divides by the in-volume part of each window."""
    api = "pool3d"
    check_variable(input, "input", api, FLOATS)
    _, spatial = _channels(input, data_format, ("NCDHW", "NDHWC"), api)
    check_choice(pool_type, "pool_type", ("max", "avg"), api)
    global_pooling = check_bool(global_pooling, "global_pooling", api)
    if global_pooling:
        ksize, strides, pads = [1, 1, 1], [1, 1, 1], [0] * 6
    else:
        if pool_size == -1:
            raise ValueError(f"{api}(): argument 'pool_size' must be given (an int or three "
                             "ints) unless global_pooling=True")
        ksize = _ints(pool_size, 3, "pool_size", api, 1)
        strides = _ints(pool_stride, 3, "pool_stride", api, 1)
        pads = _pads(pool_padding, 3, "pool_padding", api, spatial, ksize, strides)
    return apply("pool3d", [input],
                 {"pooling_type": pool_type, "ksize": ksize, "strides": strides,
                  "paddings": pads, "global_pooling": global_pooling,
                  "ceil_mode": check_bool(ceil_mode, "ceil_mode", api),
                  "exclusive": check_bool(exclusive, "exclusive", api),
                  "data_format": data_format})


_RESAMPLE = {"NEAREST": "nearest", "LINEAR": "linear", "BILINEAR": "bilinear",
             "TRILINEAR": "trilinear", "BICUBIC": "bicubic"}
_FORMATS = {1: ("NCW", "NWC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _resize(api, input, method, size, scale, align_corners, align_mode, data_format,
            ratio_from_scale):
    check_variable(input, "input", api, FLOATS)
    d = len(input.shape) - 2
    if d not in _FORMATS:
        raise ValueError(f"{api}(): argument 'input' must be 3-D, 4-D or 5-D, got shape "
                         f"{list(input.shape)}")
    _, spatial = _channels(input, data_format, _FORMATS[d], api)
    align_corners = check_bool(align_corners, "align_corners", api)
    check_choice(align_mode, "align_mode", (0, 1), api)
    if (size is None) == (scale is None):
        raise ValueError(f"{api}(): give exactly one of the output size and the scale, got "
                         f"size={size!r} and scale={scale!r}")
    scales = []
    if size is not None:
        out = _ints(size, d, "out_shape" if "resize" in api else "size", api, 1)
    else:
        factors = list(scale) if isinstance(scale, (list, tuple)) else [scale] * d
        if len(factors) != d:
            raise ValueError(f"{api}(): argument 'scale' must be a number or {d} numbers, got "
                             f"{scale!r}")
        factors = [float(check_number(f, "scale", api)) for f in factors]
        if min(factors) <= 0:
            raise ValueError(f"{api}(): argument 'scale' must be > 0, got {scale!r}")
        if min(spatial) < 0:
            raise ValueError(f"{api}(): a scale needs the spatial sizes of 'input' known, got "
                             f"shape {list(input.shape)}")
        out = [int(s * f) for s, f in zip(spatial, factors)]
        if min(out) < 1:
            raise ValueError(f"{api}(): scale {scale!r} gives an empty output for sizes "
                             f"{spatial}")
        scales = factors if ratio_from_scale else []
    return apply("interpolate", [input],
                 {"interp_method": method, "out_shape": out, "scale": scales,
                  "align_corners": align_corners, "align_mode": align_mode,
                  "data_format": data_format})


def image_resize(input, out_shape=None, scale=None, name=None, resample="BILINEAR",
                 actual_shape=None, align_corners=True, align_mode=1, data_format="NCHW"):
    """Resize the spatial axes of ``input`` to ``out_shape`` (or ``int(size * scale)``) with
    ``resample`` (``'NEAREST'``, ``'LINEAR'``, ``'BILINEAR'``, ``'TRILINEAR'``,
    ``'BICUBIC'``); fluid's rule: the sampling ratio is ``in / out`` (or ``(in - 1) /
    (out - 1)`` with ``align_corners``)."""
    api = "image_resize"
    check_choice(resample, "resample", tuple(_RESAMPLE), api)
    if actual_shape is not None:
        raise ValueError(f"{api}(): argument 'actual_shape' (a run-time size) is not "
                         "supported; give out_shape")
    return _resize(api, input, _RESAMPLE[resample], out_shape, scale, align_corners,
                   align_mode, data_format, False)


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                    align_corners=True, align_mode=1, data_format="NCHW"):
    """Bilinear :func:`image_resize` of a 4-D ``input``."""
    return image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape, align_corners,
                        align_mode, data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None,
                   align_corners=True, data_format="NCHW"):
    """Nearest-neighbour :func:`image_resize` of a 4-D ``input``."""
    return image_resize(input, out_shape, scale, name, "NEAREST", actual_shape, align_corners,
                        1, data_format)


def resize_bicubic(input, out_shape=None, scale=None, name=None, actual_shape=None,
                   align_corners=True, align_mode=1, data_format="NCHW"):
    """Bicubic :func:`image_resize` of a 4-D ``input`` (Keys' cubic, ``A = -0.75``)."""
    return image_resize(input, out_shape, scale, name, "BICUBIC", actual_shape, align_corners,
                        align_mode, data_format)


def resize_linear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                  align_corners=True, align_mode=1, data_format="NCW"):
    """Linear :func:`image_resize` of a 3-D ``input``."""
    return image_resize(input, out_shape, scale, name, "LINEAR", actual_shape, align_corners,
                        align_mode, data_format)


def resize_trilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                     align_corners=True, align_mode=1, data_format="NCDHW"):
    """Trilinear :func:`image_resize` of a 5-D ``input``."""
    return image_resize(input, out_shape, scale, name, "TRILINEAR", actual_shape,
                        align_corners, align_mode, data_format)


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format="NCHW", name=None):
    """Paddle 2.x's ``F.interpolate``: ``mode`` one of ``'nearest'``, ``'linear'``,
    ``'bilinear'``, ``'trilinear'``, ``'bicubic'``; with ``scale_factor`` the output is
    ``int(in * scale_factor)`` and, unless ``align_corners``, the sampling ratio is
    ``1 / scale_factor``."""
    api = "interpolate"
    check_choice(mode, "mode", tuple(_RESAMPLE.values()), api)
    if mode == "nearest" and align_corners:
        raise ValueError(f"{api}(): align_corners=True is only defined for the linear and "
                         "cubic modes, as in Paddle")
    return _resize(api, x, mode, size, scale_factor, align_corners, align_mode, data_format,
                   True)


_PAD_MODES = ("constant", "reflect", "edge", "replicate", "circular")


def pad2d(input, paddings=(0, 0, 0, 0), mode="constant", pad_value=0.0, data_format="NCHW",
          name=None):
    """Pad H and W of a 4-D ``input`` by ``paddings`` ``[top, bottom, left, right]``; ``mode``
    ``'constant'`` (``pad_value``), ``'reflect'``, ``'edge'`` (also ``'replicate'``) or
    ``'circular'``."""
    api = "pad2d"
    check_variable(input, "input", api)
    _channels(input, data_format, ("NCHW", "NHWC"), api)
    check_choice(mode, "mode", _PAD_MODES, api)
    pads = _ints(paddings, 4, "paddings", api, 0)
    return apply("pad2d", [input], {"paddings": pads, "mode": mode,
                                    "pad_value": float(check_number(pad_value, "pad_value",
                                                                    api)),
                                    "data_format": data_format})


def spatial_pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Paddle 2.x's ``F.pad`` of the spatial axes of a 3-D, 4-D or 5-D ``x``: ``pad`` holds
    ``[left, right]``, ``[left, right, top, bottom]`` or ``[left, right, top, bottom, front,
    back]`` (the last axis first); ``mode`` ``'constant'`` (``value``), ``'reflect'``,
    ``'replicate'`` or ``'circular'``."""
    api = "pad"
    check_variable(x, "x", api)
    d = len(x.shape) - 2
    if d not in _FORMATS:
        raise ValueError(f"{api}(): argument 'x' must be 3-D, 4-D or 5-D, got shape "
                         f"{list(x.shape)}")
    # NOTE: as Paddle's F.pad, the format names where the channels are (the default 'NCHW'
    # also serves 3-D and 5-D inputs)
    check_choice(data_format, "data_format", ("NCL", "NLC") + sum(_FORMATS.values(), ()), api)
    data_format = _FORMATS[d][0 if data_format[1] == "C" else 1]
    check_choice(mode, "mode", ("constant", "reflect", "replicate", "circular"), api)
    if not isinstance(pad, (list, tuple)) or len(pad) != 2 * d:
        raise ValueError(f"{api}(): argument 'pad' must be {2 * d} ints for a {d + 2}-D "
                         f"input, got {pad!r}")
    pads = [check_int(p, "pad", api, 0, integral_float=False) for p in pad]
    value = float(check_number(value, "value", api))
    if d == 3:
        return apply("pad3d", [x], {"paddings": pads, "mode": mode, "pad_value": value,
                                    "data_format": data_format})
    if d == 2:
        return apply("pad2d", [x], {"paddings": pads[2:] + pads[:2], "mode": mode,
                                    "pad_value": value, "data_format": data_format})
    axis = 2 if data_format == "NCW" else 1  # 1-D: a unit H axis, padded by pad2d
    x4 = apply("unsqueeze", [x], {"axes": [axis]})
    out = apply("pad2d", [x4], {"paddings": [0, 0] + pads, "mode": mode, "pad_value": value,
                                "data_format": "NCHW" if data_format == "NCW" else "NHWC"})
    return apply("squeeze", [out], {"axes": [axis]})


def pixel_shuffle(x, upscale_factor):
    """ESPCN's sub-pixel rearrangement: ``x`` ``[N, C * r * r, H, W]`` becomes
    ``[N, C, H * r, W * r]`` with ``r = upscale_factor``,
    ``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]``."""
    api = "pixel_shuffle"
    check_variable(x, "x", api, FLOATS)
    r = check_int(upscale_factor, "upscale_factor", api, 1, integral_float=False)
    if len(x.shape) != 4:
        raise ValueError(f"{api}(): argument 'x' must be a 4-D tensor (NCHW), got shape "
                         f"{list(x.shape)}")
    c = x.shape[1]
    if c >= 0 and c % (r * r):
        raise ValueError(f"{api}(): the channel dim of argument 'x' ({c}) must be divisible by "
                         f"upscale_factor ** 2 ({r * r})")
    return apply("pixel_shuffle", [x], {"upscale_factor": r, "data_format": "NCHW"})


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """The Temporal Shift Module of TSM video models: ``x`` is ``[N * seg_num, C, H, W]``;
    channels ``[0, C * shift_ratio)`` of each frame come from the frame before, the next
    ``C * shift_ratio`` from the frame after (zeros past the clip's ends)."""
    api = "temporal_shift"
    check_variable(x, "x", api, FLOATS)
    _channels(x, data_format, ("NCHW", "NHWC"), api)
    seg_num = check_int(seg_num, "seg_num", api, 1, integral_float=False)
    ratio = float(check_number(shift_ratio, "shift_ratio", api, minimum=0))
    if ratio > 0.5:
        raise ValueError(f"{api}(): argument 'shift_ratio' must be in [0, 0.5], got {ratio}")
    n = x.shape[0]
    if n >= 0 and n % seg_num:
        raise ValueError(f"{api}(): the batch dim of 'x' ({n}) must be a multiple of "
                         f"seg_num ({seg_num})")
    return apply("temporal_shift", [x], {"seg_num": seg_num, "shift_ratio": ratio,
                                         "data_format": data_format})


def _anchors(anchors, api):
    if not isinstance(anchors, (list, tuple)) or not anchors or len(anchors) % 2 or \
            not all(is_int(a) and a > 0 for a in anchors):
        raise ValueError(f"{api}(): argument 'anchors' must be a non-empty list of positive "
                         f"ints (w, h pairs), got {anchors!r}")
    return [int(a) for a in anchors]


def _head(x, anchors, class_num, api):
    check_variable(x, "x", api, FLOATS)
    class_num = check_int(class_num, "class_num", api, 1, integral_float=False)
    shape = list(x.shape)
    if len(shape) != 4:
        raise ValueError(f"{api}(): argument 'x' must be 4-D [N, C, H, W], got shape {shape}")
    want = anchors * (5 + class_num)
    if shape[1] >= 0 and shape[1] != want:
        raise ValueError(f"{api}(): argument 'x' must have {want} channels ({anchors} anchors "
                         f"x (5 + class_num={class_num})), got shape {shape}")
    return class_num


def yolov3_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
                downsample_ratio, gt_score=None, use_label_smooth=True, name=None,
                scale_x_y=1.0):
    """YOLOv3's training loss of one head ``x`` ``[N, len(anchor_mask) * (5 + class_num), H,
    W]`` against ``gt_box`` ``[N, B, 4]`` (centre x, y, width, height as fractions of the
    image; all-zero rows are padding), ``gt_label`` ``[N, B]`` int32 and optional
    ``gt_score`` ``[N, B]``: a loss per sample ``[N]``."""
    api = "yolov3_loss"
    anchors = _anchors(anchors, api)
    if not isinstance(anchor_mask, (list, tuple)) or not anchor_mask or \
            any(not is_int(m) or not 0 <= m < len(anchors) // 2 for m in anchor_mask):
        raise ValueError(f"{api}(): argument 'anchor_mask' must list indices of the "
                         f"{len(anchors) // 2} anchors, got {anchor_mask!r}")
    class_num = _head(x, len(anchor_mask), class_num, api)
    check_variable(gt_box, "gt_box", api, FLOATS)
    check_variable(gt_label, "gt_label", api, ("int32",))
    if gt_score is not None:
        check_variable(gt_score, "gt_score", api, FLOATS)
    if len(gt_box.shape) != 3 or gt_box.shape[-1] != 4:
        raise ValueError(f"{api}(): argument 'gt_box' must be [N, B, 4], got shape "
                         f"{list(gt_box.shape)}")
    thresh = float(check_number(ignore_thresh, "ignore_thresh", api, minimum=0))
    outs = apply("yolov3_loss", [x, gt_box, gt_label, gt_score],
                 {"anchors": anchors, "anchor_mask": [int(m) for m in anchor_mask],
                  "class_num": class_num, "ignore_thresh": thresh,
                  "downsample_ratio": check_int(downsample_ratio, "downsample_ratio", api, 1,
                                                integral_float=False),
                  "use_label_smooth": check_bool(use_label_smooth, "use_label_smooth", api),
                  "scale_x_y": float(check_number(scale_x_y, "scale_x_y", api, minimum=0))})
    return outs[0]


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0):
    """Decode a YOLOv3 head ``x`` into ``(boxes [N, A*H*W, 4], scores [N, A*H*W,
    class_num])``: boxes ``x1, y1, x2, y2`` in pixels of each image (``img_size`` ``[N, 2]``
    int32 height, width), zero where the objectness is below ``conf_thresh``."""
    api = "yolo_box"
    anchors = _anchors(anchors, api)
    class_num = _head(x, len(anchors) // 2, class_num, api)
    check_variable(img_size, "img_size", api, ("int32", "int64"))
    outs = apply("yolo_box", [x, img_size],
                 {"anchors": anchors, "class_num": class_num,
                  "conf_thresh": float(check_number(conf_thresh, "conf_thresh", api)),
                  "downsample_ratio": check_int(downsample_ratio, "downsample_ratio", api, 1,
                                                integral_float=False),
                  "clip_bbox": check_bool(clip_bbox, "clip_bbox", api),
                  "scale_x_y": float(check_number(scale_x_y, "scale_x_y", api, minimum=0))})
    return outs[0], outs[1]


def _affine(c, dtype, param_attr, bias_attr, layer, api):
    if c < 0:
        raise ValueError(f"{api}(): the channel dim of 'input' must be known to create the "
                         "scale and bias")
    scale = None if param_attr is False else create_parameter(
        [c], dtype_name(dtype), attr=param_attr, prefix=f"{layer}.w",
        default_initializer=Constant(1.0))
    bias = None if bias_attr is False else create_parameter(
        [c], dtype_name(dtype), attr=bias_attr, is_bias=True, prefix=f"{layer}.b")
    return scale, bias


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalisation of ``input`` ``[N, C, *spatial]``: each channel of each sample
    normalised over its spatial axes, then a learned scale (init 1) and bias (init 0) per
    channel (``param_attr`` / ``bias_attr`` ``False``: none)."""
    api = "instance_norm"
    check_variable(input, "input", api, FLOATS)
    if len(input.shape) < 3:
        raise ValueError(f"{api}(): argument 'input' must be [N, C, *spatial] with a spatial "
                         f"axis, got shape {list(input.shape)}")
    layer = name or unique_name.generate(api)
    scale, bias = _affine(input.shape[1], input.dtype, param_attr, bias_attr, layer, api)
    eps = float(check_number(epsilon, "epsilon", api, minimum=0))
    return apply("instance_norm", [input, scale, bias], {"epsilon": eps})[0]


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """Group normalisation: the channels of each sample split into ``groups`` groups, each
    normalised over its channels and spatial axes, then a learned per-channel scale and
    bias, then ``act``."""
    api = "group_norm"
    check_variable(input, "input", api, FLOATS)
    check_choice(data_layout, "data_layout", ("NCHW", "NHWC"), api)
    shape = list(input.shape)
    if len(shape) < 2:
        raise ValueError(f"{api}(): argument 'input' must have rank >= 2, got shape {shape}")
    c = shape[-1] if data_layout == "NHWC" else shape[1]
    groups = check_int(groups, "groups", api, 1, integral_float=False)
    if c >= 0 and c % groups:
        raise ValueError(f"{api}(): the {c} channels of 'input' (shape {shape}) are not "
                         f"divisible by groups={groups}")
    layer = name or unique_name.generate(api)
    scale, bias = _affine(c, input.dtype, param_attr, bias_attr, layer, api)
    out = apply("group_norm", [input, scale, bias],
                {"epsilon": float(check_number(epsilon, "epsilon", api, minimum=0)),
                 "groups": groups, "data_layout": data_layout})[0]
    return apply_act(out, act, api)

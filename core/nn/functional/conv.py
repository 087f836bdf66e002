"""Convolutions (2.x spellings): ``conv1d`` / ``conv2d`` / ``conv3d`` and their transposes
``conv1d_transpose`` / ``conv2d_transpose`` / ``conv3d_transpose``, with the weight passed in;
and the argument readers the convolution and pooling layers share (``padding`` in all of
Paddle's forms, ``'SAME'`` and ``'VALID'`` included).

A 1-D convolution (transposed or not) is the 2-D op on the input viewed with a height of 1,
so its gradient and static form are the 2-D op's. As in Paddle, ``padding='SAME'`` sets the
dilation to 1."""
from ...checks import check_choice, check_int, check_pair, same_padding
from ...dispatch import apply

__all__ = ["conv1d", "conv1d_transpose", "conv2d", "conv2d_transpose", "conv3d",
           "conv3d_transpose"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def check_tuple(value, n, arg, api, minimum=None):
    """An int or a list / tuple of ``n`` ints as a list of ``n`` Python ints."""
    if n == 2:
        return check_pair(value, arg, api, minimum=minimum)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{api}(): argument '{arg}' must be an int or {n} ints, got "
                             f"{value!r}")
        vals = [check_int(v, arg, api) for v in value]
    else:
        vals = [check_int(value, arg, api)] * n
    if minimum is not None and min(vals) < minimum:
        raise ValueError(f"{api}(): argument '{arg}' must be >= {minimum} (each entry), got "
                         f"{value!r}")
    return vals


def padding_pairs(padding, n, api, channel_last=False, sizes=None, kernel=None, stride=None,
                  dilation=None):
    """Paddle 2.x ``padding`` of an ``n``-D window op as ``(before, after)`` per spatial axis.

    Accepted: an int; ``n`` ints (symmetric); ``2 * n`` ints (``[top, bottom, left, right]``
    for 2-D); ``n + 2`` pairs including the batch and channel axes (which must be 0);
    ``'VALID'``; ``'SAME'`` (output size ``ceil(in / stride)``, which needs ``sizes`` and the
    window ``kernel`` / ``stride`` / ``dilation``)."""
    if isinstance(padding, str):
        key = padding.upper()
        if key == "VALID":
            return [(0, 0)] * n
        if key == "SAME":
            return same_padding(sizes, kernel, stride, dilation or [1] * n, "padding", api)
        raise ValueError(f"{api}(): argument 'padding' must be 'SAME', 'VALID', an int or a list "
                         f"of ints, got {padding!r}")
    if isinstance(padding, (list, tuple)) and padding and \
            all(isinstance(p, (list, tuple)) for p in padding):
        if len(padding) != n + 2:
            raise ValueError(f"{api}(): argument 'padding' given as pairs must have {n + 2} of "
                             f"them (batch, channel and {n} spatial axes), got {padding!r}")
        pairs = [tuple(check_int(v, "padding", api, minimum=0) for v in p) for p in padding]
        outer = [pairs[0], pairs[-1]] if channel_last else pairs[:2]
        if any(len(p) != 2 for p in pairs) or any(p != (0, 0) for p in outer):
            raise ValueError(f"{api}(): argument 'padding' must pad neither the batch nor the "
                             f"channel axis, got {padding!r}")
        return pairs[1:-1] if channel_last else pairs[2:]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * n:
        vals = [check_int(v, "padding", api, minimum=0) for v in padding]
        return [(vals[2 * i], vals[2 * i + 1]) for i in range(n)]
    return [(p, p) for p in check_tuple(padding, n, "padding", api, minimum=0)]


def _flat(pairs):
    return [v for p in pairs for v in p]


def is_same(padding):
    return isinstance(padding, str) and padding.upper() == "SAME"


def _geometry(x, weight, stride, padding, dilation, n, data_format, api):
    """``(channel_last, strides, flat paddings, dilations)`` of an ``n``-D convolution."""
    check_choice(data_format, "data_format", _FORMATS[n], api)
    if len(x.shape) != n + 2 or len(weight.shape) != n + 2:
        raise ValueError(f"{api}(): arguments 'x' and 'weight' must be {n + 2}-D, got shapes "
                         f"{list(x.shape)} and {list(weight.shape)}")
    stride = check_tuple(stride, n, "stride", api, minimum=1)
    dilation = check_tuple(dilation, n, "dilation", api, minimum=1)
    if is_same(padding):
        dilation = [1] * n
    last = data_format[-1] == "C"
    sizes = list(x.shape[1:n + 1] if last else x.shape[2:])
    pads = padding_pairs(padding, n, api, last, sizes, list(weight.shape[2:]), stride, dilation)
    return last, stride, _flat(pads), dilation


def _add_bias(out, bias, last):
    if bias is None:
        return out
    return apply("elementwise_add", [out, bias], {"axis": -1 if last else 1})


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, d, api):
    """The ``conv{d}d`` op (d 2 or 3) plus the bias."""
    last, stride, pads, dilation = _geometry(x, weight, stride, padding, dilation, d,
                                             data_format, api)
    out = apply(f"conv{d}d", [x, weight],
                {"strides": stride, "paddings": pads, "dilations": dilation,
                 "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": data_format})
    return _add_bias(out, bias, last)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution with ``weight`` of shape ``[out, in / groups, kh, kw]``."""
    api = "conv2d"
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    check_pair(stride, "stride", api, minimum=1)
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, api)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution with ``weight`` of shape ``[out, in / groups, kd, kh, kw]``."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, "conv3d")


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCL", name=None):
    """1-D convolution of an ``[N, C, L]`` (``NCL``) or ``[N, L, C]`` (``NLC``) input with
    ``weight`` of shape ``[out, in / groups, k]``."""
    api = "conv1d"
    last, stride, pads, dilation = _geometry(x, weight, stride, padding, dilation, 1,
                                             data_format, api)
    h_axis = 1 if last else 2
    out = apply("conv2d", [apply("unsqueeze", [x], {"axes": [h_axis]}),
                           apply("unsqueeze", [weight], {"axes": [2]})],
                {"strides": [1] + stride, "paddings": [0, 0] + pads,
                 "dilations": [1] + dilation,
                 "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": "NHWC" if last else "NCHW"})
    return _add_bias(apply("squeeze", [out], {"axes": [h_axis]}), bias, last)


def _transpose_geometry(x, weight, stride, padding, output_padding, dilation, output_size, n,
                        data_format, api):
    """``(channel_last, strides, flat paddings, output_padding, dilations)`` of an ``n``-D
    transposed convolution; ``output_size`` (when given) decides the output padding."""
    check_choice(data_format, "data_format", _FORMATS[n], api)
    if len(x.shape) != n + 2 or len(weight.shape) != n + 2:
        raise ValueError(f"{api}(): arguments 'x' and 'weight' must be {n + 2}-D, got shapes "
                         f"{list(x.shape)} and {list(weight.shape)}")
    stride = check_tuple(stride, n, "stride", api, minimum=1)
    dilation = check_tuple(dilation, n, "dilation", api, minimum=1)
    if is_same(padding):
        dilation = [1] * n
    last = data_format[-1] == "C"
    sizes = list(x.shape[1:n + 1] if last else x.shape[2:])
    kernel = list(weight.shape[2:])
    pairs = padding_pairs(padding, n, api, last, sizes, kernel, stride, dilation)
    opad = check_tuple(output_padding, n, "output_padding", api, minimum=0)
    if output_size is not None:
        if any(v != 0 for v in opad):
            raise ValueError(f"{api}(): give 'output_size' or 'output_padding', not both")
        want = check_tuple(output_size, n, "output_size", api, minimum=1)
        opad = []
        for size, k, s, d, (lo, hi), o in zip(sizes, kernel, stride, dilation, pairs, want):
            if size < 0:
                raise ValueError(f"{api}(): 'output_size' needs the input's spatial sizes, "
                                 f"which are unknown here ({sizes})")
            base = (size - 1) * s - lo - hi + d * (k - 1) + 1
            if not base <= o < base + s:
                raise ValueError(f"{api}(): argument 'output_size' {want} is not reachable: "
                                 f"each size must be in [{base}, {base + s}) here")
            opad.append(o - base)
    return last, stride, _flat(pairs), opad, dilation


def _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                    output_size, data_format, d, api):
    """The ``conv{d}d_transpose`` op (d 2 or 3) plus the bias."""
    last, stride, pads, opad, dilation = _transpose_geometry(
        x, weight, stride, padding, output_padding, dilation, output_size, d, data_format, api)
    out = apply(f"conv{d}d_transpose", [x, weight],
                {"strides": stride, "paddings": pads, "output_padding": opad,
                 "dilations": dilation, "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": data_format})
    return _add_bias(out, bias, last)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution with ``weight`` of shape ``[in, out / groups, kh, kw]``."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                           output_size, data_format, 2, "conv2d_transpose")


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution with ``weight`` of shape ``[in, out / groups, kd, kh,
    kw]``."""
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation,
                           output_size, data_format, 3, "conv3d_transpose")


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """1-D transposed convolution with ``weight`` of shape ``[in, out / groups, k]``."""
    api = "conv1d_transpose"
    last, stride, pads, opad, dilation = _transpose_geometry(
        x, weight, stride, padding, output_padding, dilation, output_size, 1, data_format, api)
    h_axis = 1 if last else 2
    out = apply("conv2d_transpose", [apply("unsqueeze", [x], {"axes": [h_axis]}),
                                     apply("unsqueeze", [weight], {"axes": [2]})],
                {"strides": [1] + stride, "paddings": [0, 0] + pads,
                 "output_padding": [0] + opad, "dilations": [1] + dilation,
                 "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": "NHWC" if last else "NCHW"})
    return _add_bias(apply("squeeze", [out], {"axes": [h_axis]}), bias, last)

"""Convolutions (2.x spellings): ``conv1d`` and ``conv2d`` with the weight passed in, and the
argument readers the convolution and pooling layers share (``padding`` in all of Paddle's
forms, ``'SAME'`` and ``'VALID'`` included).

A 1-D convolution is the 2-D ``conv2d`` op on the input viewed with a height of 1, so its
gradient and static form are ``conv2d``'s."""
from ...checks import check_choice, check_int, check_pair
from ...dispatch import apply

__all__ = ["conv1d", "conv2d"]


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


def _same_pads(sizes, kernel, stride, dilation, api):
    pairs = []
    for size, k, s, d in zip(sizes, kernel, stride, dilation):
        if size < 0:
            raise ValueError(f"{api}(): padding='SAME' needs the input's spatial sizes, which "
                             f"are unknown here ({list(sizes)}); give explicit paddings")
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        pairs.append((total // 2, total - total // 2))
    return pairs


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
            return _same_pads(sizes, kernel, stride, dilation or [1] * n, api)
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
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * n and n > 1:
        vals = [check_int(v, "padding", api, minimum=0) for v in padding]
        return [(vals[2 * i], vals[2 * i + 1]) for i in range(n)]
    return [(p, p) for p in check_tuple(padding, n, "padding", api, minimum=0)]


def _flat(pairs):
    return [v for p in pairs for v in p]


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution with ``weight`` of shape ``[out, in / groups, kh, kw]``."""
    api = "conv2d"
    check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)
    stride = check_pair(stride, "stride", api, minimum=1)
    dilation = check_pair(dilation, "dilation", api, minimum=1)
    last = data_format == "NHWC"
    sizes = list(x.shape[1:3] if last else x.shape[2:4])
    pads = padding_pairs(padding, 2, api, last, sizes, list(weight.shape[2:]), stride, dilation)
    out = apply("conv2d", [x, weight],
                {"strides": stride, "paddings": _flat(pads), "dilations": dilation,
                 "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": data_format})
    if bias is None:
        return out
    return apply("elementwise_add", [out, bias], {"axis": -1 if last else 1})


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCL", name=None):
    """1-D convolution of an ``[N, C, L]`` (``NCL``) or ``[N, L, C]`` (``NLC``) input with
    ``weight`` of shape ``[out, in / groups, k]``."""
    api = "conv1d"
    check_choice(data_format, "data_format", ("NCL", "NLC"), api)
    if len(x.shape) != 3 or len(weight.shape) != 3:
        raise ValueError(f"{api}(): arguments 'x' and 'weight' must be 3-D, got shapes "
                         f"{list(x.shape)} and {list(weight.shape)}")
    stride = check_tuple(stride, 1, "stride", api, minimum=1)
    dilation = check_tuple(dilation, 1, "dilation", api, minimum=1)
    last = data_format == "NLC"
    size = x.shape[1] if last else x.shape[2]
    (lo, hi), = padding_pairs(padding, 1, api, last, [size], [weight.shape[2]], stride, dilation)
    h_axis = 1 if last else 2
    x4 = apply("unsqueeze", [x], {"axes": [h_axis]})
    w4 = apply("unsqueeze", [weight], {"axes": [2]})
    out = apply("conv2d", [x4, w4],
                {"strides": [1, stride[0]], "paddings": [0, 0, lo, hi],
                 "dilations": [1, dilation[0]],
                 "groups": check_int(groups, "groups", api, minimum=1),
                 "data_format": "NHWC" if last else "NCHW"})
    out = apply("squeeze", [out], {"axes": [h_axis]})
    if bias is None:
        return out
    return apply("elementwise_add", [out, bias], {"axis": -1 if last else 1})

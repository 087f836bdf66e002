"""ONNX mappers of the vision ops of the GAN, video and detection model families: N-d and
transposed convolutions, 3-D pooling, interpolation, spatial padding, pixel shuffle, temporal
shift, instance / group normalisation and YOLO box decoding."""
from ..ops.conv_nd import spatial_pads, spatial_tuple
from ..ops.pool3d import pool3d_far_pads
from ..ops.registry import get_op
from .registry import ExportError, mapper

_INT_MAX = 2 ** 62


def _channels_first(g, x, rank, last):
    """``x`` with its channel axis moved from last to 1 (no node when already there)."""
    if not last:
        return x
    return g.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))


def _channels_back(g, y, rank, last, hint):
    if not last:
        return g.node("Identity", [y], hint=hint)
    return g.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1], hint=hint)


def _is_last(data_format):
    return data_format in ("NHWC", "NDHWC", "NLC")


def _conv_attrs(a, d):
    lo, hi = spatial_pads(a["paddings"], d, "paddings")
    return dict(strides=list(spatial_tuple(a["strides"], d, "strides")),
                pads=list(lo) + list(hi), group=int(a["groups"]),
                dilations=list(spatial_tuple(a["dilations"], d, "dilations")))


@mapper("conv3d")
def _conv3d(g, v):
    a, last = v.attrs, _is_last(v.attrs["data_format"])
    x = _channels_first(g, v.x("Input"), 5, last)
    y = g.node("Conv", [x, v.x("Filter")], **_conv_attrs(a, 3))
    return {"Output": _channels_back(g, y, 5, last, v.out_hint("Output"))}


@mapper("conv2d_transpose", "conv3d_transpose")
def _conv_transpose(g, v):
    a, last = v.attrs, _is_last(v.attrs["data_format"])
    rank = v.rank("Input")
    d = rank - 2
    x = _channels_first(g, v.x("Input"), rank, last)
    y = g.node("ConvTranspose", [x, v.x("Filter")],
               output_padding=list(spatial_tuple(a["output_padding"], d, "output_padding")),
               **_conv_attrs(a, d))
    return {"Output": _channels_back(g, y, rank, last, v.out_hint("Output"))}


@mapper("pool3d")
def _pool3d(g, v):
    a, last = v.attrs, _is_last(v.attrs["data_format"])
    x = _channels_first(g, v.x("X"), 5, last)
    is_max = a["pooling_type"] == "max"
    if a["global_pooling"]:
        y = g.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [x])
        return {"Out": _channels_back(g, y, 5, last, v.out_hint("Out"))}
    k = list(spatial_tuple(a["ksize"], 3, "ksize"))
    strides = list(spatial_tuple(a["strides"], 3, "strides"))
    lo, hi = spatial_pads(a["paddings"], 3, "paddings")
    if is_max or a["exclusive"]:
        attrs = dict(kernel_shape=k, strides=strides, pads=list(lo) + list(hi),
                     ceil_mode=int(bool(a["ceil_mode"])))
        y = g.node("MaxPool", [x], **attrs) if is_max else \
            g.node("AveragePool", [x], count_include_pad=0, **attrs)
    else:
        # NOTE: Paddle divides every window by prod(ksize), also one that ceil_mode lets run
        # past the padding: pad explicitly (zeros) that far, then average without padding
        shape = list(v.var("X").shape)
        size = shape[1:4] if last else shape[2:5]
        if min(size) < 0:
            raise ExportError("pool3d: inclusive average pooling needs the volume size known "
                              "in the program")
        far = pool3d_far_pads(size, k, strides, lo, hi, a["ceil_mode"])
        padded = g.node("Pad", [x, g.const([0, 0] + list(lo) + [0, 0] + list(far))])
        y = g.node("AveragePool", [padded], kernel_shape=k, strides=strides,
                   count_include_pad=1)
    return {"Out": _channels_back(g, y, 5, last, v.out_hint("Out"))}


def _resize_mode(method, align_corners, align_mode):
    """``(mode, coordinate_transformation_mode, extra attrs)`` of ONNX Resize."""
    if method == "nearest":
        if align_corners:
            return "nearest", "align_corners", {"nearest_mode": "round_prefer_ceil"}
        return "nearest", "asymmetric", {"nearest_mode": "floor"}
    if method == "bicubic":
        return "cubic", ("align_corners" if align_corners else "half_pixel"), \
            {"cubic_coeff_a": -0.75}
    if align_corners:
        return "linear", "align_corners", {}
    return "linear", ("half_pixel" if align_mode == 0 else "asymmetric"), {}


@mapper("interpolate")
def _interpolate(g, v):
    a = v.attrs
    rank = v.rank("X")
    last = a["data_format"][1] != "C"
    shape = list(v.var("X").shape)
    sizes = shape[1:-1] if last else shape[2:]
    out = [int(o) for o in a["out_shape"]]
    if sizes == out:
        return {"Out": g.node("Identity", [v.x("X")], hint=v.out_hint("Out"))}
    x = _channels_first(g, v.x("X"), rank, last)
    mode, coord, extra = _resize_mode(a["interp_method"], a["align_corners"], a["align_mode"])
    if a["scale"] and not a["align_corners"]:
        # Paddle's ratio is 1 / scale and the output int(in * scale): ONNX's scales input
        inputs = [x, "", g.const([1.0, 1.0] + [float(s) for s in a["scale"]], "float32")]
    else:
        full = g.node("Concat", [g.shape_of(x, 0, 2), g.const(out)], axis=0)
        inputs = [x, "", "", full]
    y = g.node("Resize", inputs, mode=mode, coordinate_transformation_mode=coord, **extra)
    return {"Out": _channels_back(g, y, rank, last, v.out_hint("Out"))}


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "edge": "edge"}


@mapper("pad2d", "pad3d")
def _spatial_pad(g, v):
    a = v.attrs
    rank = v.rank("X")
    op = get_op(v.type)
    p = [int(q) for q in a["paddings"]]
    pairs = [(p[i], p[j]) for i, j in op.order]
    axes = list(range(2, rank)) if a["data_format"][1] == "C" else list(range(1, rank - 1))
    x = v.x("X")
    if a["mode"] == "circular":
        for ax, (lo, hi) in zip(axes, pairs):
            parts = []
            if lo:
                parts.append(_slice(g, x, -lo, _INT_MAX, ax))
            parts.append(x)
            if hi:
                parts.append(_slice(g, x, 0, hi, ax))
            x = g.node("Concat", parts, axis=ax) if len(parts) > 1 else x
        return {"Out": g.node("Identity", [x], hint=v.out_hint("Out"))}
    begin, end = [0] * rank, [0] * rank
    for ax, (lo, hi) in zip(axes, pairs):
        begin[ax], end[ax] = lo, hi
    inputs = [x, g.const(begin + end)]
    if a["mode"] == "constant":
        inputs.append(g.const(a["pad_value"], v.var("X").dtype))
    return {"Out": g.node("Pad", inputs, mode=_PAD_MODES[a["mode"]], hint=v.out_hint("Out"))}


def _slice(g, x, start, end, axis):
    return g.node("Slice", [x, g.const([start]), g.const([end]), g.const([axis])])


@mapper("pixel_shuffle")
def _pixel_shuffle(g, v):
    # NOTE: Paddle's channel order c * r * r + i * r + j is DepthToSpace's CRD mode
    last = v.attrs["data_format"] == "NHWC"
    x = _channels_first(g, v.x("X"), 4, last)
    y = g.node("DepthToSpace", [x], blocksize=int(v.attrs["upscale_factor"]), mode="CRD")
    return {"Out": _channels_back(g, y, 4, last, v.out_hint("Out"))}


@mapper("temporal_shift")
def _temporal_shift(g, v):
    a = v.attrs
    nhwc = a["data_format"] == "NHWC"
    shape = list(v.var("X").shape)
    c = shape[3] if nhwc else shape[1]
    if c < 0:
        raise ExportError("temporal_shift: the channel dim of X must be known in the program")
    t = int(a["seg_num"])
    c1, c2 = int(c * a["shift_ratio"]), int(c * 2 * a["shift_ratio"])
    x = v.x("X")
    inner = g.shape_of(x, 1, 4)
    five = g.node("Reshape", [x, g.node("Concat", [g.const([-1, t]), inner], axis=0)])
    ch = 4 if nhwc else 2
    padded = g.node("Pad", [five, g.const([0, 1, 0, 0, 0, 0, 1, 0, 0, 0])])
    parts = []
    for (f0, f1), (a0, a1) in (((0, t), (0, c1)), ((2, t + 2), (c1, c2)),
                               ((1, t + 1), (c2, c))):
        if a1 > a0:
            parts.append(g.node("Slice", [padded, g.const([f0, a0]), g.const([f1, a1]),
                                          g.const([1, ch])]))
    y = g.node("Concat", parts, axis=ch) if len(parts) > 1 else parts[0]
    return {"Out": g.node("Reshape", [y, g.shape_of(x)], hint=v.out_hint("Out"))}


def _group_stats(g, x, groups, eps, dt):
    """``(xhat, mean [N, G], var [N, G])`` of channels-first ``x`` in ``groups`` groups."""
    rows = g.node("Reshape", [x, g.const([0, groups, -1])])
    mean = g.reduce("ReduceMean", rows, [2], True)
    centred = g.node("Sub", [rows, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [centred, centred]), [2], True)
    inv = g.node("Reciprocal", [g.node("Sqrt", [g.node("Add", [var, g.const(eps, dt)])])])
    xhat = g.node("Reshape", [g.node("Mul", [centred, inv]), g.shape_of(x)])
    return xhat, g.squeeze(mean, [2]), g.squeeze(var, [2]), inv


def _affine(g, v, y, rank, dt):
    shape = [1, -1] + [1] * (rank - 2)
    if v.has("Scale"):
        y = g.node("Mul", [y, g.reshape(g.cast(v.x("Scale"), v.var("Scale").dtype, dt), shape)])
    if v.has("Bias"):
        y = g.node("Add", [y, g.reshape(g.cast(v.x("Bias"), v.var("Bias").dtype, dt), shape)])
    return y


@mapper("group_norm")
def _group_norm(g, v):
    a = v.attrs
    rank, dt = v.rank("X"), v.var("X").dtype
    last = a["data_layout"] == "NHWC" and rank > 2
    x = _channels_first(g, v.x("X"), rank, last)
    xhat, mean, var, _ = _group_stats(g, x, int(a["groups"]), float(a["epsilon"]), dt)
    y = _affine(g, v, xhat, rank, dt)
    return {"Y": _channels_back(g, y, rank, last, v.out_hint("Y")), "Mean": mean,
            "Variance": var}


@mapper("instance_norm")
def _instance_norm(g, v):
    rank, dt = v.rank("X"), v.var("X").dtype
    c = v.var("X").shape[1]
    if c < 0:
        raise ExportError("instance_norm: the channel dim of X must be known in the program")
    xhat, mean, _, inv = _group_stats(g, v.x("X"), int(c), float(v.attrs["epsilon"]), dt)
    y = _affine(g, v, xhat, rank, dt)
    return {"Y": g.node("Identity", [y], hint=v.out_hint("Y")),
            "SavedMean": g.reshape(mean, [-1]), "SavedVariance": g.reshape(inv, [-1])}


@mapper("yolo_box")
def _yolo_box(g, v):
    a = v.attrs
    dt = v.var("X").dtype
    _, _, h, w = v.var("X").shape
    if min(h, w) < 0:
        raise ExportError("yolo_box: the grid size (H, W) of X must be known in the program")
    anchors = [float(q) for q in a["anchors"]]
    na, nc = len(anchors) // 2, int(a["class_num"])
    xr = g.node("Reshape", [v.x("X"), g.const([0, na, 5 + nc, h, w])])

    def part(lo, hi):
        return g.node("Slice", [xr, g.const([lo]), g.const([hi]), g.const([2])])

    def const(values, shape):
        return g.reshape(g.const(values, dt), shape)

    img = g.cast(v.x("ImgSize"), v.var("ImgSize").dtype, dt)
    img_h = g.reshape(_slice(g, img, 0, 1, 1), [-1, 1, 1, 1, 1])
    img_w = g.reshape(_slice(g, img, 1, 2, 1), [-1, 1, 1, 1, 1])
    s, bias = float(a["scale_x_y"]), -0.5 * (float(a["scale_x_y"]) - 1.0)

    def centre(t, grid, size, img_size):
        shifted = g.node("Add", [g.node("Mul", [g.node("Sigmoid", [t]), g.const(s, dt)]),
                                 g.node("Add", [grid, g.const(bias, dt)])])
        return g.node("Mul", [g.node("Div", [shifted, g.const(float(size), dt)]), img_size])

    def extent(t, anchor, size, img_size):
        scale = const([q / (a["downsample_ratio"] * size) for q in anchor], [1, na, 1, 1, 1])
        return g.node("Mul", [g.node("Mul", [g.node("Exp", [t]), scale]), img_size])

    cx = centre(part(0, 1), const([float(q) for q in range(w)], [1, 1, 1, 1, w]), w, img_w)
    cy = centre(part(1, 2), const([float(q) for q in range(h)], [1, 1, 1, h, 1]), h, img_h)
    half_w = g.node("Div", [extent(part(2, 3), anchors[0::2], w, img_w), g.const(2.0, dt)])
    half_h = g.node("Div", [extent(part(3, 4), anchors[1::2], h, img_h), g.const(2.0, dt)])
    x1, x2 = g.node("Sub", [cx, half_w]), g.node("Add", [cx, half_w])
    y1, y2 = g.node("Sub", [cy, half_h]), g.node("Add", [cy, half_h])
    if a["clip_bbox"]:
        zero, one = g.const(0.0, dt), g.const(1.0, dt)
        x1, y1 = g.node("Max", [x1, zero]), g.node("Max", [y1, zero])
        x2 = g.node("Min", [x2, g.node("Sub", [img_w, one])])
        y2 = g.node("Min", [y2, g.node("Sub", [img_h, one])])
    conf = g.node("Sigmoid", [part(4, 5)])
    keep = g.cast(g.node("GreaterOrEqual", [conf, g.const(float(a["conf_thresh"]), dt)]),
                  bool, dt)
    boxes = g.node("Mul", [g.node("Concat", [x1, y1, x2, y2], axis=2), keep])
    scores = g.node("Mul", [g.node("Sigmoid", [part(5, 5 + nc)]),
                            g.node("Mul", [conf, keep])])
    boxes = g.node("Transpose", [boxes], perm=[0, 1, 3, 4, 2])
    scores = g.node("Transpose", [scores], perm=[0, 1, 3, 4, 2])
    return {"Boxes": g.node("Reshape", [boxes, g.const([0, -1, 4])], hint=v.out_hint("Boxes")),
            "Scores": g.node("Reshape", [scores, g.const([0, -1, nc])],
                             hint=v.out_hint("Scores"))}

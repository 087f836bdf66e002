"""ONNX mappers of the network ops: conv2d, pool2d, batch_norm, layer_norm, dropout (test
mode), lookup_table, one_hot, reductions, argmax / argmin, topk and accuracy."""
import numpy as np

from ..ops._windows import pads4
from ..ops.reduce import reduced_axes
from ._deps import helper
from .graph import onnx_dtype
from .registry import ExportError, mapper


def _nchw(g, x, layout):
    return g.node("Transpose", [x], perm=[0, 3, 1, 2]) if layout == "NHWC" else x


def _back(g, y, layout, hint):
    if layout == "NHWC":
        return g.node("Transpose", [y], perm=[0, 2, 3, 1], hint=hint)
    return g.node("Identity", [y], hint=hint)


@mapper("conv2d")
def _conv2d(g, v):
    a = v.attrs
    t, b, lft, r = pads4(a["paddings"], "conv2d: paddings")
    layout = a["data_format"]
    y = g.node("Conv", [_nchw(g, v.x("Input"), layout), v.x("Filter")],
               strides=list(a["strides"]), pads=[t, lft, b, r], dilations=list(a["dilations"]),
               group=int(a["groups"]))
    return {"Output": _back(g, y, layout, v.out_hint("Output"))}


def _pair(k):
    return [int(k), int(k)] if isinstance(k, (int, float)) else [int(d) for d in k]


@mapper("pool2d")
def _pool2d(g, v):
    a = v.attrs
    layout = a["data_format"]
    x = _nchw(g, v.x("X"), layout)
    is_max = a["pooling_type"] == "max"
    shape = list(v.var("X").shape)
    hw = shape[1:3] if layout == "NHWC" else shape[2:4]
    if a["global_pooling"]:
        y = g.node("GlobalMaxPool" if is_max else "GlobalAveragePool", [x])
    elif a["adaptive"]:
        y = _adaptive(g, x, is_max, _pair(a["ksize"]), hw)
    else:
        kh, kw = _pair(a["ksize"])
        t, b, lft, r = pads4(a["paddings"], "pool2d: paddings")
        attrs = dict(kernel_shape=[kh, kw], strides=_pair(a["strides"]), pads=[t, lft, b, r],
                     ceil_mode=int(bool(a["ceil_mode"])))
        if is_max:
            y = g.node("MaxPool", [x], **attrs)
        elif a["exclusive"] or not any((t, b, lft, r, a["ceil_mode"])):
            y = g.node("AveragePool", [x], count_include_pad=0, **attrs)
        elif not a["ceil_mode"]:
            y = g.node("AveragePool", [x], count_include_pad=1, **attrs)
        else:
            # NOTE: Paddle divides every window by kh * kw, also one that ceil_mode lets run
            # past the padding: the window sums (count_include_pad with a divisor we undo
            # through the per-window counts) are not expressible, so pad explicitly.
            y = _avg_ceil_inclusive(g, v, x, kh, kw, attrs, hw)
    return {"Out": _back(g, y, layout, v.out_hint("Out"))}


def _avg_ceil_inclusive(g, v, x, kh, kw, attrs, hw):
    if min(hw) < 0:
        raise ExportError("pool2d: average pooling with ceil_mode and exclusive=False needs "
                          "the image size known in the program")
    (sh, sw), (t, lft, b, r) = attrs["strides"], attrs["pads"]
    extra = []
    for size, k, s, lo, hi in ((hw[0], kh, sh, t, b), (hw[1], kw, sw, lft, r)):
        span = size + lo + hi - k
        n = -(-span // s) + 1
        extra.append(max(0, (n - 1) * s + k - (size + lo + hi)))
    padded = g.node("Pad", [x, g.const([0, 0, t, lft, 0, 0, b + extra[0], r + extra[1]])])
    return g.node("AveragePool", [padded], kernel_shape=[kh, kw], strides=[sh, sw],
                  count_include_pad=1)


def _adaptive(g, x, is_max, out_hw, hw):
    """Adaptive pooling: window ``i`` covers ``[floor(i*H/OH), ceil((i+1)*H/OH))``; with the
    image size known, each output cell is one reduction over a slice."""
    if min(hw) < 0:
        raise ExportError("pool2d: adaptive pooling needs the image size known in the program")
    (h, w), (oh, ow) = hw, out_hw
    if h % oh == 0 and w % ow == 0:
        k = [h // oh, w // ow]
        return g.node("MaxPool" if is_max else "AveragePool", [x], kernel_shape=k, strides=k)
    red = "ReduceMax" if is_max else "ReduceMean"
    rows = []
    for i in range(oh):
        h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        cells = []
        for j in range(ow):
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            part = g.node("Slice", [x, g.const([h0, w0]), g.const([h1, w1]), g.const([2, 3])])
            cells.append(g.reduce(red, part, [2, 3], True))
        rows.append(g.node("Concat", cells, axis=3))
    return g.node("Concat", rows, axis=2)


@mapper("batch_norm")
def _batch_norm(g, v):
    a = v.attrs
    if not (a["is_test"] or a["use_global_stats"]):
        raise ExportError("batch_norm runs in training mode (is_test=False): export a program "
                          "cloned with for_test=True (save_inference_model does this)")
    layout = a["data_layout"]
    rank = v.rank("X")
    x = v.x("X")
    dt = v.var("X").dtype
    sd = v.var("Mean").dtype
    if layout == "NHWC" and rank > 2:
        x = g.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))
    params = [g.cast(v.x(s), v.var(s).dtype, dt) for s in ("Scale", "Bias", "Mean", "Variance")]
    y = g.node("BatchNormalization", [x] + params, epsilon=float(a["epsilon"]))
    if layout == "NHWC" and rank > 2:
        y = g.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1], hint=v.out_hint("Y"))
    else:
        y = g.node("Identity", [y], hint=v.out_hint("Y"))
    mean, var = v.x("Mean"), v.x("Variance")
    inv = g.node("Reciprocal", [g.node("Sqrt", [g.node("Add", [var, g.const(a["epsilon"], sd)])])])
    return {"Y": y, "MeanOut": g.node("Identity", [mean]), "VarianceOut": g.node("Identity", [var]),
            "SavedMean": g.node("Identity", [mean]), "SavedVariance": inv}


@mapper("layer_norm")
def _layer_norm(g, v):
    a = v.attrs
    x, dt = v.x("X"), v.var("X").dtype
    axis = int(a["begin_norm_axis"])
    norm_shape = g.shape_of(x, start=axis)
    scale = g.cast(v.x("Scale"), v.var("Scale").dtype, dt) if v.has("Scale") else \
        g.node("ConstantOfShape", [norm_shape], value=_one(dt, 1))
    scale = g.node("Reshape", [scale, norm_shape])
    inputs = [x, scale]
    if v.has("Bias"):
        inputs.append(g.node("Reshape", [g.cast(v.x("Bias"), v.var("Bias").dtype, dt),
                                         norm_shape]))
    y, mean, inv = g.node("LayerNormalization", inputs, outputs=[v.out_hint("Y"), "ln_mean",
                                                                   "ln_inv_std"],
                          axis=axis, epsilon=float(a["epsilon"]))
    var = g.node("Sub", [g.node("Reciprocal", [g.node("Mul", [inv, inv])]),
                         g.const(a["epsilon"], dt)])
    return {"Y": y, "Mean": g.reshape(mean, [-1]), "Variance": g.reshape(var, [-1])}


def _one(dtype, value):
    return helper.make_tensor("value", onnx_dtype(dtype), [1], [value])


@mapper("dropout")
def _dropout(g, v):
    a = v.attrs
    if not a["is_test"]:
        raise ExportError("dropout runs in training mode (is_test=False): export a program "
                          "cloned with for_test=True (save_inference_model does this)")
    x, dt = v.x("X"), v.var("X").dtype
    if a["dropout_implementation"] == "upscale_in_train":
        out = g.node("Identity", [x], hint=v.out_hint("Out"))
    else:
        out = g.node("Mul", [x, g.const(1 - a["dropout_prob"], dt)], hint=v.out_hint("Out"))
    mask = g.node("ConstantOfShape", [g.shape_of(x)], value=_one(np.uint8, 1))
    return {"Out": out, "Mask": mask}


@mapper("lookup_table")
def _lookup_table(g, v):
    w, ids = v.x("W"), v.x("Ids")
    pad = int(v.attrs["padding_idx"])
    if pad == -1:
        return {"Out": g.node("Gather", [w, ids], axis=0, hint=v.out_hint("Out"))}
    rows = g.node("Gather", [w, ids], axis=0)
    hit = g.unsqueeze(g.node("Equal", [ids, g.const(pad, v.var("Ids").dtype)]), [-1])
    zero = g.const(0, v.var("W").dtype)
    return {"Out": g.node("Where", [hit, zero, rows], hint=v.out_hint("Out"))}


@mapper("one_hot")
def _one_hot(g, v):
    d = int(v.attrs["depth"])
    x, dt = v.x("X"), v.var("X").dtype
    # NOTE: OneHot counts negative indices from the end; the op gives a zero row for them.
    x = g.node("Where", [g.node("Less", [x, g.const(0, dt)]), g.const(d, dt), x])
    values = g.const([0, 1], v.out_var("Out").dtype)
    return {"Out": g.node("OneHot", [x, g.const([d], np.int64), values], axis=-1,
                          hint=v.out_hint("Out"))}


# -- reductions ----------------------------------------------------------------------------------
def _reduce(onnx_type):
    def fn(g, v):
        a = v.attrs
        rank = v.rank("X")
        axes = list(reduced_axes(rank, a["dim"], a["reduce_all"]))
        out_dt = v.out_var("Out").dtype
        work = np.dtype(np.int32) if out_dt.kind == "b" else out_dt
        x = g.cast(v.x("X"), v.var("X").dtype, work)
        if not axes:
            y = g.node("Identity", [x])
        else:
            y = g.reduce(onnx_type, x, axes, a["keep_dim"])
        return {"Out": g.node("Cast", [y], to=onnx_dtype(out_dt), hint=v.out_hint("Out"))}

    return fn


for _t, _o in {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
               "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd"}.items():
    mapper(_t)(_reduce(_o))


@mapper("mean")
def _mean(g, v):
    out_dt = v.out_var("Out").dtype
    x = g.cast(v.x("X"), v.var("X").dtype, out_dt)
    y = g.reduce("ReduceMean", g.reshape(x, [-1]), [0], False, hint=v.out_hint("Out"))
    return {"Out": y}


def _arg(onnx_type):
    def fn(g, v):
        x, dt = v.x("X"), v.var("X").dtype
        if dt.kind == "b":
            x = g.cast(x, dt, np.int32)
        y = g.node(onnx_type, [x], axis=int(v.attrs["axis"]), keepdims=int(v.attrs["keepdims"]),
                   hint=v.out_hint("Out"))
        return {"Out": y}

    return fn


mapper("argmax")(_arg("ArgMax"))
mapper("argmin")(_arg("ArgMin"))


@mapper("topk")
def _topk(g, v):
    out, idx = g.node("TopK", [v.x("X"), g.const([int(v.attrs["k"])])],
                      outputs=[v.out_hint("Out"), v.out_hint("Indices")], axis=-1, largest=1,
                      sorted=1)
    return {"Out": out, "Indices": idx}


@mapper("accuracy")
def _accuracy(g, v):
    idx, label = v.x("Indices"), v.x("Label")
    label = g.cast(label, v.var("Label").dtype, v.var("Indices").dtype)
    hit = g.cast(g.node("Equal", [idx, label]), bool, np.int32)
    row = g.reduce("ReduceMax", hit, [1], False)
    correct = g.node("ReduceSum", [row, g.const([0])], keepdims=1, hint=v.out_hint("Correct"))
    total = g.node("Cast", [g.shape_of(idx, start=0, end=1)], to=onnx_dtype(np.int32),
                   hint=v.out_hint("Total"))
    acc = g.node("Div", [g.cast(correct, np.int32, np.float32),
                         g.node("Max", [g.cast(total, np.int32, np.float32),
                                        g.const([1.0], np.float32)])],
                 hint=v.out_hint("Accuracy"))
    return {"Accuracy": acc, "Correct": correct, "Total": total}


def _bool_reduce(onnx_type):
    """``reduce_all`` / ``reduce_any``: nonzero as int32, then ReduceMin / ReduceMax."""
    def fn(g, v):
        a = v.attrs
        axes = list(reduced_axes(v.rank("X"), a["dim"], a["reduce_all"]))
        x, dt = v.x("X"), v.var("X").dtype
        nonzero = g.node("Not", [g.node("Equal", [x, g.const(0, dt)])]) if dt.kind != "b" else x
        y = g.node("Cast", [nonzero], to=onnx_dtype(np.int32))
        if axes:
            y = g.reduce(onnx_type, y, axes, a["keep_dim"])
        return {"Out": g.node("Cast", [y], to=onnx_dtype(np.bool_), hint=v.out_hint("Out"))}

    return fn


mapper("reduce_all")(_bool_reduce("ReduceMin"))
mapper("reduce_any")(_bool_reduce("ReduceMax"))

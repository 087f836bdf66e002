"""ONNX mappers of the sequence ops over padded batches (see :mod:`core.ops.sequence`): each
builds the valid-step mask ``t < Length[b]`` from ``Range`` and ``Less`` and computes with it,
so the exported graph takes any batch size and time length."""
import numpy as np

from .graph import onnx_dtype
from .registry import mapper


def _steps(g, x, axis=1):
    """``[0, 1, ..., time - 1]`` (int64) for the time dim ``axis`` of ``x``."""
    time = g.scalar(g.shape_of(x, axis, axis + 1))
    return g.node("Range", [g.const(0, np.int64), time, g.const(1, np.int64)])


def _valid(g, x, length, length_dtype, rank):
    """Bool mask ``[batch, time, 1, ...]`` (rank ``rank``) of the valid steps of ``x``."""
    lens = g.cast(length, length_dtype, np.int64)
    mask = g.node("Less", [g.unsqueeze(_steps(g, x), [0]), g.unsqueeze(lens, [1])])
    return g.unsqueeze(mask, list(range(2, rank))) if rank > 2 else mask


@mapper("sequence_mask")
def _sequence_mask(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    lens = g.cast(x, dt, np.int64)
    maxlen = v.attrs["maxlen"]
    if v.has("MaxLenTensor"):
        n = g.scalar(g.cast(v.x("MaxLenTensor"), v.var("MaxLenTensor").dtype, np.int64))
    elif maxlen >= 0:
        n = g.const(maxlen, np.int64)
    else:
        n = g.scalar(g.reduce("ReduceMax", g.reshape(lens, [-1]), [0], True))
    steps = g.node("Range", [g.const(0, np.int64), n, g.const(1, np.int64)])
    mask = g.node("Less", [steps, g.unsqueeze(lens, [-1])])
    out_dt = v.out_var("Y").dtype
    return {"Y": g.node("Cast", [mask], to=onnx_dtype(out_dt), hint=v.out_hint("Y"))}


@mapper("sequence_pool")
def _sequence_pool(g, v):
    x, dt, rank = v.x("X"), v.var("X").dtype, v.rank("X")
    ldt = v.var("Length").dtype
    valid = _valid(g, x, v.x("Length"), ldt, rank)
    kind, pad = v.attrs["pooltype"], v.attrs["pad_value"]
    lens = g.cast(v.x("Length"), ldt, dt)
    lens = g.unsqueeze(lens, list(range(1, rank - 1))) if rank > 2 else lens
    zero = g.const(0, dt)
    index = None
    if kind in ("SUM", "AVERAGE", "SQRT"):
        out = g.reduce("ReduceSum", g.node("Where", [valid, x, zero]), [1], False)
        denom = g.node("Max", [lens, g.const(1, dt)])
        if kind == "AVERAGE":
            out = g.node("Div", [out, denom])
        elif kind == "SQRT":
            out = g.node("Div", [out, g.node("Sqrt", [denom])])
    elif kind == "MAX":
        masked = g.node("Where", [valid, x, g.const(-np.inf, dt)])
        index = g.node("ArgMax", [masked], axis=1, keepdims=1)
        out = g.squeeze(g.node("GatherElements", [x, index], axis=1), [1])
        index = g.squeeze(index, [1])
    else:
        steps = g.cast(v.x("Length"), ldt, np.int64)
        if kind == "LAST":
            steps = g.node("Max", [g.node("Sub", [steps, g.const(1, np.int64)]),
                                   g.const(0, np.int64)])
        else:
            steps = g.node("Mul", [steps, g.const(0, np.int64)])
        # index [batch, 1, ...] broadcast over the row dims, gathered along time
        idx = g.unsqueeze(steps, list(range(1, rank)))
        row_shape = g.node("Concat", [g.shape_of(x, 0, 1), g.const([1], np.int64),
                                      g.shape_of(x, 2)], axis=0)
        idx = g.node("Expand", [idx, row_shape])
        out = g.squeeze(g.node("GatherElements", [x, idx], axis=1), [1])
    empty = g.node("Equal", [lens, zero])
    out = g.node("Where", [empty, g.const(pad, dt), out], hint=v.out_hint("Out"))
    if index is None:
        index = g.node("Cast", [g.node("Mul", [out, zero])], to=onnx_dtype(np.int64))
    return {"Out": out, "MaxIndex": g.node("Identity", [index], hint=v.out_hint("MaxIndex"))}


@mapper("sequence_softmax")
def _sequence_softmax(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    valid = _valid(g, x, v.x("Length"), v.var("Length").dtype, 2)
    masked = g.node("Where", [valid, x, g.const(-np.inf, dt)])
    top = g.reduce("ReduceMax", masked, [1], True)
    top = g.node("Where", [g.node("IsInf", [top]), g.const(0, dt), top])
    e = g.node("Where", [valid, g.node("Exp", [g.node("Sub", [x, top])]), g.const(0, dt)])
    total = g.reduce("ReduceSum", e, [1], True)
    total = g.node("Where", [g.node("Greater", [total, g.const(0, dt)]), total,
                             g.const(1, dt)])
    return {"Out": g.node("Div", [e, total], hint=v.out_hint("Out"))}


@mapper("sequence_reverse")
def _sequence_reverse(g, v):
    x, rank = v.x("X"), v.rank("X")
    lens = g.unsqueeze(g.cast(v.x("Length"), v.var("Length").dtype, np.int64), [1])
    steps = g.unsqueeze(_steps(g, x), [0])
    inside = g.node("Less", [steps, lens])
    mirrored = g.node("Sub", [g.node("Sub", [lens, g.const(1, np.int64)]), steps])
    idx = g.node("Where", [inside, mirrored, g.node("Add", [steps, g.node(
        "Mul", [lens, g.const(0, np.int64)])])])
    if rank > 2:
        idx = g.unsqueeze(idx, list(range(2, rank)))
        idx = g.node("Expand", [idx, g.shape_of(x)])
    return {"Y": g.node("GatherElements", [x, idx], axis=1, hint=v.out_hint("Y"))}


@mapper("sequence_expand")
def _sequence_expand(g, v):
    x, dt, y = v.x("X"), v.var("X").dtype, v.x("Y")
    rank = v.rank("X") + 1
    valid = _valid(g, y, v.x("Length"), v.var("Length").dtype, rank)
    rows = g.unsqueeze(x, [1])
    shape = g.node("Concat", [g.shape_of(x, 0, 1), g.shape_of(y, 1, 2), g.shape_of(x, 1)],
                   axis=0)
    out = g.node("Expand", [rows, shape])
    return {"Out": g.node("Where", [valid, out, g.const(0, dt)], hint=v.out_hint("Out"))}


@mapper("sequence_pad")
def _sequence_pad(g, v):
    x, dt, rank = v.x("X"), v.var("X").dtype, v.rank("X")
    target = v.attrs["padded_length"]
    if target >= 0:
        zeros_shape = g.node("Concat", [g.shape_of(x, 0, 1), g.const([target], np.int64),
                                        g.shape_of(x, 2)], axis=0)
        zeros = g.node("ConstantOfShape", [zeros_shape])
        zeros = g.cast(zeros, np.float32, dt)
        x = g.node("Concat", [x, zeros], axis=1)
        x = g.node("Slice", [x, g.const([0], np.int64), g.const([target], np.int64),
                             g.const([1], np.int64)])
    valid = _valid(g, x, v.x("Length"), v.var("Length").dtype, rank)
    pad = g.cast(v.x("PadValue"), v.var("PadValue").dtype, dt)
    return {"Out": g.node("Where", [valid, x, pad], hint=v.out_hint("Out"))}


@mapper("sequence_unpad")
def _sequence_unpad(g, v):
    x = v.x("X")
    valid = _valid(g, x, v.x("Length"), v.var("Length").dtype, 2)
    rows = g.node("Concat", [g.const([-1], np.int64), g.shape_of(x, 2)], axis=0)
    flat = g.node("Reshape", [x, rows])
    return {"Out": g.node("Compress", [flat, g.reshape(valid, [-1])], axis=0,
                          hint=v.out_hint("Out"))}

"""ONNX mappers of the loss ops, for programs that compute a loss or a metric at inference
(evaluation): ``cross_entropy``, ``softmax_with_cross_entropy`` and
``sigmoid_cross_entropy_with_logits``, hard labels (with ``ignore_index``) and soft ones."""
import numpy as np

from .registry import mapper


def _hard(g, logp, label, label_dtype, ignore, axis, dt):
    """``-logp[label]`` along ``axis`` where ``label != ignore``, else 0."""
    valid = g.node("Not", [g.node("Equal", [label, g.const(ignore, label_dtype)])])
    safe = g.cast(g.node("Where", [valid, label, g.const(0, label_dtype)]), label_dtype,
                  np.int64)
    picked = g.node("GatherElements", [logp, safe], axis=axis)
    return g.node("Where", [valid, g.node("Neg", [picked]), g.const(0, dt)])


def _soft(g, logp, label, label_dtype, axis, dt):
    label = g.cast(label, label_dtype, dt)
    return g.node("Neg", [g.reduce("ReduceSum", g.node("Mul", [label, logp]), [axis], True)])


@mapper("cross_entropy")
def _cross_entropy(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    logp = g.node("Log", [g.node("Max", [x, g.const(np.finfo(dt).tiny, dt)])])
    label, ldt = v.x("Label"), v.var("Label").dtype
    if v.attrs["soft_label"]:
        y = _soft(g, logp, label, ldt, -1, dt)
    else:
        y = _hard(g, logp, label, ldt, int(v.attrs["ignore_index"]), -1, dt)
    return {"Y": g.node("Identity", [y], hint=v.out_hint("Y"))}


@mapper("softmax_with_cross_entropy")
def _softmax_with_cross_entropy(g, v):
    x, dt = v.x("Logits"), v.var("Logits").dtype
    axis = int(v.attrs["axis"]) % v.rank("Logits")
    log_sm = g.node("LogSoftmax", [x], axis=axis)
    label, ldt = v.x("Label"), v.var("Label").dtype
    if v.attrs["soft_label"]:
        loss = _soft(g, log_sm, label, ldt, axis, dt)
    else:
        loss = _hard(g, log_sm, label, ldt, int(v.attrs["ignore_index"]), axis, dt)
    return {"Softmax": g.node("Softmax", [x], axis=axis, hint=v.out_hint("Softmax")),
            "Loss": g.node("Identity", [loss], hint=v.out_hint("Loss"))}


@mapper("sigmoid_cross_entropy_with_logits")
def _sigmoid_cross_entropy(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    label = g.cast(v.x("Label"), v.var("Label").dtype, dt)
    tail = g.node("Log", [g.node("Add", [g.node("Exp", [g.node("Neg", [g.node("Abs", [x])])]),
                                         g.const(1, dt)])])
    out = g.node("Add", [g.node("Sub", [g.node("Relu", [x]), g.node("Mul", [x, label])]), tail])
    keep = g.node("Not", [g.node("Equal", [label, g.const(v.attrs["ignore_index"], dt)])])
    out = g.node("Where", [keep, out, g.const(0, dt)])
    if v.attrs["normalize"]:
        count = g.node("ReduceSum", [g.cast(keep, bool, dt)], keepdims=0)
        out = g.node("Div", [out, g.node("Max", [count, g.const(1, dt)])])
    return {"Out": g.node("Identity", [out], hint=v.out_hint("Out"))}

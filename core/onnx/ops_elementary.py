"""ONNX mappers of the elementary ops of :mod:`core.ops.elementary`: ``erf``, ``sinh``,
``cosh``, ``asin``, ``acos``, ``atan`` map to their ONNX operators; ``log1p``, ``expm1``,
``log2`` and ``log10`` are written with ``Log`` / ``Exp``; ``isnan_v2`` / ``isinf_v2`` are
``IsNaN`` / ``IsInf`` (all false for an int input, which ONNX's operators do not take).
onnxruntime computes ``Erf``, ``Asin``, ``Acos`` and ``Atan`` in float32 only: a float64 input
goes through float32 there. ``einsum`` and ``unique`` (sorted, as the op is) map to
``Einsum`` and ``Unique``.

The input is cast to the op's output dtype first (float64 for an int input), as the executor
computes."""
import math

import numpy as np

from .registry import mapper


def _input(g, v):
    dt = v.out_var("Out").dtype
    return g.cast(v.x("X"), v.var("X").dtype, dt), dt


def _float32_only(onnx_type):
    # NOTE: onnxruntime has these operators for float32 only; other dtypes go through float32
    # (as the gelu mapper's Erf does).
    def fn(g, v):
        x, dt = _input(g, v)
        if dt == np.float32:
            return {"Out": g.node(onnx_type, [x], hint=v.out_hint("Out"))}
        y = g.node(onnx_type, [g.cast(x, dt, np.float32)])
        return {"Out": g.node("Identity", [g.cast(y, np.float32, dt)], hint=v.out_hint("Out"))}

    return fn


for _t, _o in {"erf": "Erf", "asin": "Asin", "acos": "Acos", "atan": "Atan"}.items():
    mapper(_t)(_float32_only(_o))


def _hyperbolic(onnx_type, sign):
    def fn(g, v):
        x, dt = _input(g, v)
        if dt == np.float32:
            return {"Out": g.node(onnx_type, [x], hint=v.out_hint("Out"))}
        # NOTE: exactly (exp(x) +- exp(-x)) / 2 for the dtypes onnxruntime's operator lacks
        both = g.node(sign, [g.node("Exp", [x]), g.node("Exp", [g.node("Neg", [x])])])
        return {"Out": g.node("Mul", [both, g.const(0.5, dt)], hint=v.out_hint("Out"))}

    return fn


mapper("sinh")(_hyperbolic("Sinh", "Sub"))
mapper("cosh")(_hyperbolic("Cosh", "Add"))


@mapper("log1p")
def _log1p(g, v):
    x, dt = _input(g, v)
    return {"Out": g.node("Log", [g.node("Add", [x, g.const(1, dt)])], hint=v.out_hint("Out"))}


@mapper("expm1")
def _expm1(g, v):
    x, dt = _input(g, v)
    return {"Out": g.node("Sub", [g.node("Exp", [x]), g.const(1, dt)], hint=v.out_hint("Out"))}


def _log_base(base):
    def fn(g, v):
        x, dt = _input(g, v)
        return {"Out": g.node("Div", [g.node("Log", [x]), g.const(math.log(base), dt)],
                              hint=v.out_hint("Out"))}

    return fn


mapper("log2")(_log_base(2.0))
mapper("log10")(_log_base(10.0))


def _check(onnx_type):
    def fn(g, v):
        x, dt = v.x("X"), v.var("X").dtype
        if dt.kind != "f":
            zero = g.node("Mul", [x, g.const(0, dt)])
            return {"Out": g.node("Not", [g.node("Equal", [zero, zero])],
                                  hint=v.out_hint("Out"))}
        return {"Out": g.node(onnx_type, [x], hint=v.out_hint("Out"))}

    return fn


mapper("isnan_v2")(_check("IsNaN"))
mapper("isinf_v2")(_check("IsInf"))


# -- linear algebra and distinct values --------------------------------------------------------
@mapper("einsum")
def _einsum(g, v):
    dt = v.out_var("Out").dtype
    xs = [g.cast(n, v.var("Operands", i).dtype, dt) for i, n in enumerate(v.xs("Operands"))]
    return {"Out": g.node("Einsum", xs, equation=v.attrs["equation"], hint=v.out_hint("Out"))}


@mapper("unique")
def _unique(g, v):
    x, axis = v.x("X"), v.attrs["axis"]
    attrs = {"sorted": 1}
    if axis:
        attrs["axis"] = int(axis[0]) % v.rank("X")
    else:
        x = g.reshape(x, [-1])
    y, first, inverse, counts = g.node("Unique", [x], outputs=4, **attrs)
    dt = np.dtype(v.attrs["dtype"])
    res = {"Out": g.node("Identity", [y], hint=v.out_hint("Out"))}
    for slot, name in (("Indices", first), ("Index", inverse), ("Counts", counts)):
        res[slot] = g.node("Identity", [g.cast(name, np.int64, dt)], hint=v.out_hint(slot))
    return res

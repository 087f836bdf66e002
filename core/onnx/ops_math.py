"""ONNX mappers of the math ops: elementwise arithmetic with Paddle's ``axis`` broadcasting,
comparisons and logic, unary math, activations, softmax, matmul / mul, cast and constants.

Dtypes follow the Program: an op's ONNX inputs are cast to the dtype its Program output (or,
for comparisons, numpy's promotion of its inputs) has, so ONNX's same-type rule holds and the
results equal the executor's."""
import math

import numpy as np

from .graph import onnx_dtype
from .registry import mapper


def _aligned(g, v):
    """X and Y with the lower-rank one given trailing 1-dims so its dims start at ``axis``
    (Paddle's rule); ``axis == -1`` is numpy broadcasting as it is."""
    x, y = v.x("X"), v.x("Y")
    axis = v.attrs.get("axis", -1)
    nx, ny = v.rank("X"), v.rank("Y")
    if axis != -1 and nx != ny and nx and ny:
        if axis < 0:
            axis += max(nx, ny)
        lo, hi = (ny, nx) if ny < nx else (nx, ny)
        extra = list(range(lo, hi - axis))
        if extra:
            if ny < nx:
                y = g.unsqueeze(y, extra)
            else:
                x = g.unsqueeze(x, extra)
    return x, y


def _binary(onnx_type, cast_to_out=True):
    def fn(g, v):
        x, y = _aligned(g, v)
        dt = v.out_var("Out").dtype if cast_to_out else \
            np.result_type(v.var("X").dtype, v.var("Y").dtype)
        x = g.cast(x, v.var("X").dtype, dt)
        y = g.cast(y, v.var("Y").dtype, dt)
        return {"Out": g.node(onnx_type, [x, y], hint=v.out_hint("Out"))}

    return fn


for _t, _o in {"elementwise_add": "Add", "elementwise_sub": "Sub", "elementwise_mul": "Mul",
               "elementwise_max": "Max", "elementwise_min": "Min"}.items():
    mapper(_t)(_binary(_o))
for _t, _o in {"equal": "Equal", "less_than": "Less",
               "less_equal": "LessOrEqual", "greater_than": "Greater",
               "greater_equal": "GreaterOrEqual"}.items():
    mapper(_t)(_binary(_o, cast_to_out=False))


@mapper("not_equal")
def _not_equal(g, v):
    return {"Out": g.node("Not", [_binary("Equal", cast_to_out=False)(g, v)["Out"]],
                          hint=v.out_hint("Out"))}


@mapper("elementwise_div")
def _div(g, v):
    return _binary("Div")(g, v)


@mapper("elementwise_pow")
def _pow(g, v):
    return _binary("Pow")(g, v)


def _operands(g, v):
    x, y = _aligned(g, v)
    dt = v.out_var("Out").dtype
    return g.cast(x, v.var("X").dtype, dt), g.cast(y, v.var("Y").dtype, dt), dt


@mapper("elementwise_floordiv")
def _floordiv(g, v):
    x, y, dt = _operands(g, v)
    hint = v.out_hint("Out")
    if dt.kind == "f":
        return {"Out": g.node("Floor", [g.node("Div", [x, y])], hint=hint)}
    # NOTE: ONNX's integer Div truncates; numpy floors. Step down where the remainder is
    # non-zero and its sign differs from the divisor's.
    q = g.node("Div", [x, y])
    r = g.node("Sub", [x, g.node("Mul", [q, y])])
    zero = g.const(0, dt)
    fix = g.node("And", [g.node("Not", [g.node("Equal", [r, zero])]),
                         g.node("Xor", [g.node("Less", [r, zero]), g.node("Less", [y, zero])])])
    return {"Out": g.node("Sub", [q, g.cast(fix, bool, dt)], hint=hint)}


@mapper("elementwise_mod")
def _mod(g, v):
    x, y, dt = _operands(g, v)
    hint = v.out_hint("Out")
    if dt.kind != "f":
        return {"Out": g.node("Mod", [x, y], fmod=0, hint=hint)}  # the divisor's sign: numpy's
    r = g.node("Mod", [x, y], fmod=1)
    zero = g.const(0, dt)
    fix = g.node("And", [g.node("Not", [g.node("Equal", [r, zero])]),
                         g.node("Xor", [g.node("Less", [r, zero]), g.node("Less", [y, zero])])])
    return {"Out": g.node("Where", [fix, g.node("Add", [r, y]), r], hint=hint)}


def _logical(onnx_type):
    def fn(g, v):
        x, y = _aligned(g, v)
        x = g.cast(x, v.var("X").dtype, bool)
        y = g.cast(y, v.var("Y").dtype, bool)
        return {"Out": g.node(onnx_type, [x, y], hint=v.out_hint("Out"))}

    return fn


for _t, _o in {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}.items():
    mapper(_t)(_logical(_o))


@mapper("logical_not")
def _logical_not(g, v):
    return {"Out": g.node("Not", [g.cast(v.x("X"), v.var("X").dtype, bool)],
                          hint=v.out_hint("Out"))}


# -- unary math and activations ----------------------------------------------------------------
def _unary(onnx_type, **attrs):
    def fn(g, v):
        x = g.cast(v.x("X"), v.var("X").dtype, v.out_var("Out").dtype)
        return {"Out": g.node(onnx_type, [x], hint=v.out_hint("Out"), **attrs)}

    return fn


# NOTE: ``print`` passes its input through; a deployed graph does not print.
for _t, _o in {"abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "sin": "Sin",
               "cos": "Cos", "sign": "Sign", "floor": "Floor", "ceil": "Ceil", "relu": "Relu",
               "sigmoid": "Sigmoid", "tanh": "Tanh",
               "assign": "Identity", "print": "Identity"}.items():
    mapper(_t)(_unary(_o))


@mapper("softplus")
def _softplus(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    if dt == np.float32:
        return {"Out": g.node("Softplus", [x], hint=v.out_hint("Out"))}
    # NOTE: onnxruntime's Softplus is float32 only: max(x, 0) + log(1 + exp(-|x|)).
    tail = g.node("Log", [g.node("Add", [g.node("Exp", [g.node("Neg", [g.node("Abs", [x])])]),
                                         g.const(1, dt)])])
    return {"Out": g.node("Add", [g.node("Relu", [x]), tail], hint=v.out_hint("Out"))}


@mapper("rsqrt")
def _rsqrt(g, v):
    x = g.cast(v.x("X"), v.var("X").dtype, v.out_var("Out").dtype)
    return {"Out": g.node("Reciprocal", [g.node("Sqrt", [x])], hint=v.out_hint("Out"))}


@mapper("square")
def _square(g, v):
    x = g.cast(v.x("X"), v.var("X").dtype, v.out_var("Out").dtype)
    return {"Out": g.node("Mul", [x, x], hint=v.out_hint("Out"))}


@mapper("round")
def _round(g, v):
    # NOTE: ONNX Round is half-to-even; the op rounds half away from zero: trunc + correction.
    x, dt = v.x("X"), v.var("X").dtype
    if dt.kind != "f":
        return {"Out": g.node("Identity", [x], hint=v.out_hint("Out"))}
    ax = g.node("Abs", [x])
    t = g.node("Mul", [g.node("Floor", [ax]), g.node("Sign", [x])])
    up = g.node("GreaterOrEqual", [g.node("Abs", [g.node("Sub", [x, t])]), g.const(0.5, dt)])
    return {"Out": g.node("Where", [up, g.node("Add", [t, g.node("Sign", [x])]), t],
                          hint=v.out_hint("Out"))}


@mapper("relu6")
def _relu6(g, v):
    dt = v.var("X").dtype
    return {"Out": g.node("Clip", [v.x("X"), g.const(0, dt), g.const(v.attrs["threshold"], dt)],
                          hint=v.out_hint("Out"))}


@mapper("leaky_relu")
def _leaky_relu(g, v):
    return {"Out": g.node("LeakyRelu", [v.x("X")], alpha=float(v.attrs["alpha"]),
                          hint=v.out_hint("Out"))}


@mapper("elu")
def _elu(g, v):
    return {"Out": g.node("Elu", [v.x("X")], alpha=float(v.attrs["alpha"]),
                          hint=v.out_hint("Out"))}


@mapper("gelu")
def _gelu(g, v):
    x, dt, hint = v.x("X"), v.var("X").dtype, v.out_hint("Out")
    half = g.node("Mul", [x, g.const(0.5, dt)])
    if v.attrs["approximate"]:
        cube = g.node("Mul", [g.node("Mul", [x, x]), x])
        inner = g.node("Mul", [g.node("Add", [x, g.node("Mul", [cube, g.const(0.044715, dt)])]),
                               g.const(math.sqrt(2.0 / math.pi), dt)])
        act = g.node("Tanh", [inner])
    else:
        # NOTE: onnxruntime has Erf for float32 only; other dtypes go through float32.
        z = g.cast(g.node("Mul", [x, g.const(1.0 / math.sqrt(2.0), dt)]), dt, np.float32)
        act = g.cast(g.node("Erf", [z]), np.float32, dt)
    return {"Out": g.node("Mul", [half, g.node("Add", [act, g.const(1.0, dt)])], hint=hint)}


@mapper("softmax")
def _softmax(g, v):
    return {"Out": g.node("Softmax", [v.x("X")], axis=int(v.attrs["axis"]),
                          hint=v.out_hint("Out"))}


@mapper("log_softmax")
def _log_softmax(g, v):
    return {"Out": g.node("LogSoftmax", [v.x("X")], axis=int(v.attrs["axis"]),
                          hint=v.out_hint("Out"))}


@mapper("scale")
def _scale(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    s, b = v.attrs["scale"], v.attrs["bias"]
    work = dt if dt.kind == "f" else np.dtype(np.float64)
    y = g.cast(x, dt, work)
    if v.attrs["bias_after_scale"]:
        y = g.node("Add", [g.node("Mul", [y, g.const(s, work)]), g.const(b, work)])
    else:
        y = g.node("Mul", [g.node("Add", [y, g.const(b, work)]), g.const(s, work)])
    return {"Out": g.node("Cast", [y], to=onnx_dtype(dt), hint=v.out_hint("Out"))}


@mapper("clip")
def _clip(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    lo, hi = v.attrs["min"], v.attrs["max"]
    if dt.kind != "f":
        lo, hi = math.ceil(lo), math.floor(hi)
    return {"Out": g.node("Clip", [x, g.const(lo, dt), g.const(hi, dt)], hint=v.out_hint("Out"))}


@mapper("sums")
def _sums(g, v):
    dt = v.out_var("Out").dtype
    xs = [g.cast(x, var.dtype, dt) for x, var in zip(v.xs("X"), v.vars("X"))]
    total = xs[0]
    for x in xs[1:]:
        total = g.node("Add", [total, x])  # Sum takes floats only
    return {"Out": g.node("Identity", [total], hint=v.out_hint("Out"))}


@mapper("where")
def _where(g, v):
    dt = v.out_var("Out").dtype
    x = g.cast(v.x("X"), v.var("X").dtype, dt)
    y = g.cast(v.x("Y"), v.var("Y").dtype, dt)
    c = g.cast(v.x("Condition"), v.var("Condition").dtype, bool)
    return {"Out": g.node("Where", [c, x, y], hint=v.out_hint("Out"))}


# -- matrix products ---------------------------------------------------------------------------
def _swap_last(g, name, rank):
    if rank < 2:
        return name
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return g.node("Transpose", [name], perm=perm)


@mapper("matmul")
def _matmul(g, v):
    dt = v.out_var("Out").dtype
    x = g.cast(v.x("X"), v.var("X").dtype, dt)
    y = g.cast(v.x("Y"), v.var("Y").dtype, dt)
    if v.attrs["transpose_X"]:
        x = _swap_last(g, x, v.rank("X"))
    if v.attrs["transpose_Y"]:
        y = _swap_last(g, y, v.rank("Y"))
    hint = v.out_hint("Out")
    if v.attrs["alpha"] == 1.0:
        return {"Out": g.node("MatMul", [x, y], hint=hint)}
    return {"Out": g.node("Mul", [g.node("MatMul", [x, y]), g.const(v.attrs["alpha"], dt)],
                          hint=hint)}


@mapper("mul")
def _mul(g, v):
    xk, yk = int(v.attrs["x_num_col_dims"]), int(v.attrs["y_num_col_dims"])
    dt = v.out_var("Out").dtype
    x = g.cast(v.x("X"), v.var("X").dtype, dt)
    y = g.cast(v.x("Y"), v.var("Y").dtype, dt)
    prod = g.node("MatMul", [g.node("Flatten", [x], axis=xk), g.node("Flatten", [y], axis=yk)])
    if v.rank("X") == 2 and v.rank("Y") == 2:
        return {"Out": g.node("Identity", [prod], hint=v.out_hint("Out"))}
    shape = g.node("Concat", [g.shape_of(x, end=xk), g.shape_of(y, start=yk)], axis=0)
    return {"Out": g.node("Reshape", [prod, shape], hint=v.out_hint("Out"))}


# -- dtypes and constants ----------------------------------------------------------------------
@mapper("cast")
def _cast(g, v):
    return {"Out": g.node("Cast", [v.x("X")], to=onnx_dtype(v.out_var("Out").dtype),
                          hint=v.out_hint("Out"))}


@mapper("isfinite")
def _isfinite(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    if dt.kind != "f":
        return {"Out": g.node("Identity", [g.const([True], bool)], hint=v.out_hint("Out"))}
    bad = g.node("Or", [g.node("IsNaN", [x]), g.node("IsInf", [x])])
    anybad = g.reduce("ReduceMax", g.cast(g.reshape(bad, [-1]), bool, np.int32), [0], True)
    return {"Out": g.node("Equal", [anybad, g.const([0], np.int32)], hint=v.out_hint("Out"))}


@mapper("has_nan")
def _has_nan(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    if dt.kind != "f":
        return {"Out": g.node("Identity", [g.const([False], bool)], hint=v.out_hint("Out"))}
    nan = g.cast(g.reshape(g.node("IsNaN", [x]), [-1]), bool, np.int32)
    any_nan = g.reduce("ReduceMax", nan, [0], True)
    return {"Out": g.node("Equal", [any_nan, g.const([1], np.int32)], hint=v.out_hint("Out"))}


# -- ops of the classic sequence models ----------------------------------------------------------
@mapper("softsign")
def _softsign(g, v):
    return {"Out": g.node("Softsign", [v.x("X")], hint=v.out_hint("Out"))}


@mapper("hard_sigmoid")
def _hard_sigmoid(g, v):
    return {"Out": g.node("HardSigmoid", [v.x("X")], alpha=float(v.attrs["slope"]),
                          beta=float(v.attrs["offset"]), hint=v.out_hint("Out"))}


@mapper("swish")
def _swish(g, v):
    x, dt = v.x("X"), v.var("X").dtype
    s = g.node("Sigmoid", [g.node("Mul", [x, g.const(float(v.attrs["beta"]), dt)])])
    return {"Out": g.node("Mul", [x, s], hint=v.out_hint("Out"))}


@mapper("cos_sim")
def _cos_sim(g, v):
    x, y = v.x("X"), v.x("Y")
    rows = g.const([0, -1], np.int64)
    x2, y2 = g.node("Reshape", [x, rows]), g.node("Reshape", [y, rows])
    xn = g.node("Sqrt", [g.reduce("ReduceSum", g.node("Mul", [x2, x2]), [1], True)])
    yn = g.node("Sqrt", [g.reduce("ReduceSum", g.node("Mul", [y2, y2]), [1], True)])
    dot = g.reduce("ReduceSum", g.node("Mul", [x2, y2]), [1], True)
    out = g.node("Div", [dot, g.node("Mul", [xn, yn])], hint=v.out_hint("Out"))
    return {"Out": out, "XNorm": g.node("Identity", [xn], hint=v.out_hint("XNorm")),
            "YNorm": g.node("Identity", [yn], hint=v.out_hint("YNorm"))}


@mapper("label_smooth")
def _label_smooth(g, v):
    x, dt, eps = v.x("X"), v.var("X").dtype, float(v.attrs["epsilon"])
    kept = g.node("Mul", [x, g.const(1.0 - eps, dt)])
    if v.has("PriorDist"):
        prior = g.reshape(g.cast(v.x("PriorDist"), v.var("PriorDist").dtype, dt), [-1])
        extra = g.node("Mul", [prior, g.const(eps, dt)])
    else:
        classes = g.cast(g.shape_of(x, -1), np.int64, dt)
        extra = g.node("Div", [g.const(eps, dt), classes])
    return {"Out": g.node("Add", [kept, extra], hint=v.out_hint("Out"))}

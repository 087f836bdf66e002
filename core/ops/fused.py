"""Fused ops the static optimisation passes (``core/static/passes``) rewrite programs into.

``fc`` (after Paddle's ``fc`` op) is ``act(Input @ W + Bias)`` with Input flattened to 2-D
after its first ``in_num_col_dims`` dims: one GEMM, the bias added and the activation applied
in place on its result. ``fused_elementwise`` runs a chain of elementwise ops as one kernel
(see its docstring). Each gives exactly what the ops it replaces give, and each one's
gradient is their gradients' composition.
"""
import numpy as np

from ._shapes import ShapeError, ufunc_dtype
from .math import flat2d
from .registry import Meta, OpDef, get_op, register_op

__all__ = ["fc"]

#: activations ``fc`` applies; their gradients need only the activation's output
FC_ACTIVATIONS = ("", "relu", "tanh", "sigmoid", "softmax")


@register_op
class fc(OpDef):
    """``act(Input2d @ W + Bias)``, Out of shape ``Input.shape[:in_num_col_dims] + [N]``;
    ``activation_type`` one of :data:`FC_ACTIVATIONS` (softmax over the last axis)."""

    inputs = ("Input", "W", "Bias")
    attrs = {"in_num_col_dims": 1, "activation_type": ""}

    def infer(self, x, w, b, in_num_col_dims, activation_type):
        _check(x.shape, w.shape, b.shape, in_num_col_dims, activation_type)
        return Meta(tuple(x.shape[:in_num_col_dims]) + (w.shape[1],),
                    ufunc_dtype(np.matmul, x.dtype, w.dtype))

    def forward(self, ctx, x, w, bias, in_num_col_dims, activation_type):
        _check(x.shape, w.shape, bias.shape, in_num_col_dims, activation_type)
        xp = ctx.xp
        out = xp.matmul(x.reshape(flat2d(x.shape, in_num_col_dims)), w)
        out += bias
        out = _activate(ctx, out, activation_type)
        return out.reshape(x.shape[:in_num_col_dims] + w.shape[1:])

    def backward(self, ctx, ins, outs, douts, in_num_col_dims, activation_type):
        xp = ctx.xp
        x, w, _ = ins
        n = w.shape[1]
        out = outs[0].reshape(-1, n)
        d = douts[0].reshape(-1, n)
        if activation_type:
            d = get_op(activation_type).backward(ctx, [None], [out], [d], **_act_attrs(
                activation_type))[0]
        need_x, need_w, need_b = ctx.needs_grad
        x2 = x.reshape(flat2d(x.shape, in_num_col_dims))
        dx = xp.matmul(d, w.T).reshape(x.shape) if need_x else None
        dw = xp.matmul(x2.T, d) if need_w else None
        db = d.sum(axis=0) if need_b else None
        return dx, dw, db


def _check(x_shape, w_shape, b_shape, num_col_dims, act):
    if act not in FC_ACTIVATIONS:
        raise ShapeError(f"fc: activation_type must be one of {list(FC_ACTIVATIONS)}, got "
                         f"{act!r}")
    if len(w_shape) != 2 or not 1 <= num_col_dims < len(x_shape):
        raise ShapeError(f"fc: W must be 2-D and in_num_col_dims in [1, {len(x_shape) - 1}], "
                         f"got W {list(w_shape)}, in_num_col_dims {num_col_dims} for Input "
                         f"{list(x_shape)}")
    k = flat2d(x_shape, num_col_dims)[1]
    if k != -1 and w_shape[0] != -1 and k != w_shape[0]:
        raise ShapeError(f"fc: Input {list(x_shape)} flattened at {num_col_dims} has {k} "
                         f"columns, W {list(w_shape)} has {w_shape[0]} rows")
    if tuple(b_shape) != (w_shape[1],):
        raise ShapeError(f"fc: Bias must have shape [{w_shape[1]}] (one value per column of "
                         f"W), got {list(b_shape)}")


def _act_attrs(act):
    return {"axis": -1} if act == "softmax" else {}


def _activate(ctx, out, act):
    """``act`` applied to the fresh GEMM result ``out`` (in place where the op allows)."""
    if not act:
        return out
    if act == "relu":
        return ctx.xp.maximum(out, 0, out=out)
    if act == "tanh":
        return ctx.xp.tanh(out, out=out)
    return get_op(act).forward(ctx, out, **_act_attrs(act))


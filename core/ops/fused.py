"""Fused ops the static optimisation passes (``core/static/passes``) rewrite programs into.

``relu_pool2d`` is max pooling of ``relu(X)``, computed as ``relu(max_pool(X))`` (the
two commute): the ReLU runs on the pooled map, and the gradient masks the pooled gradient
(``dOut * (Out > 0)``) before routing it, instead of masking the full-size one. ``fc``
(after Paddle's ``fc`` op) is ``act(Input @ W + Bias)`` with Input flattened to 2-D
after its first ``in_num_col_dims`` dims: one GEMM, the bias added and the activation applied
in place on its result. ``fused_elementwise`` runs a chain of elementwise ops as one kernel
(see its docstring). Each gives exactly what the ops it replaces give, and each one's
gradient is their gradients' composition.
"""
import numpy as np

from . import elementwise as _elementwise
from . import math as _math
from . import pool as _pool
from ._shapes import ShapeError, ufunc_dtype
from .math import flat2d
from .registry import KernelContext, Meta, OpDef, get_op, register_op

__all__ = ["fc", "fusable_step", "fused_elementwise", "relu_pool2d"]

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

    def fast_kernel(self, xp, metas, in_num_col_dims, activation_type):
        x, w, b = metas
        if x is None or w is None or b is None:
            return None
        _check(x.shape, w.shape, b.shape, in_num_col_dims, activation_type)
        k, matmul = in_num_col_dims, xp.matmul
        act = _act_kernel(xp, activation_type, Meta((-1, w.shape[1]), np.dtype(x.dtype)))

        def kernel(x, w, bias):
            out = matmul(x.reshape(flat2d(x.shape, k)), w)
            out += bias
            return act(out).reshape(x.shape[:k] + w.shape[1:])

        return kernel

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


def _act_kernel(xp, act, meta):
    """``fn(out)`` applying ``act`` to a fresh GEMM result (in place where it can)."""
    if not act:
        return lambda out: out
    if act == "relu":
        maximum = xp.maximum
        return lambda out: maximum(out, 0, out=out)
    if act == "tanh":
        tanh = xp.tanh
        return lambda out: tanh(out, out)
    opdef = get_op(act)
    attrs = opdef.full_attrs(_act_attrs(act))
    kernel, ctx = opdef.kernel_for(xp, [meta], attrs), KernelContext(xp, None)
    if kernel.takes == "arrays":
        return kernel.fn
    return lambda out: kernel(ctx, out, **attrs)


def _activate(ctx, out, act):
    """``act`` applied to the fresh GEMM result ``out`` (in place where the op allows)."""
    if not act:
        return out
    if act == "relu":
        return ctx.xp.maximum(out, 0, out=out)
    if act == "tanh":
        return ctx.xp.tanh(out, out=out)
    return get_op(act).forward(ctx, out, **_act_attrs(act))



def fusable_step(op_type):
    """Whether ``op_type`` may be a step of ``fused_elementwise``: binary arithmetic with
    Paddle's broadcasting, unary math ops, ``relu``, ``tanh``, ``sigmoid``."""
    try:
        opdef = get_op(op_type)
    except KeyError:
        return False
    if isinstance(opdef, _elementwise._Binary):
        return not isinstance(opdef, _elementwise._Compare)
    return isinstance(opdef, _math._Unary) or op_type in ("relu", "tanh", "sigmoid")


@register_op
class fused_elementwise(OpDef):
    """A chain of elementwise ops as one kernel. ``steps`` lists ``[op_type, args, attrs]``:
    each step runs the registered op ``op_type`` (see :func:`fusable_step`) with ``attrs`` on
    its ``args``, where ``k >= 0`` is ``X[k]`` and ``k < 0`` the result of step ``-k - 1``;
    Out is the last step's result. The compiled kernel writes a step's result into the buffer
    of an earlier step's result that is dead by then (``out=``). The gradient recomputes the
    steps and runs each op's own backward in reverse."""

    inputs = ("X*",)
    attrs = {"steps": []}

    def infer(self, xs, steps):
        return _step_metas(xs, steps)[-1]

    def forward(self, ctx, xs, steps):
        return _run_steps(ctx, xs, steps)[-1]

    def fast_kernel(self, xp, metas, steps):
        xs = metas[0]
        if not steps or any(m is None for m in xs):
            return None
        return _chain_kernel(xp, xs, steps, _step_metas(xs, steps))

    def backward(self, ctx, ins, outs, douts, steps):
        xs = ins[0]
        vals = _run_steps(ctx, xs, steps)
        grads = {-len(steps): douts[0]}
        for j in range(len(steps) - 1, -1, -1):
            g = grads.pop(-j - 1, None)
            op_type, args, attrs = steps[j]
            needs = tuple(a < 0 or (ctx.needs_grad[0] and _is_float(xs[a])) for a in args)
            if g is None or not any(needs):
                continue
            opdef = get_op(op_type)
            argv = [xs[a] if a >= 0 else vals[-a - 1] for a in args]
            res = opdef.backward(KernelContext(ctx.xp, ctx.place, needs_grad=needs), argv,
                                 [vals[j]], [g], **opdef.full_attrs(attrs))
            for a, r, wanted in zip(args, res, needs):
                if wanted and r is not None:
                    grads[a] = r if a not in grads else grads[a] + r
        return ([grads.get(k) for k in range(len(xs))],)


def _is_float(v):
    return np.dtype(getattr(v, "dtype", np.float64)).kind == "f"


def _step_metas(xs, steps):
    metas = []
    for op_type, args, attrs in steps:
        if not fusable_step(op_type):
            raise ShapeError(f"fused_elementwise: step op {op_type!r} is not an elementwise op")
        opdef = get_op(op_type)
        ins = [xs[a] if a >= 0 else metas[-a - 1] for a in args]
        metas.append(opdef.infer(*ins, **opdef.full_attrs(attrs)))
    return metas


def _run_steps(ctx, xs, steps):
    vals = []
    for op_type, args, attrs in steps:
        opdef = get_op(op_type)
        vals.append(opdef.forward(ctx, *[xs[a] if a >= 0 else vals[-a - 1] for a in args],
                                  **opdef.full_attrs(attrs)))
    return vals


def _step_kernel(xp, opdef, metas, attrs):
    """The step's kernel taking only its arrays, and the ufunc (with extra leading arguments)
    it is, when it is one ufunc call that may write into a buffer."""
    full = opdef.full_attrs(attrs)
    kernel = opdef.kernel_for(xp, metas, full)
    if kernel.takes != "arrays":
        ctx = KernelContext(xp, None)
        return (lambda *a: kernel(ctx, *a, **full)), None, ()
    fn = kernel.fn
    if opdef.type == "relu":
        return fn, xp.maximum, (0,)
    return fn, (fn if isinstance(fn, np.ufunc) else None), ()


def _chain_kernel(xp, xs, steps, metas):
    nx = len(xs)
    last_use = {}
    for j, (_, args, _) in enumerate(steps):
        for a in args:
            last_use[a] = j
    plan, owned = [], set()
    for j, (op_type, args, attrs) in enumerate(steps):
        opdef = get_op(op_type)
        ins = [xs[a] if a >= 0 else metas[-a - 1] for a in args]
        fn, ufunc, extra = _step_kernel(xp, opdef, ins, attrs)
        idx = [a if a >= 0 else nx - a - 1 for a in args]
        out = metas[j]
        buf = None
        if ufunc is not None and out.shape and -1 not in out.shape:
            buf = next((nx - a - 1 for a in args if a < 0 and a in owned and last_use[a] == j
                        and tuple(metas[-a - 1].shape) == tuple(out.shape)
                        and metas[-a - 1].dtype == out.dtype), None)
        if ufunc is not None and out.shape:
            owned.add(-j - 1)  # a ufunc's array result: a fresh buffer (or a reused one)
        plan.append((fn, idx, None, ()) if buf is None else (ufunc, idx, buf, extra))

    def kernel(xs):
        vals = list(xs)
        for fn, idx, buf, extra in plan:
            args = [vals[i] for i in idx]
            # NOTE: out= by keyword: maximum / minimum take no positional output (numpy 2)
            vals.append(fn(*args) if buf is None else fn(*args, *extra, out=vals[buf]))
        return vals[-1]

    return kernel


@register_op
class relu_pool2d(OpDef):
    """``pool2d(relu(X))`` for max pooling (``pooling_type`` must be ``"max"``), with
    pool2d's attributes; see the module docstring."""

    attrs = dict(_pool.pool2d.attrs)

    def infer(self, x, **attrs):
        _check_max(attrs)
        return get_op("pool2d").infer(x, **attrs)

    def forward(self, ctx, x, **attrs):
        _check_max(attrs)
        return ctx.xp.maximum(get_op("pool2d").forward(ctx, x, **attrs), 0)

    def fast_kernel(self, xp, metas, **attrs):
        _check_max(attrs)
        pool = get_op("pool2d").fast_kernel(xp, metas, **attrs)
        if pool is None:
            return None
        maximum = xp.maximum

        def kernel(x):
            out = pool(x)  # NOTE: a fresh array (the pool kernels never return a view of x)
            return maximum(out, 0, out=out)

        return kernel

    def backward(self, ctx, ins, outs, douts, **attrs):
        # NOTE: windows whose maximum is <= 0 pass nothing (relu'(x) = 0 there, as relu's
        # gradient at 0 is 0); the others route to their first maximum, where X > 0. The
        # pool gradient applies that mask itself (no masked copy of dOut).
        return get_op("pool2d").grad(ctx, ins[0], outs[0], douts[0], positive_only=True,
                                     **attrs)


def _check_max(attrs):
    if attrs.get("pooling_type") != "max":
        raise ShapeError(f"relu_pool2d: pooling_type must be 'max', got "
                         f"{attrs.get('pooling_type')!r}")

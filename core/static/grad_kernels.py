"""Kernels of generated gradient operators (``<type>_grad``) and the small helpers the compiled
gradient code calls (zeros for a missing gradient, accumulation across loop iterations).

A ``<type>_grad`` operator runs the forward op's registered ``backward`` with the forward
inputs, outputs and output gradients: a missing output gradient is zeros for a differentiable
output and None for a ``nondiff_outputs`` one, as the registry contract says. Results are cast
to the input's dtype, and a gradient whose shape differs from its input is an error naming the
op.
"""
from ..ops.control_flow import add_grads
from ..ops.registry import is_list_slot, slot_name

__all__ = ["make_grad_kernel", "make_helpers", "zeros_like_value"]


def zeros_like_value(xp, v):
    """Zeros shaped like ``v``; a tensor array's zero gradient is a list of None."""
    if isinstance(v, list):
        return [None] * len(v)
    return xp.zeros_like(v)


def make_grad_kernel(op, attrs):
    """``kernel(ctx, ins, outs, douts)`` -> one gradient per input slot of forward op ``op``."""
    diff = [slot_name(s) not in op.nondiff_outputs for s in op.outputs]
    lists = [is_list_slot(s) for s in op.outputs]
    in_slots = op.inputs
    backward = op.backward

    def kernel(ctx, ins, outs, douts):
        xp = ctx.xp
        d = list(douts)
        for k, g in enumerate(d):
            if not diff[k]:
                d[k] = None
            elif lists[k]:
                d[k] = [zeros_like_value(xp, o) if gk is None else gk
                        for gk, o in zip(g, outs[k])]
            elif g is None:
                d[k] = zeros_like_value(xp, outs[k])
        res = backward(ctx, list(ins), list(outs), d, **attrs)
        if not isinstance(res, (tuple, list)) or len(res) != len(in_slots):
            raise RuntimeError(f"backward of op '{op.type}' must return one gradient per input "
                               f"slot {in_slots}, got {type(res).__name__}")
        needs = ctx.needs_grad
        out = []
        for i, g in enumerate(res):
            if not needs[i] or g is None:
                out.append(g if needs[i] else None)
                continue
            if isinstance(ins[i], list):
                out.append([_fit(op, in_slots[i], gj, xj) for gj, xj in zip(g, ins[i])])
            else:
                out.append(_fit(op, in_slots[i], g, ins[i]))
        return out

    return kernel


def _fit(op, slot, g, x):
    if g is None or x is None or isinstance(x, list) or isinstance(g, list):
        return g
    if g.shape != x.shape:
        raise RuntimeError(f"gradient of op '{op.type}' for input '{slot_name(slot)}' has shape "
                           f"{list(g.shape)}, the input has shape {list(x.shape)}")
    if g.dtype != x.dtype:
        g = g.astype(x.dtype)
    return g


def make_helpers(xp):
    """``_zl(v)``, ``_acc(a, b)`` and ``_or_zeros(a, like)`` for module ``xp``."""

    def zl(v):
        return zeros_like_value(xp, v)

    def or_zeros(a, like):
        return zl(like) if a is None else a

    return zl, add_grads, or_zeros

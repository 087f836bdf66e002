"""Linear-algebra ops: ``inverse`` (of a matrix or a batch of them) and ``einsum`` (Einstein
summation over letters, ``'ij,jk->ik'``; the public function writes the explicit form).

``einsum``'s gradient of operand k is the einsum of the output gradient with the other
operands, onto k's letters; a letter only k has is summed out by the forward, so its gradient
is broadcast along it. An operand with a repeated letter (a diagonal, ``'ii->i'``) has no
gradient here.
"""
import numpy as np

from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = []


@register_op
class inverse(OpDef):
    """``Output = X^-1`` for X ``[..., n, n]``; ``dX = -Out^T dOut Out^T`` (per matrix)."""

    inputs = ("Input",)
    outputs = ("Output",)

    def infer(self, x):
        if len(x.shape) < 2:
            raise ShapeError(f"op 'inverse': Input must be [..., n, n], got {list(x.shape)}")
        return Meta(tuple(x.shape), np.dtype(x.dtype))

    def forward(self, ctx, x):
        return ctx.xp.linalg.inv(x).astype(x.dtype, copy=False)

    def backward(self, ctx, ins, outs, douts):
        xp, inv = ctx.xp, outs[0]
        t = xp.swapaxes(inv, -1, -2)
        return (-xp.matmul(xp.matmul(t, douts[0]), t),)


def _parse(equation):
    lhs, _, out = equation.partition("->")
    return lhs.split(","), out


@register_op
class einsum(OpDef):
    """``Out = einsum(equation, *Operands)`` with an explicit ``'...->out'`` equation of
    letters."""

    inputs = ("Operands*",)
    attrs = {"equation": ""}

    def infer(self, xs, equation):
        ins, out = _parse(equation)
        sizes = {}
        for sub, m in zip(ins, xs):
            if len(sub) != len(m.shape):
                raise ShapeError(f"op 'einsum': subscript {sub!r} for an operand of shape "
                                 f"{list(m.shape)}")
            for c, d in zip(sub, m.shape):
                if d >= 0 and sizes.get(c, -1) >= 0 and sizes[c] != d:
                    raise ShapeError(f"op 'einsum': letter {c!r} has sizes {sizes[c]} and {d}")
                if d >= 0 or c not in sizes:
                    sizes[c] = d
        return Meta(tuple(sizes[c] for c in out), np.result_type(*[m.dtype for m in xs]))

    def forward(self, ctx, xs, equation):
        return ctx.xp.einsum(equation, *xs)

    def backward(self, ctx, ins, outs, douts, equation):
        xp, xs, dout = ctx.xp, ins[0], douts[0]
        subs, out = _parse(equation)
        grads = []
        for k, (sub, x) in enumerate(zip(subs, xs)):
            if not ctx.needs_grad[0] or np.dtype(x.dtype).kind != "f":
                grads.append(None)
                continue
            if len(set(sub)) != len(sub):
                raise NotImplementedError(f"einsum: no gradient for operand {k} ({sub!r} "
                                          f"repeats a letter) of {equation!r}")
            others = [s for j, s in enumerate(subs) if j != k]
            seen = out + "".join(others)
            kept = "".join(c for c in sub if c in seen)
            g = xp.einsum(",".join([out] + others) + "->" + kept, dout,
                          *[a for j, a in enumerate(xs) if j != k])
            # NOTE: letters only this operand has were summed out: the gradient is constant
            # along them
            g = g.reshape([x.shape[i] if c in seen else 1 for i, c in enumerate(sub)])
            grads.append(xp.broadcast_to(g, x.shape).astype(x.dtype))
        return (grads,)

"""Fusion of chains of elementwise ops into one ``fused_elementwise`` op.

A chain is two or more elementwise ops (binary arithmetic with Paddle's broadcasting, unary
math ops, ``relu``, ``tanh``, ``sigmoid``; see :func:`core.ops.fused.fusable_step`) of one
block, each reading the previous one's result through one input slot. The fused op's kernel
runs the same registered kernels in order and writes a step's result into an earlier step's
dead buffer (``out=``). In a training program the chain's gradient operators become one
``fused_elementwise_grad``, which recomputes the steps and runs each op's own backward.

Preserves: the chain's output value and the gradients it produced (the same kernels, in the
same order), every variable name other than the chain's private intermediates. Fuses only
where the intermediates have no other readers (see :mod:`core.static.passes.chain`).
"""
from ...ops.fused import fusable_step
from ...ops.registry import get_op, slot_name
from ..operator import EMPTY_VAR_NAME
from .chain import forward_reader, fuse, grad_slot, match, out_slot
from .graph import new_op, replace_ops

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Fuse in place; returns the number of chains fused."""
    return fuse(program, feed_names, fetch_names, _match, _rewrite)


def _step_ok(block, op):
    if not fusable_step(op.type) or out_slot(op) is None:
        return False
    v = block._find_var_recursive(out_slot(op)[1])
    return v is not None and v.type == "lod_tensor"


def _match(uses, block, op):
    if not _step_ok(block, op):
        return None
    chain, links, best = [op], [None], None
    while True:
        nxt = forward_reader(uses, out_slot(chain[-1])[1], block)
        if nxt is None or not _step_ok(block, nxt):
            return best
        link = [s for s, names in nxt.inputs.items() if out_slot(chain[-1])[1] in names]
        if len(link) != 1:
            return best
        grads = match(uses, block, chain + [nxt], links + link)
        if grads is None:
            return best
        chain, links = chain + [nxt], links + link
        best = (chain, grads, links)


def _layout(chain, links):
    """``(input names, steps, (step, slot) per input)`` of the fused op."""
    names, steps, where = [], [], []
    for j, op in enumerate(chain):
        args = []
        for slot in get_op(op.type).inputs:
            s = slot_name(slot)
            if j and s == links[j]:
                args.append(-j)  # the previous step's result
                continue
            args.append(len(names))
            names.append(op.inputs[s][0])
            where.append((j, s))
        steps.append([op.type, args, dict(op.attrs)])
    return names, steps, where


def _rewrite(block, chain, grads, links):
    names, steps, where = _layout(chain, links)
    last = out_slot(chain[-1])[1]
    fwd = new_op(block, "fused_elementwise", {"X": names}, {"Out": [last]}, {"steps": steps},
                 chain[0])
    replace_ops(block, chain, fwd, chain[-1])
    if not grads:
        return
    dx = [grad_slot(grads[j], s + "@GRAD")[0] for j, s in where]
    bwd = new_op(block, "fused_elementwise_grad",
                 {"X": names, "Out": [last], "Out@GRAD": grads[-1].inputs["Out@GRAD"]},
                 {"X@GRAD": dx if any(n != EMPTY_VAR_NAME for n in dx) else []},
                 {"steps": steps}, grads[0])
    replace_ops(block, grads, bwd, grads[-1])

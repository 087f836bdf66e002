"""Matching a chain of forward operators, and their gradient operators, for fusion.

A *chain* is a list of forward operators of one block, each after the first reading the
previous one's only output through one input slot (``links``). It can be fused when every
intermediate output is a private value (see :meth:`Uses.private`) read only by the next
operator and by the chain's own gradient operators. In a training program each chain
operator must then have exactly one gradient operator (``<type>_grad`` reading its output
under the same slot), in the same block, in reverse order; the gradient flowing between two
of them must be private too. The fused gradient operator replaces all of them.
"""
from ..analysis import op_reads, op_writes
from ..operator import EMPTY_VAR_NAME
from .graph import has_grad_ops, uses_of

__all__ = ["forward_reader", "fresh_name", "fuse", "grad_slot", "match", "out_slot"]


def out_slot(op):
    """``(slot, name)`` of an operator's only written output, or None."""
    outs = [(s, ns[0]) for s, ns in op.outputs.items() if len(ns) == 1 and
            ns[0] != EMPTY_VAR_NAME]
    return outs[0] if len(outs) == 1 and len(op_writes(op)) == 1 else None


def _grad_of(uses, op):
    slot, name = out_slot(op)
    found = [r for r in uses.readers.get(name, ()) if r.type == op.type + "_grad" and
             r.inputs.get(slot) == [name]]
    if len(found) > 1:
        return False
    return found[0] if found else None


def match(uses, block, chain, links):
    """The gradient operators of ``chain`` (``[]`` in a forward-only program), or None when
    the chain cannot be fused. ``links[k]`` is the input slot through which ``chain[k]``
    reads ``chain[k - 1]``'s output (``links[0]`` is unused)."""
    if any(out_slot(op) is None for op in chain):
        return None
    pos = {id(op): i for i, op in enumerate(block.ops)}
    idx = [pos.get(id(op)) for op in chain]
    if None in idx or idx != sorted(idx):
        return None
    grads = [_grad_of(uses, op) for op in chain]
    if any(g is False for g in grads):
        return None
    if all(g is None for g in grads):
        grads = []
    elif any(g is None or g.block is not block for g in grads):
        return None
    for k in range(1, len(chain)):
        t = out_slot(chain[k - 1])[1]
        nxt = chain[k]
        if nxt.inputs.get(links[k]) != [t] or op_reads(nxt).count(t) != 1:
            return None
        allowed = [nxt] + ([grads[k - 1], grads[k]] if grads else [])
        if not uses.private(t, allowed):
            return None
    # the chain's outside inputs must not change between its first and last operator
    outside = {n for op in chain for n in op_reads(op)} - \
        {out_slot(op)[1] for op in chain[:-1]}
    for op in block.ops[idx[0] + 1:idx[-1]]:
        if any(n in outside for n in op_writes(op)):
            return None
    if grads and not _grads_fit(uses, block, chain, links, grads, pos):
        return None
    return grads


def _grads_fit(uses, block, chain, links, grads, pos):
    gidx = [pos.get(id(g)) for g in grads]
    if None in gidx or gidx != sorted(gidx, reverse=True):
        return False
    for k in range(1, len(chain)):
        slot = out_slot(chain[k - 1])[0]
        dt = grads[k].outputs.get(links[k] + "@GRAD", [])
        if len(dt) != 1 or grads[k - 1].inputs.get(slot + "@GRAD") != dt or \
                not uses.private(dt[0], [grads[k - 1]]):
            return False
    # the fused gradient op stands where the first of them stood: nothing between there and
    # each original writer may touch what that writer wrote (accumulated gradients are
    # written again later, by a grad_sum)
    inner = {grads[k].outputs[links[k] + "@GRAD"][0] for k in range(1, len(chain))}
    ids = {id(g) for g in grads}
    for g, end in zip(grads, gidx):
        for n in op_writes(g):
            if n in inner:
                continue
            for op in block.ops[gidx[-1] + 1:end]:
                if id(op) not in ids and (n in op_reads(op) or n in op_writes(op)):
                    return False
    return True


def forward_reader(uses, name, block):
    """The one forward (non-gradient) operator of ``block`` reading ``name``, or None."""
    fwd = [r for r in uses.readers.get(name, ()) if not r.type.endswith("_grad")]
    return fwd[0] if len(fwd) == 1 and fwd[0].block is block else None


def grad_slot(op, slot):
    """The names a gradient operator writes under ``slot`` (``[@EMPTY@]`` when none)."""
    return list(op.outputs.get(slot) or [EMPTY_VAR_NAME])


def fresh_name(block, name):
    """``name``, or ``name`` with a numeric suffix when the program already uses it."""
    base, k = name, 0
    while block._find_var_recursive(name) is not None:
        k += 1
        name = f"{base}_{k}"
    return name


def fuse(program, feed_names, fetch_names, matcher, rewriter):
    """Run one fusion over ``program``: ``matcher(uses, block, op)`` gives ``(chain, grads,
    *extra)`` or None for each operator; non-overlapping matches are handed to
    ``rewriter(block, chain, grads, *extra)``. Training programs: global block only (see the package
    docstring). Returns the number of chains fused."""
    blocks = program.blocks[:1] if has_grad_ops(program) else program.blocks
    fused, uses = 0, None
    for block in blocks:
        if uses is None:  # NOTE: program-wide, so rebuilt only after a block was rewritten
            uses = uses_of(program, feed_names, fetch_names)
        plans, taken = [], set()
        for op in block.ops:
            if id(op) in taken:
                continue
            plan = matcher(uses, block, op)
            if plan is not None and not any(id(o) in taken for o in plan[0] + plan[1]):
                taken.update(id(o) for o in plan[0] + plan[1])
                plans.append(plan)
        for plan in plans:
            rewriter(block, *plan)
            fused += 1
        if plans:
            uses = None
    if fused:
        program._bump()
    return fused

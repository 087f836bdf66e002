"""Dead-code elimination: drop the operators no fetched value and no side effect depends on.

Preserves: every fetched value, every write to a persistable variable (parameters, optimizer
state), every ``print`` / ``assert``, and every operator a control-flow op or a sub-block
needs. Global block: one backward sweep from the fetches and the side-effecting operators
(what the plan compiler would run anyway, done here so that later passes see only live
code). Sub-blocks (``cond`` branches, ``while`` bodies): an operator whose outputs nothing
reads is dropped, repeatedly; only in programs without gradient operators, because a
``while_grad`` saves and replays what its body defines. Then the declarations of variables
no operator reads or writes any more (the private intermediates of fused chains) go, except
fed, fetched, persistable and data variables.
"""
from ..analysis import op_reads, op_writes
from .graph import attr_names, has_grad_ops, uses_of

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Remove dead operators in place (and the declarations of temporaries no operator uses
    any more); returns how many operators were removed."""
    removed = _global(program, fetch_names)
    if not has_grad_ops(program) and len(program.blocks) > 1:
        removed += _sub_blocks(program, feed_names, fetch_names)
    _unused_vars(program, feed_names, fetch_names)
    return removed


def _unused_vars(program, feed_names, fetch_names):
    uses = uses_of(program, feed_names, fetch_names)
    for b in program.blocks:
        for name in [n for n in b.vars if n not in uses.protected and
                     not uses.readers.get(n) and not uses.writers.get(n)]:
            del b.vars[name]


def _global(program, fetch_names):
    gb = program.global_block()
    needed = set(fetch_names)
    kept = []
    uses = uses_of(program, (), fetch_names)
    for op in reversed(gb.ops):
        if uses.side_effect(gb, op) or any(n in needed for n in op_writes(op)):
            kept.append(op)
            needed.update(op_reads(op))
            needed.update(attr_names(op))
    kept.reverse()
    removed = len(gb.ops) - len(kept)
    gb.ops = kept
    return removed


def _sub_blocks(program, feed_names, fetch_names):
    """Drop sub-block operators whose outputs nothing reads, until none is left: a worklist
    over one use table (each drop lowers the read counts of what the dropped operator read,
    and revisits those names' writers)."""
    uses = uses_of(program, feed_names, fetch_names)
    reads = {n: len(ops) for n, ops in uses.readers.items()}
    sub = {id(b) for b in program.blocks[1:]}
    alive = {id(op) for b in program.blocks[1:] for op in b.ops}
    work = [op for b in program.blocks[1:] for op in b.ops]
    removed = 0
    while work:
        op = work.pop()
        if id(op) not in alive:
            continue
        outs = op_writes(op)
        if not outs or uses.side_effect(op.block, op) or any(
                n in uses.protected or reads.get(n, 0) for n in outs):
            continue
        alive.discard(id(op))
        removed += 1
        for n in op_reads(op) + attr_names(op):
            reads[n] -= 1
            if not reads[n]:
                work.extend(w for w in uses.writers.get(n, ()) if id(w.block) in sub)
    if removed:
        for b in program.blocks[1:]:
            b.ops = [op for op in b.ops if id(op) in alive]
    return removed

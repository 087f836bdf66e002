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
from .graph import Uses, attr_names, has_grad_ops

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
    uses = Uses(program, feed_names, fetch_names)
    for b in program.blocks:
        for name in [n for n in b.vars if n not in uses.protected and
                     not uses.readers.get(n) and not uses.writers.get(n)]:
            del b.vars[name]


def _global(program, fetch_names):
    gb = program.global_block()
    needed = set(fetch_names)
    kept = []
    uses = Uses(program, (), fetch_names)
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
    removed = 0
    while True:
        uses = Uses(program, feed_names, fetch_names)
        dropped = 0
        for b in program.blocks[1:]:
            keep = []
            for op in b.ops:
                outs = op_writes(op)
                dead = outs and not uses.side_effect(b, op) and all(
                    n not in uses.protected and not uses.readers.get(n) for n in outs)
                if dead:
                    dropped += 1
                else:
                    keep.append(op)
            b.ops = keep
        removed += dropped
        if not dropped:
            return removed

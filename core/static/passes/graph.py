"""What the passes ask of a Program: who reads and writes each name, which names must keep
their values, and small edits (replacing a run of operators by one).

Reads are counted program-wide and conservatively: an operator's declared inputs, and every
string held in its attributes (control-flow ops name their sub-blocks' outputs, loop
variables, saved values and gradients there; ``assert`` names its condition). A name counted
as read by mistake only makes a pass skip a rewrite.
"""
import collections

from ..analysis import has_side_effect, op_reads, op_writes
from ..operator import Operator

__all__ = ["Uses", "attr_names", "changed", "has_grad_ops", "new_op", "replace_ops", "uses_of"]


def attr_names(op):
    """Every string in ``op.attrs`` (lists flattened): the names an attribute may refer to."""
    out = []
    stack = list(op.attrs.values())
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return out


def has_grad_ops(program):
    """Whether any block holds a gradient operator (``<type>_grad``)."""
    return any(op.type.endswith("_grad") for b in program.blocks for op in b.ops)


class Uses:
    """Readers and writers of every name in ``program``, and the names that must keep their
    values (``protected``: fetched, fed, persistable, data)."""

    def __init__(self, program, feed_names, fetch_names):
        self.program = program
        self.readers = collections.defaultdict(list)
        self.writers = collections.defaultdict(list)
        for b in program.blocks:
            for op in b.ops:
                for n in op_reads(op) + attr_names(op):
                    self.readers[n].append(op)
                for n in op_writes(op):
                    self.writers[n].append(op)
        self.protected = set(feed_names) | set(fetch_names)
        for b in program.blocks:
            for name, v in b.vars.items():
                if v.persistable or v.is_data:
                    self.protected.add(name)

    def private(self, name, allowed):
        """True when ``name`` is an unprotected value written once, read only by operators in
        ``allowed`` (a collection of Operators, compared by identity)."""
        if name in self.protected or len(self.writers.get(name, ())) != 1:
            return False
        ids = {id(o) for o in allowed}
        return all(id(o) in ids for o in self.readers.get(name, ()))

    def side_effect(self, block, op):
        return has_side_effect(self.program, block, op)


def uses_of(program, feed_names, fetch_names):
    """The :class:`Uses` of ``program``, shared by the passes of one pipeline while its
    operators stay the same: the program keeps the last table per feed and fetch list with
    the identity of every operator of every block (and each block's number of variables);
    any operator added, removed or replaced, or a variable declared or deleted, builds a new
    one. A pass that changes an operator's inputs, outputs or attributes in place calls
    :func:`changed`. (The cached table holds the operators, so none of their ids is reused
    while it is kept.)"""
    key = (tuple(feed_names), tuple(fetch_names))
    ops = [op for b in program.blocks for op in b.ops]
    shape = tuple((len(b.ops), len(b.vars)) for b in program.blocks)
    cache = program.__dict__.setdefault("_pass_uses", {})
    hit = cache.get(key)
    if hit is not None and hit[0] == shape and len(hit[1]) == len(ops) and \
            all(a is b for a, b in zip(hit[1], ops)):
        return hit[2]
    uses = Uses(program, feed_names, fetch_names)
    cache[key] = (shape, ops, uses)
    return uses


def changed(program):
    """Forget the shared use tables of ``program`` (see :func:`uses_of`)."""
    program.__dict__.pop("_pass_uses", None)


def replace_ops(block, remove, new_op, at):
    """Remove the operators ``remove`` from ``block`` and insert ``new_op`` (an Operator built
    for ``block``) where ``at`` (one of them) stood."""
    ids = {id(o) for o in remove}
    ops = []
    for op in block.ops:
        if op is at:
            ops.append(new_op)
        if id(op) not in ids:
            ops.append(op)
    block.ops = ops


def new_op(block, type, inputs, outputs, attrs, like):
    """An Operator of ``block`` carrying ``like``'s role and origin (the user's line)."""
    return Operator(block, type, inputs, outputs, attrs, role=like.role, origin=like.origin)

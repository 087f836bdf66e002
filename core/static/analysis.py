"""Structural queries on Programs shared by the compiler and append_backward: which names an
operator reads and writes, its sub-blocks, side effects, and which variables a block body
defines (what a while loop saves per iteration)."""
from .program import EMPTY_VAR_NAME

__all__ = [
    "CONTROL_FLOW_OPS",
    "SIDE_EFFECT_OPS",
    "body_defined_vars",
    "has_side_effect",
    "op_reads",
    "op_writes",
    "sub_blocks",
]

CONTROL_FLOW_OPS = ("cond", "cond_grad", "while", "while_grad")
SIDE_EFFECT_OPS = ("print", "python_print", "assert")


def op_reads(op):
    """Names the operator reads (declared inputs; control-flow ops declare every outer name
    their sub-blocks read)."""
    return [n for v in op.inputs.values() for n in v if n != EMPTY_VAR_NAME]


def op_writes(op):
    return [n for v in op.outputs.values() for n in v if n != EMPTY_VAR_NAME]


def sub_blocks(op):
    """Indices of the sub-blocks a control-flow operator runs."""
    if op.type in ("cond", "cond_grad"):
        return [op.attrs["true_block"], op.attrs["false_block"]]
    if op.type in ("while", "while_grad"):
        return [op.attrs["sub_block"]]
    return []


def has_side_effect(program, block, op, _seen=None):
    """True when the operator must run even if no fetched value depends on it: it prints,
    asserts, or writes a persistable variable (parameters, optimizer state)."""
    if op.type in SIDE_EFFECT_OPS:
        return True
    for n in op_writes(op):
        v = block._find_var_recursive(n)
        if v is not None and v.persistable:
            return True
    for idx in sub_blocks(op):
        sb = program.block(idx)
        if any(has_side_effect(program, sb, o) for o in sb.ops):
            return True
    return False


def body_defined_vars(program, block):
    """Variables written inside ``block``, including the branches of its ``cond`` ops (not the
    bodies of nested while loops, whose values their own step list keeps), in a deterministic
    order: what a while loop saves per iteration for its gradient."""
    out, seen = [], set()

    def visit(b):
        for op in b.ops:
            for n in op_writes(op):
                v = b._find_var_recursive(n)
                if v is not None and id(v) not in seen:
                    seen.add(id(v))
                    out.append(v)
            if op.type == "cond":
                for idx in sub_blocks(op):
                    visit(program.block(idx))

    visit(block)
    return out

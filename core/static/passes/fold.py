"""Constant folding: an operator whose inputs are all constants is evaluated once, at compile
time, and replaced by an ``assign_value`` of its result.

Constants are the outputs of ``fill_constant`` / ``assign_value`` operators that read nothing,
written once, neither fed nor persistable; a folded result is a constant for the operators
after it. Only deterministic forward operators are folded (not random, not control flow, not
gradient ops, no side effect), with one output of at most ``MAX_ELEMENTS`` elements (the
value is stored in the operator's attributes). Preserves: every value (the registered kernel
computes it, on numpy, with the operator's own attributes; ``assign_value`` gives back the
same dtype and shape), every variable name, and the operators that read the result.
"""
import numpy as np

from ...ops.registry import KernelContext, get_op, slot_name
from ..analysis import CONTROL_FLOW_OPS, op_reads, op_writes
from .graph import new_op, uses_of

__all__ = ["MAX_ELEMENTS", "run"]

MAX_ELEMENTS = 256
CONSTANT_OPS = ("fill_constant", "assign_value")
_FOLDABLE_DTYPES = "biuf"


def run(program, feed_names, fetch_names):
    """Fold in place; returns the number of operators folded."""
    uses = uses_of(program, feed_names, fetch_names)
    ctx = KernelContext(np, None)
    values = {}
    constants = {}  # name -> its constant operator, evaluated when an operator folds with it
    folded = 0

    def known(name):
        if name not in values and name in constants:
            value = _evaluate(ctx, constants.pop(name), [])
            if value is None:
                return False
            values[name] = value
        return name in values

    for block in program.blocks:
        for i, op in enumerate(block.ops):
            outs = op_writes(op)
            if len(outs) != 1 or not _constant_target(block, uses, outs[0]):
                continue
            if op.type in CONSTANT_OPS and not op_reads(op):
                constants[outs[0]] = op
                continue
            ins = op_reads(op)
            if not ins or not all(n in values or n in constants for n in ins) or \
                    not _foldable(op) or not all(known(n) for n in ins):
                continue
            value = _evaluate(ctx, op, values)
            if value is None:
                continue
            v = block._find_var_recursive(outs[0])
            if value.size > MAX_ELEMENTS or value.dtype.kind not in _FOLDABLE_DTYPES or \
                    tuple(value.shape) != tuple(v.shape or ()) or value.dtype != v.dtype:
                continue
            values[outs[0]] = value
            block.ops[i] = new_op(block, "assign_value", {}, {"Out": [outs[0]]},
                                  {"shape": list(value.shape), "dtype": value.dtype.name,
                                   "values": value.reshape(-1).tolist()}, op)
            folded += 1
    if folded:
        program._bump()
    return folded


def _constant_target(block, uses, name):
    v = block._find_var_recursive(name)
    return v is not None and v.type == "lod_tensor" and name not in uses.protected and \
        len(uses.writers.get(name, ())) == 1


def _foldable(op):
    if op.type in CONTROL_FLOW_OPS or op.type.endswith("_grad"):
        return False
    try:
        opdef = get_op(op.type)
    except KeyError:
        return False
    return not opdef.random and len(opdef.outputs) == 1 and opdef.type not in ("print",
                                                                              "assert")


def _evaluate(ctx, op, values):
    """The op's result on the constant inputs, or None when it cannot be computed now."""
    opdef = get_op(op.type)
    args = []
    for slot in opdef.inputs:
        names = op.inputs.get(slot_name(slot), [])
        arrs = [values[n] for n in names]
        args.append(arrs if slot.endswith("*") else (arrs[0] if arrs else None))
    try:
        out = opdef.forward(ctx, *args, **opdef.full_attrs(op.attrs))
    except Exception:  # NOTE: left to fail (with the user's line) when the plan runs
        return None
    out = np.asarray(out)
    return out

"""Memory planning: operators that may write their result into an input's buffer (in place).

An elementwise operator whose plan kernel is one ufunc (binary elementwise ops with numpy
broadcasting, unary math ops, ``relu``, ``tanh``) writes its result into input ``X`` (or
``Y``) when that input is

* a private temporary (see :meth:`Uses.private`) read by this operator only, once: its value
  is dead afterwards and no other value can be a view of it;
* produced, in the same block, by an operator whose result is a fresh array nothing else
  refers to (ufunc-kernel ops, GEMMs, convolutions, pooling, ``softmax``, ``fc``);
* of the result's dtype and (static) shape, the other operand broadcasting into it without
  enlarging it (its dims known, each 1 or equal), and not 0-d (a numpy scalar has no buffer).

The plan compiler then emits ``ufunc(a, b, a)``: one allocation less per operator (measured:
``np.add`` of two [64, 800] float32 arrays takes half the time into an existing buffer).
Inside ``while`` bodies this reuses one buffer per iteration for a chain of elementwise ops.
Temporaries are already released after their last use by the plan compiler; across runs the
next run gets the same heap memory back (:mod:`core.host_memory` keeps it mapped: a warm
training step of a conv net faults in no pages, against about 3,000 per step with malloc's
defaults), so no plan keeps buffers of its own between runs.

Preserves: every value (a ufunc writing into a dead input gives the same result as into a
new array) and every variable name; the Program's operators are not changed (the pass only
records ``program._inplace``: operator id -> input slot name, read by the plan compiler).
"""
import numpy as np

from ...ops.registry import get_op
from ..analysis import op_reads, op_writes
from ..specialize import kernel_of
from .graph import uses_of

__all__ = ["FRESH_RESULT_OPS", "run"]

#: forward ops whose output is a new array no other value refers to
FRESH_RESULT_OPS = ("matmul", "mul", "fc", "conv2d", "conv2d_fusion", "conv2d_pool2d_fusion",
                    "pool2d", "softmax", "relu", "tanh", "sigmoid", "fused_elementwise",
                    "relu_pool2d")


def run(program, feed_names, fetch_names):
    """Record in-place operators in ``program._inplace``; returns how many."""
    uses = uses_of(program, feed_names, fetch_names)
    inplace = {}
    for block in program.blocks:
        for op in block.ops:
            slot = _inplace_slot(uses, block, op)
            if slot is not None:
                inplace[id(op)] = slot
    program._inplace = inplace
    return len(inplace)


def _ufunc_op(block, op):
    """Whether ``op``'s plan kernel is a single numpy ufunc call: the kernel the registry
    chooses for it (:func:`core.static.specialize.kernel_of`), or ``relu`` (compiled as
    ``maximum(x, 0)``)."""
    try:
        opdef = get_op(op.type)
        attrs = opdef.full_attrs(op.attrs)
    except (KeyError, TypeError):
        return False
    if op.type == "relu":
        return True
    try:
        kernel = kernel_of(block, op, opdef, attrs, np)
    except Exception:  # NOTE: an operator the plan compiler will report; not planned here
        return False
    return kernel.takes == "arrays" and isinstance(kernel.fn, np.ufunc)


def _fresh(block, op):
    return op.type in FRESH_RESULT_OPS or _ufunc_op(block, op)


def _inplace_slot(uses, block, op):
    if len(op_writes(op)) != 1 or op.attrs.get("axis", -1) != -1 or not _ufunc_op(block, op):
        return None
    out = block._find_var_recursive(op_writes(op)[0])
    if out is None or not out.shape or np.dtype(out.dtype).kind != "f":
        return None
    slots = [s for s in ("X", "Y") if len(op.inputs.get(s, ())) == 1]
    for slot in slots:
        name = op.inputs[slot][0]
        if op_reads(op).count(name) != 1 or not uses.private(name, [op]):
            continue
        producer = uses.writers[name][0]
        v = block._find_var_recursive(name)
        if producer.block is not block or not _fresh(block, producer) or v is None or \
                v.dtype != out.dtype or list(v.shape or ()) != list(out.shape):
            continue
        others = [block._find_var_recursive(op.inputs[s][0]) for s in slots if s != slot]
        if all(o is not None and _fits(o.shape, v.shape) for o in others):
            return slot
    return None


def _fits(small, big):
    """Whether a value of static shape ``small`` broadcasts into ``big`` without enlarging."""
    if small is None or len(small) > len(big):
        return False
    for s, b in zip(reversed(small), reversed(big)):
        if s == -1 or not (s == 1 or s == b):
            return False
    return True

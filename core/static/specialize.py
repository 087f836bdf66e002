"""Kernel selection for a Program's operator: the static side of the registry's one selection
path, :meth:`core.ops.registry.OpDef.kernel_for`, asked with the operator's static input
metas (shapes and dtypes of its input Variables).

The plan compiler (:mod:`core.static.codegen`) binds the chosen kernel once per operator;
memory planning (:mod:`core.static.passes.memory`) asks the same question to learn which
operators run one numpy ufunc (and so may write into a buffer with ``out=``).
"""
from ..ops.registry import Meta, is_list_slot, slot_name
from .operator import EMPTY_VAR_NAME

__all__ = ["input_metas", "kernel_of"]


def input_metas(block, op, opdef, var=None):
    """The :class:`Meta` of each input slot of ``op`` (a list for a list slot, None for an
    absent input); ``var(block, name, op)`` resolves a name (default: the block's lookup)."""
    metas = []
    for slot in opdef.inputs:
        ms = []
        for n in op.inputs.get(slot_name(slot), []):
            v = None if n == EMPTY_VAR_NAME else (
                var(block, n, op) if var is not None else block._find_var_recursive(n))
            ms.append(None if v is None else Meta(tuple(v.shape or ()), v.dtype))
        metas.append(ms if is_list_slot(slot) else (ms[0] if ms else None))
    return metas


def kernel_of(block, op, opdef, attrs, xp, var=None):
    """The :class:`~core.ops.registry.Kernel` operator ``op`` of ``block`` runs on ``xp``
    (``attrs``: its complete attributes)."""
    return opdef.kernel_for(xp, input_metas(block, op, opdef, var), attrs)

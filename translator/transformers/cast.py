"""``int(x)``, ``float(x)``, ``bool(x)``, ``len(x)`` -> ``_d2s.convert_call(int)(x)`` (...).

``convert_call`` decides at run time what the name holds: the builtin maps to its helper
(``convert_cast``: a ``cast`` op for a static Variable, a 0-d Variable standing for the Python
number; ``convert_len``: its first dimension, a ``shape`` op or ``array_length`` for a tensor
array), which keeps Python's builtin for other values and other argument lists
(``int('7', 8)``); a local, closure or global of that name holds the user's object, called
as it is.
"""
import gast

from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]

_NAMES = ("int", "float", "bool", "len")


class _Cast(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Name) and func.id in _NAMES:
            node.func = replace_as_expression("helpers.convert_call(func)", origin=node,
                                              helpers=self.ctx.helpers, func=func)
        return node


def needed(ctx):
    """Whether the source uses one of the names (as any identifier)."""
    return any(ctx.uses(n) for n in _NAMES)

def transform(node, ctx):
    return _Cast(ctx).visit(node)

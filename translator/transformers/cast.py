"""``int(x)``, ``float(x)``, ``bool(x)`` -> ``_d2s.convert_cast(x, 'int')`` (...) and
``len(x)`` -> ``_d2s.convert_len(x)``.

Only one-argument calls of those builtin names are rewritten (``int('7', 8)`` stays). At run
time a static Variable gets a ``cast`` op (int64 / float32 / bool) or its first dimension
(``shape`` op / ``array_length`` for a tensor array); other values use the builtin.
"""
import gast

from ..gast_nodes import constant
from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]

_CASTS = ("int", "float", "bool")


class _Cast(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, gast.Name) or len(node.args) != 1 or node.keywords or \
                isinstance(node.args[0], gast.Starred):
            return node
        if func.id in _CASTS:
            return replace_as_expression("helpers.convert_cast(x, kind)", origin=node,
                                         helpers=self.ctx.helpers, x=node.args[0],
                                         kind=constant(func.id))
        if func.id == "len":
            return replace_as_expression("helpers.convert_len(x)", origin=node,
                                         helpers=self.ctx.helpers, x=node.args[0])
        return node


def transform(node, ctx):
    return _Cast(ctx).visit(node)

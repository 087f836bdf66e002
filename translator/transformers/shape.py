"""``x.shape`` (a load) -> ``_d2s.convert_shape(x)``.

At run time a static Variable's known dimensions stay Python ints and unknown ones (-1) are
read from a ``shape`` op; anything else (eager tensors, numpy arrays) returns its own
``.shape``. Stores (``obj.shape = ...``) are left alone.
"""
import gast

from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]


class _Shape(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr != "shape" or not isinstance(node.ctx, gast.Load):
            return node
        return replace_as_expression("helpers.convert_shape(x)", origin=node,
                                     helpers=self.ctx.helpers, x=node.value)


def needed(ctx):
    return "shape" in ctx.attributes

def transform(node, ctx):
    return _Shape(ctx).visit(node)

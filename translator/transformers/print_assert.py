"""``print(...)`` -> ``_d2s.convert_print(...)`` and ``assert c, msg`` ->
``_d2s.convert_assert(c, msg)``.

At run time a static Tensor argument becomes a ``Print`` op (an ``Assert`` op for a static
condition); anything else prints / asserts as Python does. The assert message is evaluated
only when the condition is false, as in Python (it is passed as a thunk).
"""
import gast

from ..templates import replace, replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]


class _PrintAssert(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "print":
            node.func = replace_as_expression("helpers.convert_print", origin=node,
                                              helpers=self.ctx.helpers)
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        if node.msg is None:
            return replace("helpers.convert_assert(test)", origin=node,
                           helpers=self.ctx.helpers, test=node.test)
        return replace("helpers.convert_assert(test, lambda: msg)", origin=node,
                       helpers=self.ctx.helpers, test=node.test, msg=node.msg)


def transform(node, ctx):
    return _PrintAssert(ctx).visit(node)

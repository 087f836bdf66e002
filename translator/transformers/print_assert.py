"""``print(...)`` -> ``_d2s.convert_call(print)(...)`` and ``assert c, msg`` ->
``_d2s.convert_assert(c, msg)``.

``convert_call`` decides at run time what the name ``print`` holds: the builtin maps to
``convert_print`` (while a Program is built, a ``python_print`` op that writes what eager
``print`` writes each time the program runs); a user's object of that name is called as
it is. A static condition becomes an ``Assert`` op; anything else asserts as Python does.
The assert message is evaluated only when the condition is false, as in Python (it is passed
as a thunk).
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
            node.func = replace_as_expression("helpers.convert_call(print)", origin=node,
                                              helpers=self.ctx.helpers)
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        if node.msg is None:
            return replace("helpers.convert_assert(test)", origin=node,
                           helpers=self.ctx.helpers, test=node.test)
        return replace("helpers.convert_assert(test, lambda: msg)", origin=node,
                       helpers=self.ctx.helpers, test=node.test, msg=node.msg)


def needed(ctx):
    """Whether the source has an ``assert`` or uses the name ``print``."""
    return gast.Assert in ctx.kinds or ctx.uses("print")

def transform(node, ctx):
    return _PrintAssert(ctx).visit(node)

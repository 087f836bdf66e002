"""Calls: ``f(a, b=c)`` -> ``_d2s.convert_call(f)(a, b=c)``.

At run time ``convert_call`` returns the converted ``f`` for user functions, methods and
Layers (converted recursively, cached) and ``f`` itself for builtins, library code and
``not_to_static`` functions; ``range``/``enumerate``/``zip``/``len``/``print`` map to their
static-aware helpers. Calls to the helpers themselves (``_d2s.*``) are left alone, and so is
``super``; a zero-argument ``super()`` in a method becomes ``super(__class__, self)`` because
the converted function is not defined in the class body (``__class__`` is the original
method's closure cell, which the converted function shares).
"""
import gast

from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]


class _Call(NodeTransformer):
    def __init__(self, ctx, fn_node):
        self.ctx = ctx
        args = fn_node.args.posonlyargs + fn_node.args.args
        self.first_param = args[0].id if args else None

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id == self.ctx.helpers:
            return node
        if isinstance(func, gast.Name) and func.id == "super":
            if not node.args and not node.keywords and self.first_param is not None:
                return replace_as_expression("super(__class__, first)", origin=node,
                                             first=self.first_param)
            return node
        node.func = replace_as_expression("helpers.convert_call(func)", origin=node,
                                          helpers=self.ctx.helpers, func=func)
        return node


def transform(node, ctx):
    return _Call(ctx, node).visit(node)

"""``and`` / ``or`` / ``not``, chained comparisons and ``in``.

* ``a and b and c`` -> ``_d2s.convert_logical_and(lambda: a, lambda:
  _d2s.convert_logical_and(lambda: b, lambda: c))`` (``or`` alike): each operand is a thunk,
  so the right side runs only when the left does not decide -- Python's short circuit, kept
  for static Tensors by building a ``cond``.
* ``not x`` -> ``_d2s.convert_logical_not(x)``.
* ``a < b <= c`` -> ``_d2s.convert_compare(lambda: a, ('Lt', lambda: b), ('LtE', lambda:
  c))``: the pairs are joined with the same ``and``, each operand evaluated at most once.
* ``k in d`` / ``k not in d`` -> ``_d2s.convert_in(k, d, negate)``: a dict entry a Tensor
  ``if`` set on one path only is in the dict exactly when that path ran (its bound flag).

A ``for`` loop's ``extra_test`` annotation is converted too.

Limitation: an assignment expression (``:=``) inside an operand binds in the thunk's scope.
"""
import gast

from ..gast_nodes import constant, get_anno, set_anno
from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]

_AND = "helpers.convert_logical_and(lambda: left, lambda: right)"
_OR = "helpers.convert_logical_or(lambda: left, lambda: right)"


class _Logical(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        template = _AND if isinstance(node.op, gast.And) else _OR
        result = node.values[-1]
        for left in reversed(node.values[:-1]):
            result = replace_as_expression(template, origin=node, helpers=self.ctx.helpers,
                                           left=left, right=result)
        return result

    def visit_For(self, node):
        self.generic_visit(node)
        extra = get_anno(node, "extra_test")
        if extra is not None:
            set_anno(node, "extra_test", self.visit(extra))
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return replace_as_expression("helpers.convert_logical_not(operand)", origin=node,
                                     helpers=self.ctx.helpers, operand=node.operand)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.In, gast.NotIn)):
            # ``key in d``: a dict entry a tensor ``if`` set on one path is there at run time
            return replace_as_expression(
                "helpers.convert_in(item, container, negate)", origin=node,
                helpers=self.ctx.helpers, item=node.left, container=node.comparators[0],
                negate=constant(isinstance(node.ops[0], gast.NotIn)))
        if len(node.ops) < 2:
            return node
        pairs = [replace_as_expression("(op, lambda: operand)", origin=node,
                                       op=constant(type(op).__name__), operand=operand)
                 for op, operand in zip(node.ops, node.comparators)]
        return replace_as_expression("helpers.convert_compare(lambda: left, pairs)",
                                     origin=node, helpers=self.ctx.helpers, left=node.left,
                                     pairs=pairs)


def transform(node, ctx):
    return _Logical(ctx).visit(node)

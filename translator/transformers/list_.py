"""List updates that a static loop must carry: ``l.append(v)`` and ``l.pop(...)``.

* ``l.append(v)`` (a statement) -> ``l = _d2s.convert_list_append(l, v)``;
* ``y = l.pop(i)`` -> ``l, y = _d2s.convert_list_pop(l, i)`` (also as a bare statement).

Rebinding ``l`` makes it a name the loop modifies, so it becomes a loop variable; at run time a
static loop turns a Python list loop variable into a tensor array, and the helpers append with
``array_write`` / read with ``array_read`` on a tensor array, or act on the list as Python
does. Only the function's own local names are rewritten (``self.items.append(v)`` and
global lists are left alone).
"""
import gast

from .. import static_analysis as sa
from ..templates import replace

__all__ = ["transform"]


def _method_call(expr, method, local_names):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
        expr.func.attr == method and isinstance(expr.func.value, gast.Name) and \
        expr.func.value.id in local_names and \
        not any(isinstance(a, gast.Starred) for a in expr.args) and not expr.keywords


class _List(gast.NodeTransformer):
    """Rewrites list updates of the function's own local names (not globals or free names)."""

    def __init__(self, ctx, fn_node):
        self.ctx = ctx
        self.locals = sa.writes(fn_node.body) | sa.writes(fn_node.args) - \
            sa.declared_globals(fn_node)

    def visit_FunctionDef(self, node):
        saved = self.locals
        self.locals = sa.writes(node.body) | sa.writes(node.args) - sa.declared_globals(node)
        try:
            return self.generic_visit(node)
        finally:
            self.locals = saved

    def visit_Expr(self, node):
        call = node.value
        if _method_call(call, "append", self.locals) and len(call.args) == 1:
            return replace("target = helpers.convert_list_append(target, value)", origin=node,
                           helpers=self.ctx.helpers, target=call.func.value.id,
                           value=call.args[0])
        if _method_call(call, "pop", self.locals):
            return replace("target, popped = helpers.convert_list_pop(target, index)",
                           origin=node, helpers=self.ctx.helpers, target=call.func.value.id,
                           popped=self.ctx.new_name("popped"), index=list(call.args))
        return node

    def visit_Assign(self, node):
        call = node.value
        if len(node.targets) == 1 and _method_call(call, "pop", self.locals):
            return replace("target, result = helpers.convert_list_pop(target, index)",
                           origin=node, helpers=self.ctx.helpers, target=call.func.value.id,
                           result=node.targets[0], index=list(call.args))
        return node


def transform(node, ctx):
    return _List(ctx, node).visit(node)

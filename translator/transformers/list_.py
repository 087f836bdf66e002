"""List updates that a static loop must carry: ``l.append(v)`` and ``l.pop(...)``, and reads
of such lists.

* ``l.append(v)`` (a statement) -> ``l = _d2s.convert_list_append(l, v)``;
* ``y = l.pop(i)`` -> ``l, y = _d2s.convert_list_pop(l, i)`` (also as a bare statement);
  elsewhere in an expression (``s = s + l.pop()``), ``l.pop(i)`` -> ``((p :=
  _d2s.convert_list_pop(l, i)), (l := p[0]))[0][1]``, which rebinds ``l`` in evaluation order
  (not inside comprehensions, where Python forbids some assignment expressions);
* ``l[i]`` (a load, ``i`` not a slice) of a name the function appends to or pops from ->
  ``_d2s.convert_list_getitem(l, i)``; ``l[i] = v`` / ``l[i] += v`` of such a name ->
  ``l = _d2s.convert_setitem(l, i, v)`` (``convert_setitem_aug``), and ``del l[i]`` -> ``l, _
  = _d2s.convert_list_pop(l, i)``: the list may be a tensor array, which they write.

Rebinding ``l`` makes it a name the loop modifies, so it becomes a loop variable; at run time a
static loop turns a Python list loop variable into a tensor array, and the helpers append with
``array_write`` / read with ``array_read`` on a tensor array, or act on the list as Python
does. Only the function's own local names are rewritten (``self.items.append(v)`` and
global lists are left alone); subscripts only of names the same scope appends to or pops
from, so other indexing (tensors, dicts) is untouched.
"""
import gast

from .. import static_analysis as sa
from ..gast_nodes import constant
from ..templates import replace, replace_as_expression
from ..visitor import NodeTransformer, NodeVisitor

__all__ = ["transform"]


def _method_call(expr, method, local_names):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and \
        expr.func.attr == method and isinstance(expr.func.value, gast.Name) and \
        expr.func.value.id in local_names and \
        not any(isinstance(a, gast.Starred) for a in expr.args) and not expr.keywords


class _ListNames(NodeVisitor):
    """The local names a scope calls ``.append`` / ``.pop`` on (nested scopes not entered)."""

    def __init__(self, local_names):
        self.local_names, self.found = local_names, set()

    def visit_Call(self, node):
        for method in ("append", "pop"):
            if _method_call(node, method, self.local_names):
                self.found.add(node.func.value.id)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        return None

    visit_Lambda = visit_FunctionDef


def _list_names(fn_node, local_names):
    finder = _ListNames(local_names)
    for stmt in fn_node.body:
        finder.visit(stmt)
    return finder.found


class _List(NodeTransformer):
    """Rewrites list updates of the function's own local names (not globals or free names)."""

    def __init__(self, ctx, fn_node):
        self.ctx = ctx
        self.locals = sa.writes(fn_node.body) | sa.writes(fn_node.args) - \
            sa.declared_globals(fn_node)
        self.lists = _list_names(fn_node, self.locals)
        self.in_comprehension = False

    def visit_FunctionDef(self, node):
        saved = self.locals, self.lists
        self.locals = sa.writes(node.body) | sa.writes(node.args) - sa.declared_globals(node)
        self.lists = _list_names(node, self.locals)
        try:
            return self.generic_visit(node)
        finally:
            self.locals, self.lists = saved

    def visit_Lambda(self, node):
        saved = self.lists
        self.lists = set()  # a lambda's parameters may shadow the lists
        try:
            return self.generic_visit(node)
        finally:
            self.lists = saved

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load) or not isinstance(node.value, gast.Name) or \
                node.value.id not in self.lists or isinstance(node.slice, gast.Tuple):
            return node
        index = node.slice
        if isinstance(index, gast.Slice):  # a[lo:hi:st] -> slice(lo, hi, st)
            index = replace_as_expression(
                "slice(lower, upper, step)", origin=node, **{
                    part: getattr(index, part) or constant(None)
                    for part in ("lower", "upper", "step")})
        return replace_as_expression("helpers.convert_list_getitem(target, index)", origin=node,
                                     helpers=self.ctx.helpers, target=node.value.id,
                                     index=index)

    def _visit_args(self, call):
        call.args = [self.visit(a) for a in call.args]
        return call

    def visit_Expr(self, node):
        call = node.value
        if _method_call(call, "append", self.locals) and len(call.args) == 1:
            self._visit_args(call)
            return replace("target = helpers.convert_list_append(target, value)", origin=node,
                           helpers=self.ctx.helpers, target=call.func.value.id,
                           value=call.args[0])
        if _method_call(call, "pop", self.locals):
            self._visit_args(call)
            return replace("target, popped = helpers.convert_list_pop(target, index)",
                           origin=node, helpers=self.ctx.helpers, target=call.func.value.id,
                           popped=self.ctx.new_name("popped"), index=list(call.args))
        return self.generic_visit(node)

    def _list_item(self, target):
        """``name[i]`` (``i`` not a slice or tuple) of a list the scope appends to / pops."""
        return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
            target.value.id in self.lists and \
            not isinstance(target.slice, (gast.Slice, gast.Tuple))

    def visit_Delete(self, node):
        # ``del l[i]`` is ``l.pop(i)`` without the item: on a tensor array, a new array
        if not node.targets or not all(self._list_item(t) for t in node.targets):
            return self.generic_visit(node)
        out = []
        for target in node.targets:
            out += replace("name, popped = helpers.convert_list_pop(name, index)", origin=node,
                           helpers=self.ctx.helpers, name=target.value.id,
                           popped=self.ctx.new_name("popped"),
                           index=[self.visit(target.slice)])
        return out

    def visit_AugAssign(self, node):
        if not self._list_item(node.target):
            return self.generic_visit(node)
        node.value = self.visit(node.value)
        target = node.target
        return replace("name = helpers.convert_setitem_aug(name, index, op, value)",
                       origin=node, helpers=self.ctx.helpers, name=target.value.id,
                       index=self.visit(target.slice), op=constant(type(node.op).__name__),
                       value=node.value)

    def visit_Assign(self, node):
        if len(node.targets) == 1 and self._list_item(node.targets[0]):
            # an item of a list that may be a tensor array (its length changes in a loop):
            # ``convert_setitem`` writes the array, or the Python list in place
            node.value = self.visit(node.value)
            target = node.targets[0]
            return replace("name = helpers.convert_setitem(name, index, value)", origin=node,
                           helpers=self.ctx.helpers, name=target.value.id,
                           index=self.visit(target.slice), value=node.value)
        call = node.value
        if len(node.targets) == 1 and _method_call(call, "pop", self.locals):
            self._visit_args(call)
            node.targets = [self.visit(t) for t in node.targets]
            return replace("target, result = helpers.convert_list_pop(target, index)",
                           origin=node, helpers=self.ctx.helpers, target=call.func.value.id,
                           result=node.targets[0], index=list(call.args))
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.in_comprehension or not _method_call(node, "pop", self.locals):
            return node
        return replace_as_expression(
            "((popped := helpers.convert_list_pop(target, index)), (target := popped[0]))[0][1]",
            origin=node, helpers=self.ctx.helpers, target=node.func.value.id,
            popped=self.ctx.new_name("popped"), index=list(node.args))

    def _visit_comprehension(self, node):
        saved, self.in_comprehension = self.in_comprehension, True
        try:
            return self.generic_visit(node)
        finally:
            self.in_comprehension = saved

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension


def _has_list_calls(fn_node):
    """Whether any ``name.append(...)`` / ``name.pop(...)`` call occurs: without one the pass
    changes nothing (no list names, so no subscript is rewritten either)."""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and
               n.func.attr in ("append", "pop") and isinstance(n.func.value, gast.Name)
               for n in gast.walk(fn_node))


def needed(ctx):
    return "append" in ctx.attributes or "pop" in ctx.attributes

def transform(node, ctx):
    if not _has_list_calls(node):
        return node
    return _List(ctx, node).visit(node)

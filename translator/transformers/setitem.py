"""Item assignment to a local name: ``x[i] = v`` -> ``x = _d2s.convert_setitem(x, i, v)``,
and ``x[i] += v`` (any augmented operator) -> ``x = _d2s.convert_setitem_aug(x, i, 'Add', v)``.

Assigning into a tensor gives it a new value, which inside a tensor ``if`` / ``while`` /
``for`` is a value of the body's block: written as a rebinding of ``x``, the name is one the
construct modifies, so the ``cond`` / ``while_loop`` carries it out like any other name. At
run time the helper gives a static Variable the ``setitem`` op and does Python's item
assignment on anything else (eager tensors, lists, dicts: the same object, returned). A
slice in the index becomes a ``slice(...)`` call. The augmented form evaluates ``x`` and the
index once, as Python does, and applies the operator as Python's ``x[i] op= v`` does
(``operator.iadd`` and friends on ``x[i]``).

Only the function's own local names are rewritten (a free or global name must not become
local), and only a statement with a single item target. Names the function binds to a list
or dict (a display, a comprehension, ``list(...)`` / ``dict(...)``) or appends to / pops
from are left alone: they are Python containers, whose constant-key items a static
construct carries one by one (``scope.store_targets``).
"""
import gast

from .. import static_analysis as sa
from ..templates import replace
from ..visitor import NodeTransformer, NodeVisitor

__all__ = ["transform"]

_CONTAINERS = (gast.List, gast.Dict, gast.ListComp, gast.DictComp, gast.Set, gast.SetComp)
_CONTAINER_CALLS = ("list", "dict", "set", "OrderedDict", "defaultdict")


def _index_expr(index):
    """The index of a subscript as an expression: slices become ``slice(...)`` calls."""
    if isinstance(index, gast.Slice):
        none = gast.Constant(value=None, kind=None)
        return gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None,
                                        type_comment=None),
                         args=[index.lower or none, index.upper or none, index.step or none],
                         keywords=[])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_expr(e) for e in index.elts], ctx=gast.Load())
    return index


def _is_container(value):
    if isinstance(value, _CONTAINERS):
        return True
    if isinstance(value, gast.Call):
        func = value.func
        name = func.id if isinstance(func, gast.Name) else \
            func.attr if isinstance(func, gast.Attribute) else None
        return name in _CONTAINER_CALLS
    return False


class _Containers(NodeVisitor):
    """The names a scope binds to a list / dict / set or calls ``.append`` / ``.pop`` on
    (nested scopes not entered)."""

    def __init__(self):
        self.found = set()

    def visit_Assign(self, node):
        if _is_container(node.value):
            self.found.update(t.id for t in node.targets if isinstance(t, gast.Name))
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        if node.value is not None and _is_container(node.value) and \
                isinstance(node.target, gast.Name):
            self.found.add(node.target.id)
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.attr in ("append", "pop", "extend", "insert", "update", "setdefault"):
            self.found.add(func.value.id)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        return None

    visit_Lambda = visit_FunctionDef


def _candidates(fn_node):
    local = (sa.writes(fn_node.body) | sa.writes(fn_node.args)) - sa.declared_globals(fn_node)
    finder = _Containers()
    for stmt in fn_node.body:
        finder.visit(stmt)
    return local - finder.found


class _SetItem(NodeTransformer):
    def __init__(self, ctx, fn_node):
        self.ctx = ctx
        self.names = _candidates(fn_node)

    def visit_FunctionDef(self, node):
        saved = self.names
        self.names = _candidates(node)
        try:
            return self.generic_visit(node)
        finally:
            self.names = saved

    def visit_Lambda(self, node):
        return node  # no statements inside

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        target = node.targets[0]
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and
                target.value.id in self.names):
            return node
        return replace("name = helpers.convert_setitem(name, index, value)", origin=node,
                       helpers=self.ctx.helpers, name=target.value.id,
                       index=_index_expr(target.slice), value=node.value)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and
                target.value.id in self.names):
            return node
        return replace("name = helpers.convert_setitem_aug(name, index, op, value)",
                       origin=node, helpers=self.ctx.helpers, name=target.value.id,
                       index=_index_expr(target.slice),
                       op=gast.Constant(value=type(node.op).__name__, kind=None),
                       value=node.value)


def _item_target(node):
    if isinstance(node, gast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, gast.AugAssign):
        target = node.target
    else:
        return None
    return target if isinstance(target, gast.Subscript) and \
        isinstance(target.value, gast.Name) else None


def _has_item_store(fn_node):
    return any(_item_target(n) is not None for n in gast.walk(fn_node))


def needed(ctx):
    return gast.Subscript in ctx.kinds

def transform(node, ctx):
    if not _has_item_store(node):
        return node
    return _SetItem(ctx, node).visit(node)

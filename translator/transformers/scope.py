"""Scope bookkeeping shared by the control-flow transformers.

:class:`ScopeTracker` is a gast ``NodeTransformer`` that knows, while visiting, the names the
innermost enclosing function declares ``global`` (``self.globals``); nested functions are
visited as their own scopes. :func:`undefined_inits` gives the ``name = UndefinedVar('name')``
statements a construct needs for modified names that no earlier statement binds (``nonlocal``
in the generated functions needs a binding in the enclosing function, and the value reads as
"undefined" until assigned). :func:`hoist_undefined_inits` then moves them to the top of the
user function: Python never unbinds a name, and a start inside a loop body would run again
each iteration (and make the name look dead at the loop head).
"""
import gast

from .. import static_analysis as sa
from ..gast_nodes import constant
from ..templates import replace
from ..visitor import NodeTransformer

__all__ = ["ScopeTracker", "hoist_undefined_inits", "is_undefined_init", "undefined_inits"]


class ScopeTracker(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.globals = frozenset()

    def visit_FunctionDef(self, node):
        saved = self.globals
        self.globals = sa.declared_globals(node)
        try:
            return self.generic_visit(node)
        finally:
            self.globals = saved


def undefined_inits(ctx, node, names):
    """``name = _d2s.UndefinedVar('name')`` for each of ``names`` not bound before ``node``."""
    out = []
    for name in names:
        if name not in sa.defined_before(node):
            out += replace("name = helpers.UndefinedVar(label)", origin=node, name=name,
                           helpers=ctx.helpers, label=constant(name))
    return out


def is_undefined_init(stmt, helpers):
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Call)):
        return False
    func = stmt.value.func
    return isinstance(func, gast.Attribute) and func.attr == "UndefinedVar" and \
        isinstance(func.value, gast.Name) and func.value.id == helpers


def _hoist(fn_node, ctx):
    """Move the ``UndefinedVar`` starts out of the generated functions to the top of
    ``fn_node`` (a user function), one per name. Python never unbinds a name: started inside
    a loop body, the start would run again each iteration and forget the value an earlier
    iteration bound."""
    starts, todo = {}, [fn_node]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            kept = []
            for stmt in stmts:
                if is_undefined_init(stmt, ctx.helpers):
                    starts.setdefault(stmt.targets[0].id, stmt)
                    continue
                kept.append(stmt)
                if isinstance(stmt, gast.FunctionDef) and \
                        stmt.name not in ctx.generated_functions:
                    continue  # a nested user function: its own scope
                if not isinstance(stmt, gast.Lambda):
                    todo.append(stmt)
            stmts[:] = kept
        for handler in getattr(node, "handlers", None) or ():
            todo.append(handler)
    fn_node.body[:0] = [starts[name] for name in sorted(starts)]


def hoist_undefined_inits(node, ctx):
    """Move every ``UndefinedVar`` start to the top of its user function (see ``_hoist``)."""
    for fn in [n for n in gast.walk(node) if isinstance(n, gast.FunctionDef) and
               n.name not in ctx.generated_functions]:
        _hoist(fn, ctx)
    return node

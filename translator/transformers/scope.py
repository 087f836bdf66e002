"""Scope bookkeeping shared by the control-flow transformers.

:class:`ScopeTracker` is a gast ``NodeTransformer`` that knows, while visiting, the names the
innermost enclosing function declares ``global`` (``self.globals``); nested functions are
visited as their own scopes. :func:`undefined_inits` gives the ``name = UndefinedVar('name')``
statements a construct needs for modified names that no earlier statement binds (``nonlocal``
in the generated functions needs a binding in the enclosing function, and the value reads as
"undefined" until assigned).
"""
from .. import static_analysis as sa
from ..gast_nodes import constant
from ..templates import replace
from ..visitor import NodeTransformer

__all__ = ["ScopeTracker", "undefined_inits"]


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

"""Reads of names that may be unbound: ``y`` -> ``_d2s.check_bound(y, 'y')``.

The control-flow passes start every name a construct binds but no earlier statement binds as
``y = _d2s.UndefinedVar('y')``; exactly those names may be unbound when read later. Each
load of such a name in the function (its generated branch and loop functions included)
is wrapped, so at run time:

* an undefined Python-path value raises ``UnboundLocalError`` at the read, as in Python;
* a value a static ``cond`` / ``while_loop`` bound on some paths only gets an ``Assert`` on
  its bound flag (``control_flow.check_bound``): the Program is built, and a run fails only
  if it takes a path that leaves the name unbound, naming the assigning and reading lines.

Runs last, so it sees the
names the ``ifelse`` and ``loop`` passes initialised. Nested user functions and lambdas that
rebind such a name as a parameter are left alone.
"""
import gast

from ..gast_nodes import constant
from ..templates import replace_as_expression
from ..visitor import NodeTransformer
from .scope import is_undefined_init

__all__ = ["transform"]


def _maybe_unbound_names(fn_node, helpers):
    """The names ``fn_node`` initialises with ``helpers.UndefinedVar(...)``."""
    return {node.targets[0].id for node in gast.walk(fn_node)
            if is_undefined_init(node, helpers)}


def _params(node):
    a = node.args
    names = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    return names | {p.id for p in (a.vararg, a.kwarg) if p is not None}


class _Unbound(NodeTransformer):
    def __init__(self, ctx, names):
        self.ctx, self.names = ctx, set(names)

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return replace_as_expression("helpers.check_bound(name, label)", origin=node,
                                         helpers=self.ctx.helpers, name=node.id,
                                         label=constant(node.id))
        return node

    def _scope(self, node):
        saved = self.names
        self.names = saved - _params(node)
        try:
            return self.generic_visit(node)
        finally:
            self.names = saved

    visit_Lambda = _scope

    def visit_FunctionDef(self, node):
        return self._scope(node)


def transform(node, ctx):
    names = _maybe_unbound_names(node, ctx.helpers)
    if not names:
        return node
    return _Unbound(ctx, names).visit(node)

"""Reads of names that may be unbound: ``y`` -> ``_d2s.check_bound(y, 'y')``, and of the
attributes / items a construct carries: ``self.h`` -> ``_d2s.check_bound(self.h, 'self.h')``.

The control-flow passes start every name a construct binds but no earlier statement binds as
``y = _d2s.UndefinedVar('y')`` (and note it in ``ctx.undefined_names``); exactly those names
may be unbound when read later. Each
load of such a name in the function (its generated branch and loop functions included)
is wrapped, so at run time:

* an undefined Python-path value raises ``UnboundLocalError`` at the read, as in Python;
* a value a static ``cond`` / ``while_loop`` bound on some paths only gets an ``Assert`` on its
  bound flag (``control_flow.carry.check_bound``): the Program is built, and a run fails only if
  it takes a path that leaves the name unbound, naming the assigning and reading lines.

The same holds for an attribute or constant-key item (``self.h``, ``self.d["k"]``) that a
construct assigns (a ``_d2s.Targets`` entry, noted in ``ctx.carried_labels``) and that had no
value before it: a missing one
raises ``AttributeError`` / ``KeyError`` at the read as in Python, and a static one bound on
some paths only gets the ``Assert``. Reads of the same source text are wrapped.

Runs last, so it sees the
names the ``ifelse`` and ``loop`` passes initialised. Nested user functions and lambdas that
rebind such a name as a parameter are left alone.
"""
import gast

from ..gast_nodes import constant
from ..templates import replace, replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]


def _params(node):
    a = node.args
    names = {p.id for p in a.posonlyargs + a.args + a.kwonlyargs}
    return names | {p.id for p in (a.vararg, a.kwarg) if p is not None}


class _Unbound(NodeTransformer):
    def __init__(self, ctx, names, labels):
        self.ctx, self.names, self.labels = ctx, set(names), labels

    def _checked(self, value, label, origin):
        return replace_as_expression("helpers.check_bound(value, label)", origin=origin,
                                     helpers=self.ctx.helpers, value=value,
                                     label=constant(label))

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.names:
            return self._checked(node.id, node.id, node)
        return node

    def _carried_target(self, node):
        label = gast.unparse(node) if isinstance(node.ctx, gast.Load) and self.labels else None
        node = self.generic_visit(node)
        return self._checked(node, label, node) if label in self.labels else node

    visit_Attribute = visit_Subscript = _carried_target

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


class _Del(NodeTransformer):
    """``del a, b.c`` -> ``a = helpers.Deleted('a')`` then ``del b.c``: a deleted name is an
    undefined value from there on, so every path that may have deleted it is checked where
    it is read (and a ``cond`` that deletes it on one path carries its bound flag)."""

    def __init__(self, ctx):
        self.ctx, self.names = ctx, set()

    def visit_Delete(self, node):
        out, others = [], []
        for target in node.targets:
            if isinstance(target, gast.Name):
                self.names.add(target.id)
                out += replace("name = helpers.Deleted(label)", origin=node,
                               helpers=self.ctx.helpers, name=target.id,
                               label=constant(target.id))
            else:
                others.append(target)
        if others:
            node.targets = others
            out.append(node)
        return out


def transform(node, ctx):
    names = set(ctx.undefined_names)
    if ctx.kinds is None or gast.Delete in ctx.kinds:
        deleted = _Del(ctx)
        node = deleted.visit(node)
        names |= deleted.names
    labels = ctx.carried_labels
    if not names and not labels:
        return node
    return _Unbound(ctx, names, labels).visit(node)

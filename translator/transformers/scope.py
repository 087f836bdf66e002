"""Scope bookkeeping shared by the control-flow transformers.

:class:`ScopeTracker` is a gast ``NodeTransformer`` that knows, while visiting, the names the
innermost enclosing function declares ``global`` (``self.globals``); nested functions are
visited as their own scopes. :func:`undefined_inits` gives the ``name = UndefinedVar('name')``
statements a construct needs for modified names that no earlier statement binds (``nonlocal``
in the generated functions needs a binding in the enclosing function, and the value reads as
"undefined" until assigned). :func:`hoist_undefined_inits` then moves them to the top of the
user function: Python never unbinds a name, and a start inside a loop body would run again
each iteration (and make the name look dead at the loop head). :func:`store_targets` gives
the ``_d2s.Targets(...)`` argument for the attributes and items a construct assigns
(``self.x = ...``, ``self.d["k"] = ...``), which a static ``cond`` / ``while_loop`` carries
like names.
"""
import gast

from .. import static_analysis as sa
from ..gast_nodes import clone, constant
from ..templates import replace, replace_as_expression
from ..visitor import NodeTransformer, child_statements

__all__ = ["ScopeTracker", "hoist_undefined_inits", "is_undefined_init", "store_targets",
           "undefined_inits", "written_globals"]


class ScopeTracker(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx
        self.globals = frozenset()
        self.outside = frozenset()

    def visit_FunctionDef(self, node):
        saved = self.globals, self.outside
        if node.name not in self.ctx.generated_functions:
            # a user function's ``global`` and ``nonlocal`` names are state outside it: live
            # after every construct, since code after the call reads them
            self.globals = sa.declared_globals(node)
            self.outside = sa.declared_nonlocals(node)
        try:
            return self.generic_visit(node)
        finally:
            self.globals, self.outside = saved


def undefined_inits(ctx, node, names):
    """``name = _d2s.UndefinedVar('name')`` for each of ``names`` not bound before ``node``."""
    out = []
    for name in names:
        if name not in sa.defined_before(node):
            ctx.undefined_names.add(name)
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
    if not ctx.undefined_names:
        return node  # no pass started a name
    functions, todo = [], [node]
    while todo:  # a ``def`` is a statement: the statement lists hold every one
        stmt = todo.pop()
        if isinstance(stmt, gast.FunctionDef) and stmt.name not in ctx.generated_functions:
            functions.append(stmt)
        todo.extend(child_statements(stmt))
    for fn in functions:
        _hoist(fn, ctx)
    return node


def _owner_chain(node):
    """True for ``name``, ``a.b`` and ``a["k"]`` chains of them (constant keys)."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, gast.Constant):
            return False
        node = node.value
    return isinstance(node, gast.Name)


def _stored(node, out):
    if isinstance(node, (gast.Tuple, gast.List)):
        for e in node.elts:
            _stored(e, out)
    elif isinstance(node, gast.Starred):
        _stored(node.value, out)
    elif isinstance(node, (gast.Attribute, gast.Subscript)) and _owner_chain(node):
        out.append(node)


def _targets_in(stmts, ctx):
    """Attribute / constant-key item targets assigned in ``stmts`` (generated functions
    included, user functions not), one per source text, in order."""
    found, seen, todo = [], set(), list(reversed(stmts))
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef) and node.name not in ctx.generated_functions:
            continue
        targets = []
        if isinstance(node, gast.Assign):
            for t in node.targets:
                _stored(t, targets)
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign)):
            _stored(node.target, targets)
        elif isinstance(node, (gast.For, gast.AsyncFor)):
            _stored(node.target, targets)
        for t in targets:
            text = gast.unparse(t)
            if text not in seen:
                seen.add(text)
                found.append((text, t))
        children = []
        for field in ("body", "orelse", "finalbody"):
            children.extend(getattr(node, field, None) or [])
        for handler in getattr(node, "handlers", None) or ():
            children.extend(handler.body)
        todo.extend(reversed(children))
    return found


def written_globals(ctx, stmts, declared):
    """The names of ``declared`` (the function's ``global`` names) that ``stmts`` rebind,
    also inside the functions the passes generated (a converted ``if`` in a loop body)."""
    found, todo = set(), list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.FunctionDef) and node.name not in ctx.generated_functions:
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)) and \
                node.id in declared:
            found.add(node.id)
        todo.extend(gast.iter_child_nodes(node))
    return sorted(found)


def store_targets(ctx, node, stmts, global_names=()):
    """``_d2s.Targets((lambda: owner, kind, key, label), ...)`` for the attributes and items
    ``stmts`` assign and the ``global_names`` they rebind (items of ``globals()``), or None
    when there are none."""
    entries = [replace_as_expression("(lambda: globals(), 'item', key, key)", origin=node,
                                     key=constant(name)) for name in global_names]
    for text, target in _targets_in(stmts, ctx):
        if isinstance(target, gast.Attribute):
            kind, key = "attr", constant(target.attr)
        else:
            kind, key = "item", clone(target.slice)
        owner = clone(target.value)
        ctx.carried_labels.add(text)
        entries.append(replace_as_expression("(lambda: owner, kind, key, label)", origin=node,
                                             owner=owner, kind=constant(kind), key=key,
                                             label=constant(text)))
    if not entries:
        return None
    return replace_as_expression("helpers.Targets(entries)", origin=node, helpers=ctx.helpers,
                                 entries=entries)

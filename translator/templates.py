"""Code generation from templates: Python source with placeholder names, parsed once.

A template is ordinary Python text whose placeholder names are filled with nodes, in the
manner of AutoGraph's ``templates.replace``::

    replace("target = helper(value)", target="x", value=some_expr_node)

Each template string is parsed once (cached) and deep-copied per use; nothing is built with
``str.format`` and re-parsed. A replacement value may be:

* a ``str``: an identifier; it replaces a placeholder ``Name`` (keeping the placeholder's
  load/store context), a function name, a parameter, or a ``nonlocal``/``global`` entry;
* a gast expression node: copied into the placeholder's place; its context (``Load``,
  ``Store``, ``Del``) is set to the placeholder's;
* a list: statements spliced (moved, not copied) where the placeholder stands alone as a
  statement; expressions or identifiers spliced where the placeholder is an element of a
  tuple/list, a call's arguments, a function's parameters or a ``nonlocal``/``global`` list.
  A ``nonlocal`` or ``global`` statement left with no names is dropped.

Generated nodes carry no source location of their own: ``origin`` (a node) gives every
generated node without a location that node's line, so origin comments point at the user's
statement the code stands for.
"""
import gast

from .gast_nodes import clone, parse

__all__ = ["replace", "replace_as_expression"]

_LOC = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_cache = {}


def _parsed(template):
    tree = _cache.get(template)
    if tree is None:
        tree = parse(template)
        for node in gast.walk(tree):
            for attr in _LOC:
                if hasattr(node, attr):
                    setattr(node, attr, None)
        _cache[template] = tree
    return clone(tree).body


def _set_ctx(node, ctx):
    """Give ``node`` (and a tuple/list/starred's elements) the context ``ctx``."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript)):
        node.ctx = type(ctx)()
    elif isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = type(ctx)()
        for e in node.elts:
            _set_ctx(e, ctx)
    elif isinstance(node, gast.Starred):
        node.ctx = type(ctx)()
        _set_ctx(node.value, ctx)
    return node


def _expr_for(value, ctx, spliced):
    if isinstance(value, str):
        return gast.Name(id=value, ctx=type(ctx)(), annotation=None, type_comment=None)
    if isinstance(value, gast.AST):
        node = _set_ctx(clone(value), ctx)
        spliced.add(id(node))
        return node
    raise TypeError(f"template replacement must be a str or a gast node, got {value!r}")


class _Replacer(gast.NodeTransformer):
    """Fills one template. Only the template's own nodes are visited: code placed from the
    replacements (statement lists, expressions) is never searched for placeholders again --
    so a user variable that happens to share a placeholder's name is left alone, and filling
    a template costs time in the template's size, not in the size of the code it wraps."""

    def __init__(self, replacements):
        self.replacements = replacements
        self.spliced = set()  # ids of nodes placed from the replacements
        self.used = set()  # statement-list placeholders already spliced once

    def _statements(self, key):
        stmts = self.replacements[key]
        # NOTE: a statement list is moved into place (the caller hands over the nodes); a
        # second use of the same placeholder gets a copy, so no node appears twice.
        stmts = clone(stmts) if key in self.used else list(stmts)
        self.used.add(key)
        self.spliced.update(id(s) for s in stmts)
        return stmts

    def _splice(self, items, ctx):
        out = []
        for item in items:
            key = item.id if isinstance(item, gast.Name) else None
            value = self.replacements.get(key)
            if isinstance(value, (list, tuple)) and not isinstance(value, gast.AST):
                out.extend(_expr_for(v, item.ctx if ctx is None else ctx, self.spliced)
                           for v in value)
            else:
                out.append(self.visit(item))
        return out

    def _strings(self, names):
        out = []
        for n in names:
            value = self.replacements.get(n, n)
            out.extend(value if isinstance(value, (list, tuple)) else [value])
        return out

    def generic_visit(self, node):
        for field, old in gast.iter_fields(node):
            if isinstance(old, list):
                if old and isinstance(old[0], gast.stmt):
                    setattr(node, field, self._visit_body(old))
                    continue
                new = []
                for item in old:
                    if isinstance(item, gast.AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, gast.AST):
                            new.extend(item)
                            continue
                    new.append(item)
                setattr(node, field, new)
            elif isinstance(old, gast.AST):
                setattr(node, field, self.visit(old))
        return node

    def _visit_body(self, body):
        out = []
        for stmt in body:
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Name) and \
                    isinstance(self.replacements.get(stmt.value.id), list):
                out.extend(self._statements(stmt.value.id))
            elif isinstance(stmt, (gast.Nonlocal, gast.Global)):
                stmt.names = self._strings(stmt.names)
                if stmt.names:
                    out.append(stmt)
            else:
                result = self.visit(stmt)
                if isinstance(result, list):
                    out.extend(result)
                elif result is not None:
                    out.append(result)
        return out

    def visit_Name(self, node):
        if node.id in self.replacements:
            value = self.replacements[node.id]
            if isinstance(value, list):
                raise ValueError(f"placeholder {node.id!r}: a list fits only a statement, "
                                 "element or parameter position")
            return _expr_for(value, node.ctx, self.spliced)
        return node

    def visit_Tuple(self, node):
        node.elts = self._splice(node.elts, None)
        return node

    visit_List = visit_Tuple

    def visit_Call(self, node):
        node.func = self.visit(node.func)
        node.args = self._splice(node.args, None)
        node.keywords = [self.visit(k) for k in node.keywords]
        return node

    def visit_FunctionDef(self, node):
        value = self.replacements.get(node.name)
        if isinstance(value, str):
            node.name = value
        return self.generic_visit(node)

    def visit_arguments(self, node):
        node.args = self._splice(node.args, gast.Param())
        node.defaults = [self.visit(d) for d in node.defaults]
        return node


def _locate(nodes, origin, spliced):
    """Give the template's own nodes without a location ``origin``'s line (placed code keeps
    its own)."""
    lineno = getattr(origin, "lineno", None) if origin is not None else None
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if id(node) in spliced:
            continue
        if isinstance(node, (gast.stmt, gast.expr)) and getattr(node, "lineno", None) is None:
            node.lineno = lineno
        todo.extend(gast.iter_child_nodes(node))


def replace(template, *, origin=None, **replacements):
    """The statements of ``template`` with its placeholders filled (see the module doc)."""
    replacer = _Replacer(replacements)
    body = replacer._visit_body(_parsed(template))
    _locate(body, origin, replacer.spliced)
    return body


def replace_as_expression(template, *, origin=None, **replacements):
    """Like :func:`replace` for a template that is a single expression; returns the expr."""
    body = replace(template, origin=origin, **replacements)
    if len(body) != 1 or not isinstance(body[0], gast.Expr):
        raise ValueError(f"template is not a single expression: {template!r}")
    return body[0].value

"""``NodeVisitor`` / ``NodeTransformer`` for gast trees, with the contract of ``ast``'s.

``visit`` calls ``visit_<ClassName>`` when the visitor defines it, else ``generic_visit``; a
transformer's method returns a node (replacing the old one), a list of nodes (spliced into the
enclosing list) or None (removed), and field lists are updated in place -- exactly as
``ast.NodeTransformer`` does. Every pass walks the whole function, so two things are done once
instead of per node, which changes no result:

* the method for a node class is looked up once per visitor class (``ast`` builds the
  ``"visit_" + name`` string and looks it up for every node);
* nodes that hold no other node -- those without fields (expression contexts, operators) and
  ``Constant`` -- are not entered when the visitor has no method for their class: visiting
  them would return them unchanged. (``ast.NodeVisitor.visit_Constant`` only forwards to
  the deprecated ``visit_Num``/``visit_Str``/... methods, which no pass defines.)
"""
import ast

import gast

__all__ = ["NodeTransformer", "NodeVisitor", "child_statements"]

_AST = gast.AST
_DEPRECATED = ("visit_Num", "visit_Str", "visit_Bytes", "visit_NameConstant", "visit_Ellipsis")
_AST_VISIT_CONSTANT = getattr(ast.NodeVisitor, "visit_Constant", None)


def child_statements(node):
    """The statements directly in ``node``'s statement lists -- ``body``, ``orelse``,
    ``finalbody`` and the bodies of its ``except`` handlers and ``match`` cases -- in that
    order. Statements (``return``, ``break``, ``global``, nested ``def``...) occur nowhere
    else, so a search for them need not enter expressions."""
    out = []
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list):
            out.extend(value)
    for field in ("handlers", "cases"):
        for child in getattr(node, field, None) or ():
            out.extend(child.body)
    return out


def _method_for(visitor_cls, node_cls):
    """The function ``visit`` calls for ``node_cls``, or None to leave the node alone."""
    method = getattr(visitor_cls, "visit_" + node_cls.__name__, None)
    if method is _AST_VISIT_CONSTANT and method is not None and \
            not any(hasattr(visitor_cls, name) for name in _DEPRECATED):
        return None  # a Constant holds no node
    if method is None:
        if not node_cls._fields:
            return None
        method = visitor_cls.generic_visit
    return method


class NodeVisitor(gast.NodeVisitor):
    _methods = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._methods = {}  # node class -> function (or None); one table per visitor class

    def visit(self, node):
        cls = node.__class__
        methods = self._methods
        if cls in methods:
            method = methods[cls]
        else:
            method = methods[cls] = _method_for(type(self), cls)
        if method is None:
            return None
        return method(self, node)

    def generic_visit(self, node):
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        self.visit(item)
            elif isinstance(value, _AST):
                self.visit(value)


class NodeTransformer(NodeVisitor, gast.NodeTransformer):
    def visit(self, node):
        cls = node.__class__
        methods = self._methods
        if cls in methods:
            method = methods[cls]
        else:
            method = methods[cls] = _method_for(type(self), cls)
        if method is None:
            return node
        return method(self, node)

    def generic_visit(self, node):
        for field in node._fields:
            old = getattr(node, field, None)
            if isinstance(old, list):
                new = []
                for value in old:
                    if isinstance(value, _AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, _AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif isinstance(old, _AST):
                value = self.visit(old)
                if value is None:
                    delattr(node, field)
                else:
                    setattr(node, field, value)
        return node

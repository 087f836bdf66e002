"""The few gast nodes the translator builds by hand, and node annotations.

Everything else the transformers generate comes from templates (``templates.py``). Keeping
node construction here means a change in gast's node signatures touches one file.

Annotations are plain attributes on nodes, read and written only through :func:`set_anno`
and :func:`get_anno`. Keys in use (documented here so every pass agrees):

* ``"extra_test"`` (on ``For`` / ``While``): an expression node that must also hold before
  each iteration; set by ``break_continue`` and read by ``loop``.
* ``"declared_globals"`` (on a ``FunctionDef``): the names its ``global`` statements (nested
  ones included) declare; cached by ``static_analysis.declared_globals``.
* ``"origin"`` (on any statement): the user's line number (relative to the parsed source) a
  generated statement stands for.
"""
import ast
import sys

import gast

__all__ = [
    "arguments",
    "attribute",
    "clone",
    "constant",
    "copy_anno",
    "function_def",
    "get_anno",
    "name",
    "names_tuple",
    "parse",
    "set_anno",
    "strings_tuple",
]

_ANNO = "_d2s_anno"


def name(id_, ctx=None):
    """``Name(id_)`` with a ``Load`` context unless ``ctx`` is given."""
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def constant(value):
    return gast.Constant(value=value, kind=None)


def names_tuple(ids, ctx=None):
    """A tuple of names, e.g. the target ``(a, b)`` of ``(a, b) = args``."""
    ctx = ctx or gast.Load()
    return gast.Tuple(elts=[name(i, type(ctx)()) for i in ids], ctx=ctx)


def strings_tuple(values):
    """A tuple of string constants, e.g. ``('a', 'b')``."""
    return gast.Tuple(elts=[constant(v) for v in values], ctx=gast.Load())


def attribute(value_id, attr):
    """``value_id.attr`` as a load."""
    return gast.Attribute(value=name(value_id), attr=attr, ctx=gast.Load())


def arguments(param_ids):
    """Positional parameters ``(a, b, ...)`` of a function definition."""
    return gast.arguments(args=[name(p, gast.Param()) for p in param_ids], posonlyargs=[],
                          vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def function_def(fn_name, param_ids, body):
    """``def fn_name(params): body`` with no decorators."""
    node = gast.FunctionDef(name=fn_name, args=arguments(param_ids), body=body,
                            decorator_list=[], returns=None, type_comment=None)
    if "type_params" in gast.FunctionDef._fields:
        node.type_params = []
    return node


def set_anno(node, key, value):
    annos = getattr(node, _ANNO, None)
    if annos is None:
        annos = {}
        setattr(node, _ANNO, annos)
    annos[key] = value


def get_anno(node, key, default=None):
    return getattr(node, _ANNO, {}).get(key, default)


def copy_anno(src, dst):
    for k, v in getattr(src, _ANNO, {}).items():
        set_anno(dst, k, v)


def clone(node):
    """A deep copy of a gast tree (or list of trees), annotations included — the fields and
    location attributes only, which is all a tree holds, and several times faster than
    ``copy.deepcopy``."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if not isinstance(node, gast.AST):
        return node  # identifiers, constants' values, None
    new = type(node).__new__(type(node))
    for field in node._fields:
        setattr(new, field, clone(getattr(node, field, None)))
    for attr in node._attributes:
        if hasattr(node, attr):
            setattr(new, attr, getattr(node, attr))
    annos = getattr(node, _ANNO, None)
    if annos is not None:
        setattr(new, _ANNO, {k: clone(v) for k, v in annos.items()})
    return new


# -- parsing ---------------------------------------------------------------------------------
_GAST = {}  # ast class -> (gast class, gast fields, ast fields, location attributes)
_CONTEXTS = {ast.Load: gast.Load, ast.Store: gast.Store, ast.Del: gast.Del}
_DIRECT = sys.version_info >= (3, 9)  # ast nodes as gast models them (no Index / ExtSlice)


def parse(source):
    """``gast.parse(source)``: the same tree, built in one walk over ``ast.parse``'s (gast's
    generic converter is several times slower, which a first call pays for its source and
    every template)."""
    if not _DIRECT:
        return gast.parse(source)
    return _to_gast(ast.parse(source))


def _gast_class(cls):
    entry = _GAST.get(cls)
    if entry is None:
        target = getattr(gast, cls.__name__)
        entry = (target, target._fields, frozenset(cls._fields), target._attributes)
        _GAST[cls] = entry
    return entry


def _convert(value):
    if isinstance(value, list):
        return [_to_gast(v) if isinstance(v, ast.AST) else v for v in value]
    if isinstance(value, ast.AST):
        return _to_gast(value)
    return value


def _locate(new, node, attributes):
    for attr in attributes:
        setattr(new, attr, getattr(node, attr, None))
    return new


def _to_gast(node):
    cls = node.__class__
    ctx = _CONTEXTS.get(cls)
    if ctx is not None:
        return ctx()
    if cls is ast.Name:
        new = gast.Name.__new__(gast.Name)
        new.id, new.ctx, new.annotation, new.type_comment = \
            node.id, _CONTEXTS[node.ctx.__class__](), None, None
        return _locate(new, node, gast.Name._attributes)
    if cls is ast.arg:
        new = gast.Name.__new__(gast.Name)
        new.id, new.ctx = node.arg, gast.Param()
        new.annotation = _convert(node.annotation)
        new.type_comment = node.type_comment
        return _locate(new, node, gast.Name._attributes)
    target, fields, present, attributes = _gast_class(cls)
    new = target.__new__(target)
    for field in fields:
        if field in present:
            setattr(new, field, _convert(getattr(node, field)))
        else:  # a field gast adds (``type_params`` before Python 3.12)
            setattr(new, field, [] if field == "type_params" else None)
    if cls is ast.ExceptHandler and node.name:
        new.name = gast.Name(node.name, gast.Store(), None, None)
    return _locate(new, node, attributes)

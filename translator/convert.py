"""Source conversion: turn a Python function into its converted ("static-ready") twin.

API (used by ``program_translator.py``, ``__main__.py`` and ``convert_calls.convert_call``,
which this module registers itself with at import):

* ``convert_to_static(func)`` -- the converted function (cached per function object; the
  compiled code is cached per code object). Accepts plain functions, bound methods (the
  result is bound to the same instance), ``StaticFunction`` objects (their
  ``dygraph_function``) and Layers (their ``forward``). The result runs with the original
  function's globals, defaults and *closure cells*. An exception raised inside it carries
  notes naming the user's file, line and source (``origin_info.add_origin_notes``).
* ``get_code(func, with_origin=False)`` -- the converted source; with ``with_origin`` a
  ``# file:line`` comment precedes each statement, naming the user's line it came from.
* ``get_passes(func, with_origin=False)`` -- ``[(pass_name, source_after_pass), ...]``,
  starting with ``("original", ...)``.
* ``not_to_static(func)`` -- decorator: ``convert_call`` leaves the function unconverted.
* ``ConversionError`` -- raised for what cannot be converted.

Unsupported constructs, and what happens (one choice per construct):

* ``yield`` / ``yield from`` (generators), ``async def`` / ``await`` / ``async for`` /
  ``async with``: ``ConversionError`` naming the construct, file and line.
* lambdas, builtins and functions without available source: ``convert_to_static`` raises
  ``ConversionError``; ``convert_call`` calls them unconverted (they are usually library code).
* ``global`` names assigned under converted control flow are declared ``global`` in the
  generated functions; ``nonlocal`` works (generated functions re-declare it).
* ``try``/``with`` around tensor control flow: converted like any block; the ``cond``/
  ``while`` op is built inside the ``try``/``with``, so an ``except`` catches errors raised
  while the Program is built, not those the executor raises when it runs.
"""
import collections
import inspect
import linecache
import re
import types
import weakref

import gast

from . import convert_calls, convert_ops, loader, origin_info, static_analysis, tree_compile
from .gast_nodes import function_def, parse
from .templates import replace
from .transformers import PASSES

__all__ = [
    "HELPERS_NAME",
    "Context",
    "ConversionError",
    "convert_to_static",
    "get_code",
    "get_passes",
    "not_to_static",
]

HELPERS_NAME = "_d2s"
_UNSUPPORTED = {
    gast.Yield: "'yield' (generator functions)", gast.YieldFrom: "'yield from'",
    gast.Await: "'await'", gast.AsyncFunctionDef: "'async def'",
    gast.AsyncFor: "'async for'", gast.AsyncWith: "'async with'",
}


class ConversionError(Exception):
    """A function (or a construct in it) cannot be converted; the message says which."""


def not_to_static(func):
    """Decorator: calls to ``func`` from converted code run it as written (unconverted)."""
    func._d2s_not_to_static = True
    return func


class Context:
    """What a transformer needs: where the code came from, and fresh names."""

    def __init__(self, filename, line_offset, used_names, kinds=None, attributes=None):
        """``used_names``: the identifiers the function uses (names and ``def`` names);
        ``kinds`` / ``attributes``: the gast node types and the attribute names in its source
        (None: unknown), which tell a pass that it has nothing to do (``needed(ctx)``)."""
        self.filename = filename
        self.kinds = kinds
        self.attributes = attributes
        self.line_offset = line_offset
        self.helpers = HELPERS_NAME
        self._used = set(used_names)
        self._used.add(HELPERS_NAME)
        self.generated_functions = set()
        # what the control-flow passes generated, for the ``unbound`` pass: the names they
        # start as ``UndefinedVar`` and the labels of the attributes / items they carry
        self.undefined_names = set()
        self.carried_labels = set()

    def uses(self, identifier):
        """Whether the function's source uses ``identifier`` (or a pass made it up)."""
        return identifier in self._used

    def new_function_name(self, base):
        """A fresh name for a generated function (never part of any construct's state)."""
        result = self.new_name(base)
        self.generated_functions.add(result)
        return result

    def new_name(self, base):
        """An identifier not used in the function, e.g. ``__true_fn_0``."""
        k = 0
        while f"__{base}_{k}" in self._used:
            k += 1
        result = f"__{base}_{k}"
        self._used.add(result)
        return result

    def where(self, node):
        """``file:line`` of ``node`` in the user's file."""
        return f"{self.filename}:{(getattr(node, 'lineno', None) or 1) + self.line_offset}"

    def globals_in(self, fn_node):
        return static_analysis.declared_globals(fn_node)


def _unwrap(func):
    """(plain function, instance to bind or None) for the accepted callables."""
    if hasattr(func, "dygraph_function"):
        inst = getattr(func, "instance", None)
        return _unwrap(func.dygraph_function)[0], inst
    if isinstance(func, types.MethodType):
        return _unwrap(func.__func__)[0], func.__self__
    if not isinstance(func, types.FunctionType) and callable(getattr(func, "forward", None)):
        return _unwrap(func.forward)[0], func
    if not isinstance(func, types.FunctionType):
        raise ConversionError(f"cannot convert {func!r}: not a Python function")
    return func, None


_HEADER = re.compile(r"\s*(@|def\s|async\s+def\s)")
_DEF = re.compile(r"\s*(async\s+)?def\s")


def _def_lines(lines, start):
    """The lines of the ``def`` statement that begins at ``lines[start]`` (decorators first):
    up to the first code line, after the ``def`` line, indented no deeper than the
    ``def``; trailing blank and comment lines dropped. A cut inside a bracket, string or
    continuation line leaves text that does not parse -- the caller checks."""
    indent = len(lines[start]) - len(lines[start].lstrip())
    seen_def, end = False, len(lines)
    for k in range(start, len(lines)):
        line = lines[k]
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(line) - len(stripped)
        if seen_def and depth <= indent:
            end = k
            break
        if depth == indent and _DEF.match(line):
            seen_def = True
    while end > start and lines[end - 1].strip()[:1] in ("", "#"):
        end -= 1
    return lines[start:end]


def _parse_def(source):
    """``(statements, shift)`` of a ``def``'s source as it stands in its file. An indented one
    (a method, a nested function) is parsed under an ``if 1:`` line instead of being dedented,
    so a string literal spanning lines keeps its text exactly (dedenting changed the lines
    after its first); ``shift`` is the number of lines put before it."""
    if source[:1] in (" ", "\t"):
        tree = parse("if 1:\n" + source)
        if len(tree.body) != 1 or not isinstance(tree.body[0], gast.If):
            return [], 1
        return tree.body[0].body, 1
    return parse(source).body, 0


def _fast_source(func):
    """The gast tree of ``func``'s source read from ``linecache`` by indentation, or None
    when that is not certain (then ``inspect.getsource`` decides). Same text as
    ``inspect.getsource`` gives, without tokenizing the block (whose regular expressions a
    fresh process would first compile): the text must parse to exactly one ``def``, which a
    block cut too early (inside brackets, a string or a continuation) or too late (the next
    statement) does not."""
    if hasattr(func, "__wrapped__"):  # inspect follows __wrapped__
        return None
    code = func.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, func.__globals__)
    start = code.co_firstlineno - 1
    if not 0 <= start < len(lines) or not _HEADER.match(lines[start]):
        return None
    try:
        body, shift = _parse_def("".join(_def_lines(lines, start)))
    except (SyntaxError, ValueError):
        return None
    if len(body) != 1 or not isinstance(body[0], (gast.FunctionDef, gast.AsyncFunctionDef)):
        return None
    return body, shift


def _parse(func):
    if func.__name__ == "<lambda>":
        raise ConversionError(f"cannot convert a lambda ({func.__code__.co_filename}:"
                              f"{func.__code__.co_firstlineno}); use a def")
    parsed = _fast_source(func)
    if parsed is None:
        try:
            source = inspect.getsource(func)
        except (OSError, TypeError) as e:
            raise ConversionError(f"cannot convert {func.__qualname__}: its source is not "
                                  f"available ({e})") from None
        parsed = _parse_def(source)
    body, shift = parsed
    fn_node = body[0] if body else None
    filename = func.__code__.co_filename
    offset = func.__code__.co_firstlineno - 1 - shift
    if not isinstance(fn_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise ConversionError(f"cannot convert {func.__qualname__} ({filename}:"
                              f"{offset + shift + 1}): its source is not a def statement")
    used, kinds, attributes = set(), set(), set()
    # one breadth-first walk (``gast.walk``'s order): the first unsupported construct, the
    # names the function uses outside its decorators (which are dropped), the node kinds and
    # attribute names it holds
    todo = collections.deque([(fn_node, False)])
    while todo:
        node, in_decorator = todo.popleft()
        kind = type(node)
        kinds.add(kind)
        if kind is gast.Attribute:
            attributes.add(node.attr)
        if kind in _UNSUPPORTED:
            raise ConversionError(f"{_UNSUPPORTED[kind]} is not supported in converted code: "
                                  f"{filename}:{(getattr(node, 'lineno', 1) or 1) + offset} "
                                  f"in {func.__qualname__}")
        if not in_decorator:
            if kind is gast.Name:
                used.add(node.id)
            elif kind is gast.FunctionDef:
                used.add(node.name)
        for field in node._fields:
            value = getattr(node, field, None)
            flag = in_decorator or (node is fn_node and field == "decorator_list")
            if isinstance(value, gast.AST):
                todo.append((value, flag))
            elif isinstance(value, list):
                todo.extend((v, flag) for v in value if isinstance(v, gast.AST))
    fn_node.decorator_list = []
    return fn_node, Context(filename, offset, used, kinds, attributes)


def _run_passes(func, keep_stages=False, with_origin=False, only=None):
    fn_node, ctx = _parse(func)
    stages = []
    if keep_stages:
        stages.append(("original", _text(fn_node, ctx, with_origin)))
    for pass_name, module in PASSES:
        if only is not None and pass_name not in only:
            continue
        needed = getattr(module, "needed", None)
        if needed is not None and ctx.kinds is not None and not keep_stages and \
                not needed(ctx):
            continue
        fn_node = module.transform(fn_node, ctx)
        if keep_stages:
            stages.append((pass_name, _text(fn_node, ctx, with_origin)))
    return fn_node, ctx, stages


def _text(fn_node, ctx, with_origin):
    module = gast.Module(body=[fn_node], type_ignores=[])
    return origin_info.to_source(module, ctx.filename, ctx.line_offset, with_origin)[0]


_code_cache = weakref.WeakKeyDictionary()  # original code object -> converted code object
_func_cache = weakref.WeakKeyDictionary()  # original function -> converted function


def _compile(func, only=None):
    code = _code_cache.get(func.__code__) if only is None else None
    if code is None:
        fn_node, ctx, _ = _run_passes(func, only=only)
        params = [HELPERS_NAME] + list(func.__code__.co_freevars)
        factory = function_def("__d2s_factory", params, [fn_node] + replace(
            "return fn", fn=fn_node.name))
        module = gast.Module(body=[factory], type_ignores=[])
        tree, line_map, lines = tree_compile.to_ast(module, ctx.line_offset)
        code = loader.load(lines, ctx.filename, ctx.line_offset + 1, fn_node.name, line_map,
                           tree=tree)
        if only is None:
            _code_cache[func.__code__] = code
    return code


def _with_origin_notes(converted):
    def run_converted(*args, **kwargs):
        convert_ops.install_origin_provider()
        try:
            return convert_ops.check_defined(converted(*args, **kwargs))
        except Exception as e:
            origin_info.add_origin_notes(e)
            raise

    for attr in ("__name__", "__qualname__", "__module__", "__doc__"):
        setattr(run_converted, attr, getattr(converted, attr))
    run_converted.__wrapped__ = converted
    run_converted.__dy2static_original__ = converted.__dy2static_original__
    return run_converted


def convert_to_static(func, passes=None):
    """The converted function for ``func`` (see the module docstring). ``passes`` (names from
    ``transformers.PASSES``) runs only those passes -- for testing one transformer alone;
    such results are not cached."""
    plain, instance = _unwrap(func)
    converted = _func_cache.get(plain) if passes is None else None
    if converted is None:
        code = _compile(plain, passes)
        cells = {HELPERS_NAME: types.CellType(convert_ops)}
        converted = _with_origin_notes(loader.make_function(code, plain, cells))
        if passes is None:
            _func_cache[plain] = converted
    return types.MethodType(converted, instance) if instance is not None else converted


def is_converted(func):
    """True for functions produced by :func:`convert_to_static` (and code inside them)."""
    code = getattr(func, "__code__", None)
    return getattr(func, "__dy2static_original__", None) is not None or (
        code is not None and origin_info.is_converted_file(code.co_filename))


convert_calls.use_converter(convert_to_static, is_converted, ConversionError)


def get_code(func, with_origin=False):
    """The converted source text of ``func``."""
    plain, _ = _unwrap(func)
    fn_node, ctx, _ = _run_passes(plain)
    return _text(fn_node, ctx, with_origin)


def get_passes(func, with_origin=False):
    """``[(pass_name, source after it)]`` for ``func``, beginning with the original."""
    plain, _ = _unwrap(func)
    return _run_passes(plain, keep_stages=True, with_origin=with_origin)[2]


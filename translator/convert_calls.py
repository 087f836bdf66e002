"""``convert_call``: what converted code calls for every ``fn(...)`` it does not rewrite itself.

User functions, methods and Layers are converted (once, cached, recursively: their own calls go
through here again; a ``Sequential`` runs its sublayers through here); the builtins with a
static form map to their helpers, by identity, so a name shadowing one is the user's object;
library code (``core``, numpy, the standard library modules below), classes, ``not_to_static``
functions and whatever cannot be converted are called as they are -- except that a Layer class
called while a declarative function is translated is constructed in eager mode.

Converting a called function is ``translator.convert``'s work, and ``convert`` imports this
module (through ``convert_ops``, the namespace converted code calls). So ``convert`` registers
itself here when it is imported (:func:`use_converter`) instead of this module importing it:
converted code exists only once ``convert`` has made it, so the converter is set whenever
:func:`convert_call` runs.
"""
import builtins
import functools
import types

from core import mode
from core.nn import Layer, Sequential

from .convert_builtins import cast_builtin, convert_isinstance, convert_len, convert_print
from .convert_iter import convert_enumerate, convert_range, convert_zip
from .control_flow import dict_get
from .convert_state import translating
from .outside_state import note_function

__all__ = ["TensorRecursionError", "convert_call", "convert_super", "use_converter"]

_SKIP_MODULES = ("core", "translator", "numpy", "gast", "builtins", "functools", "inspect",
                 "typing", "collections", "itertools", "copy", "math", "operator", "abc")
# the builtins with a static form, by identity: a name that shadows one (a local, closure or
# global ``len = my_len``) holds another object and is called as the user's
_BUILTIN_MAP = {builtins.len: convert_len, builtins.print: convert_print,
                builtins.range: convert_range, builtins.enumerate: convert_enumerate,
                builtins.zip: convert_zip, builtins.int: cast_builtin("int"),
                builtins.float: cast_builtin("float"), builtins.bool: cast_builtin("bool"),
                builtins.isinstance: convert_isinstance}


def _skipped_module(obj):
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] in _SKIP_MODULES


class _Converter:
    """What :func:`convert_call` needs of ``translator.convert`` (set by
    :func:`use_converter`)."""

    convert_to_static = None
    is_converted = None
    error = None


def use_converter(convert_to_static, is_converted, error):
    """Called by ``translator.convert`` at import: its ``convert_to_static``, ``is_converted``
    and ``ConversionError``."""
    _Converter.convert_to_static = staticmethod(convert_to_static)
    _Converter.is_converted = staticmethod(is_converted)
    _Converter.error = error


def convert_call(fn):
    """What converted code calls for ``fn(...)``: the converted ``fn`` for user functions,
    methods and Layers (converted once, cached); ``fn`` itself for builtins, library code,
    classes, ``not_to_static`` functions and what cannot be converted."""
    convert = _Converter
    try:
        mapped = _BUILTIN_MAP.get(fn)
    except TypeError:  # unhashable callable
        mapped = None
    if mapped is not None:
        return mapped
    if isinstance(fn, type):
        return _eager_layer_class(fn) if _constructs_eager_layer(fn) else fn
    if type(fn) is types.BuiltinMethodType and fn.__name__ == "get" and \
            type(fn.__self__) is dict:
        return functools.partial(dict_get, fn.__self__)  # an entry set on one path only
    if getattr(fn, "_d2s_not_to_static", False):
        return fn
    if hasattr(fn, "dygraph_function"):
        converted = convert.convert_to_static(fn)
        return _recursion_checked(converted, fn.dygraph_function) if translating() else converted
    rewrap = getattr(fn, "_d2s_rewrap", None)
    if rewrap is not None and hasattr(fn, "__wrapped__"):
        # a decorator that says how to wrap again (``@no_grad``): its function converted,
        # wrapped as the user wrapped it, so the decorator keeps its meaning
        inner = fn.__wrapped__
        if isinstance(fn, types.MethodType):
            inner = types.MethodType(inner, fn.__self__)
        return rewrap(convert_call(inner))
    if isinstance(fn, Sequential) and type(fn).forward is Sequential.forward:
        return _sequential_call(fn)
    if isinstance(fn, types.MethodType):
        func = fn.__func__
        if getattr(func, "_d2s_not_to_static", False) or _skipped_module(func) or \
                convert.is_converted(func):
            return fn
    elif isinstance(fn, types.FunctionType):
        if _skipped_module(fn) or convert.is_converted(fn) or fn.__name__ == "<lambda>":
            return fn
    elif callable(getattr(fn, "forward", None)):
        forward = type(fn).forward
        if _skipped_module(forward) or getattr(forward, "_d2s_not_to_static", False):
            return fn
        return _convert_or_keep(convert, fn.forward, fn)
    else:
        return fn
    return _convert_or_keep(convert, fn, fn)


def _convert_or_keep(convert, target, fallback):
    try:
        converted = convert.convert_to_static(target)
    except convert.error:
        return fallback
    if not translating():
        return converted
    note_function(target)
    return _recursion_checked(converted, target)


def convert_super(builtin_or_user, class_cell, first):
    """A zero-argument ``super()`` in converted code: ``super(__class__, first)`` when the name
    ``super`` holds the builtin (``class_cell`` reads the method's ``__class__`` cell: the
    converted function is not defined in the class body); the user's own ``super`` (a local,
    closure or global of that name) called with no arguments otherwise."""
    if builtin_or_user is builtins.super:
        try:
            cls = class_cell()
        except NameError:
            raise RuntimeError("super(): __class__ cell not found") from None
        return builtins.super(cls, first)
    return convert_call(builtin_or_user)()


def _sequential_call(seq):
    """A ``Sequential`` called from converted code: its sublayers in order, each through
    :func:`convert_call` (so a sublayer's ``forward`` with tensor control flow is converted),
    under the container's train / eval flag as ``Layer.__call__`` sets it."""
    def call(input):
        with mode.train_mode_guard(seq.training):
            for layer in seq:
                input = convert_call(layer)(input)
        return input

    return call


class TensorRecursionError(RecursionError):
    """A converted function recursed without end while its program was built."""


_active = {}  # original function -> calls of its converted form in progress while translating


def _recursion_checked(converted, target):
    """``converted`` counting its nested calls while a Program is built: a recursion that
    never ends there -- one whose end depends on a Tensor, as a tensor ``if`` traces both
    branches -- raises an error naming the function instead of a bare RecursionError."""
    key = getattr(target, "__func__", target)

    def call(*args, **kwargs):
        depth = _active.get(key, 0)
        _active[key] = depth + 1
        try:
            return converted(*args, **kwargs)
        except RecursionError:
            if depth:
                raise
            name = getattr(key, "__qualname__", repr(key))
            raise TensorRecursionError(
                f"{name} calls itself without end while its program is built: a recursion "
                f"whose end depends on a Tensor (a tensor condition traces both branches, so "
                f"the recursive call is always built) cannot be converted; end the recursion "
                f"on a Python value, or write it as a loop") from None
        finally:
            if depth:
                _active[key] = depth
            else:
                _active.pop(key, None)

    return call


def _constructs_eager_layer(cls):
    """True for a Layer class called while a declarative function is being translated."""
    return translating() and issubclass(cls, Layer)


def _eager_layer_class(cls):
    """``cls`` constructed in eager mode: a Layer a ``forward`` creates while it is being
    translated (``self.sub = Sub()`` on first call) owns eager Parameters, as when that
    ``forward`` runs eagerly; the Program reads them like the Layer's other parameters (and
    ``get_program``'s startup program initialises them)."""
    def construct(*args, **kwargs):
        with mode.guard():
            return cls(*args, **kwargs)

    return construct

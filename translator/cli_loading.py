"""Finding and loading the functions the command line works on.

``FILE.py[:QUALNAME]`` names every function of FILE decorated with ``@declarative`` /
``@to_static`` (:func:`find_decorated`), or one function or method. The file is parsed first,
then executed in a *definitions only* form (imports, definitions and constant assignments at
the top level, under a private module name; :func:`load_file`), or imported whole on request.
:func:`prepare_call` turns ``--input-spec`` / ``--arg`` / ``--init-args`` into the arguments
of a translation. :class:`UsageError` is a problem with the command line or the file (exit
status 2); :func:`write_atomic` writes output through a temporary file renamed into place.
"""
import ast
import importlib.util
import inspect
import os
import sys

from core.serialization import atomic_write

from .input_spec import InputSpec
from .program_translator import StaticFunction, declarative

__all__ = ["UsageError", "dygraph_function", "find_decorated", "load_file", "parse_init_args",
           "parse_input_spec", "prepare_call", "resolve", "split_target", "write_atomic"]

_DECORATORS = ("declarative", "to_static")


class UsageError(Exception):
    """A problem with the command line or the input file (exit status 2)."""


def _decorator_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def find_decorated(tree):
    """``[(qualname, lineno, decorated)]`` for the module-level functions and the methods of
    module-level (and nested) classes in ``tree``, in source order."""
    found = []
    stack = [(tree.body, "")]
    while stack:
        body, prefix = stack.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorated = any(_decorator_name(d) in _DECORATORS for d in node.decorator_list)
                found.append((prefix + node.name, node.lineno, decorated))
            elif isinstance(node, ast.ClassDef):
                stack.append((node.body, prefix + node.name + "."))
    found.sort(key=lambda item: item[1])
    return found


def parse_input_spec(text):
    """``'x:float32[-1,784]'`` -> ``('x', InputSpec([-1, 784], 'float32', 'x'))``; the name
    part is optional (then it is None)."""
    name, _, rest = text.rpartition(":")
    name = name.strip() or None
    rest = rest.strip()
    if "[" not in rest or not rest.endswith("]"):
        raise UsageError(f"--input-spec {text!r}: expected NAME:DTYPE[DIMS], "
                         "e.g. 'x:float32[-1,784]'")
    dtype, dims_text = rest[:-1].split("[", 1)
    dims = []
    for d in filter(None, (p.strip() for p in dims_text.split(","))):
        if d in ("None", "?", "-1"):
            dims.append(-1)
        elif d.isdigit():
            dims.append(int(d))
        else:
            raise UsageError(f"--input-spec {text!r}: dimension {d!r} is not an int, -1 or None")
    try:
        return name, InputSpec(dims, dtype.strip() or "float32", name)
    except (TypeError, ValueError) as e:
        raise UsageError(f"--input-spec {text!r}: {e}") from None


def _parse_arg(text):
    name, eq, value = text.partition("=")
    if not eq or not name.strip().isidentifier():
        raise UsageError(f"--arg {text!r}: expected NAME=LITERAL, e.g. 'label=None'")
    try:
        return name.strip(), ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        raise UsageError(f"--arg {text!r}: {value.strip()!r} is not a Python literal") from None


def _definitions_only(tree):
    """``tree`` reduced to imports, defs, classes and assignments that call nothing."""
    keep = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            keep.append(node)
        elif (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
              and not any(isinstance(n, (ast.Call, ast.Await, ast.Yield))
                          for n in ast.walk(node))):
            keep.append(node)
    tree.body = keep
    return tree


def load_file(path, tree, whole):
    """The module object of ``path``: definitions only, or the whole file with ``whole``."""
    mod_name = "_dy2static_cli_" + "".join(c if c.isalnum() else "_" for c in
                                           os.path.splitext(os.path.basename(path))[0])
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    try:
        if whole:
            spec = importlib.util.spec_from_file_location(mod_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            spec.loader.exec_module(module)
            return module
        module = type(sys)(mod_name)
        module.__file__ = os.path.abspath(path)
        sys.modules[mod_name] = module
        code = compile(_definitions_only(tree), os.path.abspath(path), "exec")
        exec(code, module.__dict__)  # the user's definitions, by request
        return module
    finally:
        sys.path.remove(directory)


def resolve(module, qualname):
    obj = module
    for part in qualname.split("."):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            raise UsageError(f"{qualname}: '{part}' not found after loading the file "
                             "(is it defined conditionally? try --import)") from None
    return obj


def dygraph_function(obj):
    if isinstance(obj, StaticFunction):
        return obj.dygraph_function
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    if not inspect.isfunction(obj):
        raise UsageError(f"{getattr(obj, '__qualname__', obj)!r} is not a Python function")
    return obj


def parse_init_args(text):
    """``"784, 10, act='relu'"`` -> ``([784, 10], {'act': 'relu'})`` (Python literals only)."""
    if not text:
        return [], {}
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        return ([ast.literal_eval(a) for a in call.args],
                {k.arg: ast.literal_eval(k.value) for k in call.keywords})
    except (SyntaxError, ValueError, TypeError):
        raise UsageError(f"--init-args {text!r}: expected Python literals as in a call, "
                         "e.g. \"784, 10, act='relu'\"") from None


def prepare_call(module, qualname, obj, args, what="--program"):
    """``(static function, call arguments)`` for translating ``qualname`` with the options
    ``--input-spec`` / ``--arg`` / ``--init-args`` (a method's class is constructed with
    ``--init-args``, none by default)."""
    specs = [parse_input_spec(s) for s in args.input_spec or ()]
    values = dict(_parse_arg(a) for a in args.arg or ())
    func = dygraph_function(obj)
    static = obj if isinstance(obj, StaticFunction) else declarative(func)
    if "." in qualname:
        cls = resolve(module, qualname.rsplit(".", 1)[0])
        init_args, init_kwargs = parse_init_args(getattr(args, "init_args", None))
        try:
            instance = cls(*init_args, **init_kwargs)
        except Exception as e:
            raise RuntimeError(f"cannot construct {cls.__name__}() to translate its method "
                               f"{qualname}: {type(e).__name__}: {e} (give the constructor's "
                               "arguments with --init-args)") from e
        static = static.__get__(instance, cls)
    params = [p for p in inspect.signature(func).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if "." in qualname:
        params = params[1:]
    call_args = list(static.input_spec or []) if not specs else []
    positional = [s for n, s in specs if n is None]
    named = {n: s for n, s in specs if n is not None}
    unknown = sorted((set(named) | set(values)) - {p.name for p in params})
    if unknown:
        raise UsageError(f"{qualname} has no argument(s) {unknown}; its arguments are "
                         f"{[p.name for p in params]}")
    if specs:
        for p in params:
            if p.name in named:
                call_args.append(named[p.name])
            elif p.name in values:
                call_args.append(values[p.name])
            elif positional:
                spec = positional.pop(0)
                call_args.append(spec if spec.name else type(spec)(spec.shape, spec.dtype,
                                                                   p.name))
            elif p.default is not p.empty:
                call_args.append(p.default)
            else:
                raise UsageError(f"{what}: no --input-spec or --arg for argument "
                                 f"'{p.name}' of {qualname}")
    elif not call_args:
        raise UsageError(f"{what}: {qualname} declares no input_spec; give its tensor "
                         "arguments with --input-spec NAME:DTYPE[DIMS]")
    else:
        call_args += [values.get(p.name, p.default) for p in params[len(call_args):]]
    return static, call_args


def write_atomic(target, text):
    """Write ``text`` (UTF-8) to ``target`` through a temporary file renamed into place; the
    file gets the permissions a plain ``open`` would give it."""
    with atomic_write(target) as f:
        f.write(text.encode("utf-8"))


def split_target(target):
    path, qualname = target, None
    if not os.path.exists(target) and ":" in target:
        path, _, qualname = target.rpartition(":")
    return path, qualname or None

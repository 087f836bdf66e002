"""Command line tool: show what the translator makes of the declarative functions in a file.

Usage::

    python -m translator FILE.py[:QUALNAME] [--diff | --passes | --program] [options]
    dy2static FILE.py[:QUALNAME] ...          (the installed console script)

Without options it prints the converted source of every function in FILE decorated with
``@declarative`` / ``@to_static`` (in any spelling: ``@translator.declarative``,
``@declarative(input_spec=...)``), or of the function or method named by QUALNAME
(``func`` or ``Class.method``; it need not be decorated), each under a header naming its
original file and line.

* ``--diff``: the original and the converted source as a unified diff.
* ``--passes``: the code after each source transformer in turn.
* ``--program``: the static Program the function translates to. Tensor arguments are given
  with ``--input-spec NAME:DTYPE[DIMS]`` (repeatable; ``-1`` or ``None`` for an unknown
  dimension, e.g. ``--input-spec "x:float32[-1,784]"``; ``NAME:`` may be left out to take the
  arguments in order); other arguments with ``--arg NAME=LITERAL`` (a Python literal, e.g.
  ``--arg label=None``). Without ``--input-spec`` the decorator's ``input_spec`` is used.
  A method's class is instantiated with no arguments to have an instance to run it on.
  With ``--optimized`` the Program after the optimisation passes the executor runs
  (``core.static.passes``; a count of changes per pass heads it).
* ``-o FILE``: write the output to FILE (atomically: a temporary file renamed into place).

Loading FILE: the file is first parsed, not run, to find the decorated functions (and to
report a syntax error with its line). To convert them the functions must exist as objects, so
the file is then executed in a *definitions only* form: its imports, function and class
definitions and simple constant assignments at the top level, under a private module name,
so top-level code such as a training loop or ``if __name__ == "__main__":`` does not run.
Functions that need other top-level state can be loaded with ``--import``, which imports the
whole file as a module (its ``__main__`` block still does not run).

Exit status: 0 on success, 2 for a usage error (missing file, unknown name, syntax error in
FILE, malformed option), 1 when conversion or translation of a function fails.
"""
import argparse
import ast
import difflib
import importlib.util
import inspect
import os
import sys
import tempfile
import textwrap

__all__ = ["main", "find_decorated", "parse_input_spec"]

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
    from .input_spec import InputSpec

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


def _load(path, tree, whole):
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


def _resolve(module, qualname):
    obj = module
    for part in qualname.split("."):
        try:
            obj = inspect.getattr_static(obj, part)
        except AttributeError:
            raise UsageError(f"{qualname}: '{part}' not found after loading the file "
                             "(is it defined conditionally? try --import)") from None
    return obj


def _dygraph_function(obj):
    from .program_translator import StaticFunction

    if isinstance(obj, StaticFunction):
        return obj.dygraph_function
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    if not inspect.isfunction(obj):
        raise UsageError(f"{getattr(obj, '__qualname__', obj)!r} is not a Python function")
    return obj


def _program_text(module, qualname, obj, args):
    from .program_translator import StaticFunction, declarative

    specs = [parse_input_spec(s) for s in args.input_spec or ()]
    values = dict(_parse_arg(a) for a in args.arg or ())
    func = _dygraph_function(obj)
    static = obj if isinstance(obj, StaticFunction) else declarative(func)
    if "." in qualname:
        cls = _resolve(module, qualname.rsplit(".", 1)[0])
        try:
            instance = cls()
        except Exception as e:
            raise RuntimeError(f"cannot construct {cls.__name__}() to translate its method "
                               f"{qualname}: {type(e).__name__}: {e}") from e
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
                raise UsageError(f"--program: no --input-spec or --arg for argument "
                                 f"'{p.name}' of {qualname}")
    elif not call_args:
        raise UsageError(f"--program: {qualname} declares no input_spec; give its tensor "
                         "arguments with --input-spec NAME:DTYPE[DIMS]")
    else:
        call_args += [values.get(p.name, p.default) for p in params[len(call_args):]]
    concrete = static.get_concrete_program(*call_args)
    ins = ", ".join(f"{v.name}: {v.dtype}{list(v.shape)}" for v in concrete.inputs)
    outs = ", ".join(v.name for v in concrete.output_vars)
    program, note = concrete.main_program, ""
    if args.optimized:
        from core.static import passes

        program, report = passes.optimize(program, [v.name for v in concrete.inputs],
                                          [v.name for v in concrete.output_vars])
        note = "# after passes: " + ", ".join(f"{n} {k}" for n, k in report) + "\n"
    return f"# inputs: {ins}\n# outputs: {outs}\n{note}{program}\n"


def _render(path, qualname, lineno, obj, module, args):
    from . import convert

    func = _dygraph_function(obj)
    header = f"# {qualname} (converted from {path}:{lineno})\n"
    if args.program:
        return header + _program_text(module, qualname, obj, args)
    if args.passes:
        parts = [header]
        for name, code in convert.get_passes(func):
            parts.append(f"# --- after {name} ---\n{code.rstrip()}\n")
        return "\n".join(parts)
    converted = convert.get_code(func)
    if args.diff:
        original = textwrap.dedent(inspect.getsource(func))
        diff = difflib.unified_diff(original.splitlines(True), converted.splitlines(True),
                                    f"{path}:{qualname}", f"{qualname} (converted)")
        return header + "".join(diff)
    return header + converted.rstrip() + "\n"


def _write_atomic(target, text):
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".dy2static-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _parser():
    p = argparse.ArgumentParser(
        prog="dy2static", description="Print the translated form of the declarative "
        "functions in a Python file.",
        epilog="--input-spec takes NAME:DTYPE[DIMS] such as 'x:float32[-1,784]' "
        "(-1 or None for an unknown dimension).")
    p.add_argument("target", metavar="FILE.py[:QUALNAME]")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--program", action="store_true", help="print the static Program")
    mode.add_argument("--diff", action="store_true", help="unified diff original/converted")
    mode.add_argument("--passes", action="store_true", help="code after each transformer")
    p.add_argument("--input-spec", action="append", metavar="NAME:DTYPE[DIMS]",
                   help="a tensor argument for --program (repeatable)")
    p.add_argument("--arg", action="append", metavar="NAME=LITERAL",
                   help="a Python-value argument for --program (repeatable)")
    p.add_argument("--optimized", action="store_true",
                   help="with --program: the Program after the optimisation passes")
    p.add_argument("--import", dest="whole", action="store_true",
                   help="import the whole file instead of its definitions only")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE")
    return p


def _split_target(target):
    path, qualname = target, None
    if not os.path.exists(target) and ":" in target:
        path, _, qualname = target.rpartition(":")
    return path, qualname or None


def run(args):
    """Produce the output text for parsed ``args``; raises UsageError for usage problems."""
    path, qualname = _split_target(args.target)
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    if (args.input_spec or args.arg or args.optimized) and not args.program:
        raise UsageError("--input-spec, --arg and --optimized only apply with --program")
    with open(path, "rb") as f:
        source = f.read()
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise UsageError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    functions = find_decorated(tree)
    if qualname is not None:
        chosen = [f for f in functions if f[0] == qualname]
        if not chosen:
            names = [f[0] for f in functions if f[2]]
            raise UsageError(f"{path}: no function or method named '{qualname}' "
                             f"(decorated functions in the file: {names or 'none'})")
    else:
        chosen = [f for f in functions if f[2]]
        if not chosen:
            raise UsageError(f"{path}: no function decorated with @declarative / @to_static "
                             "(name one as FILE.py:QUALNAME)")
    try:
        module = _load(path, tree, args.whole)
    except (Exception, SystemExit) as e:
        raise RuntimeError(f"{path}: loading the file failed: {type(e).__name__}: {e}") from e
    outputs = []
    for name, lineno, _ in chosen:
        obj = _resolve(module, name)
        try:
            outputs.append(_render(path, name, lineno, obj, module, args))
        except UsageError:
            raise
        except Exception as e:
            raise RuntimeError(f"{path}:{lineno}: translating {name} failed: "
                               f"{type(e).__name__}: {e}") from e
    return "\n".join(outputs)


def main(argv=None):
    """Entry point of ``python -m translator`` and the ``dy2static`` script; returns the exit
    status."""
    args = _parser().parse_args(argv)
    try:
        text = run(args)
    except UsageError as e:
        print(f"dy2static: error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"dy2static: error: {e}", file=sys.stderr)
        return 1
    if args.output:
        _write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

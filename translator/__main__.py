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
* ``--passes``: the original source, then each source transformer that changed the code as a
  diff of the code before it (transformers that changed nothing are named in one line).
* ``--program``: the static Program the function translates to. Tensor arguments are given
  with ``--input-spec NAME:DTYPE[DIMS]`` (repeatable; ``-1`` or ``None`` for an unknown
  dimension, e.g. ``--input-spec "x:float32[-1,784]"``; ``NAME:`` may be left out to take the
  arguments in order); other arguments with ``--arg NAME=LITERAL`` (a Python literal, e.g.
  ``--arg label=None``). Without ``--input-spec`` the decorator's ``input_spec`` is used.
  A method's class is instantiated to have an instance to run it on: with no arguments, or
  with ``--init-args "784, 10, act='relu'"`` (Python literals, as in a call).
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

Tools (``translator.cli_tools``; ``dy2static COMMAND --help`` for each)::

    dy2static report FILE.py[:QUALNAME] [--input-spec ...]   what each if/while/for became
    dy2static check  FILE.py[:QUALNAME] [--input-spec ...]   eager vs converted, first diff
    dy2static graph  FILE.py[:QUALNAME] [--format dot|html] [-o FILE]
    dy2static lint   PATH...                                  static check, exit 1 on errors
    dy2static onnx   MODEL_DIR -o model.onnx                  export a saved model to ONNX

Exit status: 0 on success, 2 for a usage error (missing file, unknown name, syntax error in
FILE, malformed option), 1 when conversion or translation of a function fails.
"""
import argparse
import ast
import difflib
import inspect
import os
import sys
import textwrap

from core.static import passes

from . import cli_tools, convert
from .cli_loading import (UsageError, dygraph_function, find_decorated, load_file,
                          parse_init_args, parse_input_spec, prepare_call, resolve, split_target,
                          write_atomic)

__all__ = ["main", "find_decorated", "parse_init_args", "parse_input_spec", "prepare_call"]

def _program_text(module, qualname, obj, args):
    static, call_args = prepare_call(module, qualname, obj, args)
    concrete = static.get_concrete_program(*call_args)
    ins = ", ".join(f"{v.name}: {v.dtype}{list(v.shape)}" for v in concrete.inputs)
    outs = ", ".join(v.name for v in concrete.output_vars)
    program, note = concrete.main_program, ""
    if args.optimized:
        program, report = passes.optimize(program, [v.name for v in concrete.inputs],
                                          [v.name for v in concrete.output_vars])
        note = "# after passes: " + ", ".join(f"{n} {k}" for n, k in report) + "\n"
    return f"# inputs: {ins}\n# outputs: {outs}\n{note}{program}\n"


def _passes_text(func, path, qualname):
    """The original source, then each pass that changed the code as a diff of the code before
    it; passes that changed nothing are listed in one line."""
    stages = convert.get_passes(func)
    (first_name, previous), parts, unchanged = stages[0], [], []
    parts.append(f"# --- {first_name} ---\n{previous.rstrip()}\n")
    for name, code in stages[1:]:
        if code == previous:
            unchanged.append(name)
            continue
        diff = difflib.unified_diff(previous.splitlines(True), code.splitlines(True),
                                    f"{qualname} (before {name})", f"{qualname} (after {name})")
        parts.append(f"# --- after {name} ---\n" + "".join(diff).rstrip() + "\n")
        previous = code
    if unchanged:
        parts.append(f"# unchanged by: {', '.join(unchanged)}\n")
    return "\n".join(parts)


def _render(path, qualname, lineno, obj, module, args):
    func = dygraph_function(obj)
    header = f"# {qualname} (converted from {path}:{lineno})\n"
    if args.program:
        return header + _program_text(module, qualname, obj, args)
    if args.passes:
        return header + _passes_text(func, path, qualname)
    converted = convert.get_code(func, with_origin=True)
    if args.diff:
        original = textwrap.dedent(inspect.getsource(func))
        diff = difflib.unified_diff(original.splitlines(True), converted.splitlines(True),
                                    f"{path}:{qualname}", f"{qualname} (converted)")
        return header + "".join(diff)
    return header + converted.rstrip() + "\n"


def _parser():
    p = argparse.ArgumentParser(
        prog="dy2static", description="Print the translated form of the declarative "
        "functions in a Python file.",
        epilog="--input-spec takes NAME:DTYPE[DIMS] such as 'x:float32[-1,784]' "
        "(-1 or None for an unknown dimension). Other commands (each with its own --help): "
        "dy2static report|check|graph|lint ... (what the translator did), "
        "dy2static onnx MODEL_DIR -o model.onnx (ONNX export of a saved inference model).")
    p.add_argument("target", metavar="FILE.py[:QUALNAME]")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--program", action="store_true", help="print the static Program")
    mode.add_argument("--diff", action="store_true", help="unified diff original/converted")
    mode.add_argument("--passes", action="store_true", help="code after each transformer")
    p.add_argument("--input-spec", action="append", metavar="NAME:DTYPE[DIMS]",
                   help="a tensor argument for --program (repeatable)")
    p.add_argument("--arg", action="append", metavar="NAME=LITERAL",
                   help="a Python-value argument for --program (repeatable)")
    p.add_argument("--init-args", metavar="ARGS",
                   help="constructor arguments of a method's class, as in a call: "
                   "\"784, 10, act='relu'\"")
    p.add_argument("--optimized", action="store_true",
                   help="with --program: the Program after the optimisation passes")
    p.add_argument("--import", dest="whole", action="store_true",
                   help="import the whole file instead of its definitions only")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE")
    return p


def run(args):
    """Produce the output text for parsed ``args``; raises UsageError for usage problems."""
    path, qualname = split_target(args.target)
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
        module = load_file(path, tree, args.whole)
    except (Exception, SystemExit) as e:
        raise RuntimeError(f"{path}: loading the file failed: {type(e).__name__}: {e}") from e
    outputs = []
    for name, lineno, _ in chosen:
        obj = resolve(module, name)
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
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["onnx"]:  # dy2static onnx MODEL_DIR -o model.onnx (translator/onnx.py)
        # imported here: translator.onnx needs the optional ``onnx`` package, which the other
        # commands must not require
        from .onnx import main as onnx_main

        return onnx_main(argv[1:])
    if argv and argv[0] in cli_tools.COMMANDS:
        return cli_tools.main(argv)
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
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

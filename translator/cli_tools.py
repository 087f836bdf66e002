"""The command line's tools: ``dy2static report | check | graph | lint``.

``report``, ``check`` and ``graph`` take ``FILE.py[:QUALNAME]`` like the main command (every
decorated function of the file, or the named function or method) and the same ``--input-spec
NAME:DTYPE[DIMS]``, ``--arg NAME=LITERAL``, ``--init-args`` and ``--import`` options:

* ``report``: the source of each function with its ``if`` / ``while`` / ``for`` / ``and`` /
  ``or`` annotated (:func:`translator.report`); exit status 1 when translation fails.
* ``check``: runs eager and converted on random inputs of the given specs (unknown dims take
  ``--batch-size``; integers in ``[0, --int-high)``; ``--seed``) and compares outputs and
  gradients (:func:`translator.check`); exit status 1 when they differ.
* ``graph``: the translated Program as Graphviz DOT (``--format dot``, the default) or one
  self-contained HTML page (``--format html``), to stdout or ``-o FILE``.

``lint PATH...`` checks files and directories without running them (:func:`translator.lint`)
and exits with 1 when it finds an error.
"""
import argparse
import ast
import sys

import numpy as np

from core.static import program_to_dot, program_to_html

from . import cli_loading as cli
from .consistency_check import check
from .flow_report import report
from .input_spec import InputSpec
from .linter import lint_paths

__all__ = ["COMMANDS", "main"]


def _common(p, with_specs=True):
    p.add_argument("target", metavar="FILE.py[:QUALNAME]")
    if with_specs:
        p.add_argument("--input-spec", action="append", metavar="NAME:DTYPE[DIMS]",
                       help="a tensor argument, e.g. 'x:float32[-1,784]' (repeatable)")
        p.add_argument("--arg", action="append", metavar="NAME=LITERAL",
                       help="a Python-value argument (repeatable)")
    p.add_argument("--init-args", metavar="ARGS",
                   help="constructor arguments of a method's class, e.g. \"784, 10\"")
    p.add_argument("--import", dest="whole", action="store_true",
                   help="import the whole file instead of its definitions only")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE")


def _parser():
    p = argparse.ArgumentParser(prog="dy2static", description="Tools that show what the "
                                "translator does with a Python file.")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("report", help="annotate each if/while/for/and/or with what it became")
    _common(r)
    c = sub.add_parser("check", help="compare eager and converted outputs and gradients")
    _common(c)
    c.add_argument("--rtol", type=float, default=1e-5)
    c.add_argument("--atol", type=float, default=1e-6)
    c.add_argument("--no-grads", dest="grads", action="store_false",
                   help="compare outputs only")
    c.add_argument("--batch-size", type=int, default=2,
                   help="size of unknown dimensions of the random inputs (default 2)")
    c.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    c.add_argument("--int-high", type=int, default=2,
                   help="integer inputs are drawn from [0, INT_HIGH) (default 2; raise it "
                   "within the valid range of ids or labels)")
    g = sub.add_parser("graph", help="the translated Program as DOT or HTML")
    _common(g)
    g.add_argument("--format", choices=("dot", "html"), default="dot")
    lint = sub.add_parser("lint", help="static check for constructs that do not convert")
    lint.add_argument("paths", nargs="+", metavar="PATH")
    lint.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE")
    return p


def _functions(args):
    """``[(qualname, lineno, obj, module)]`` named by ``args.target``."""
    path, qualname = cli.split_target(args.target)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        raise cli.UsageError(f"{path}: no such file") from None
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise cli.UsageError(f"{path}:{e.lineno}: syntax error: {e.msg}") from None
    found = cli.find_decorated(tree)
    if qualname is not None:
        chosen = [f for f in found if f[0] == qualname]
        if not chosen:
            raise cli.UsageError(f"{path}: no function or method named '{qualname}'")
    else:
        chosen = [f for f in found if f[2]]
        if not chosen:
            raise cli.UsageError(f"{path}: no function decorated with @declarative / "
                                 "@to_static (name one as FILE.py:QUALNAME)")
    try:
        module = cli.load_file(path, tree, args.whole)
    except (Exception, SystemExit) as e:
        raise RuntimeError(f"{path}: loading the file failed: {type(e).__name__}: {e}") from e
    return [(name, lineno, cli.resolve(module, name), module) for name, lineno, _ in chosen]


def _random_inputs(call_args, batch_size, seed, int_high):
    """Arrays for the InputSpecs among ``call_args`` (other values unchanged)."""
    rng = np.random.default_rng(seed)
    out = []
    for value in call_args:
        if isinstance(value, InputSpec):
            shape = [batch_size if d == -1 else d for d in value.shape]
            if value.dtype.kind == "f":
                value = rng.standard_normal(shape).astype(value.dtype)
            elif value.dtype.kind == "b":
                value = rng.integers(0, 2, shape).astype(bool)
            else:
                value = rng.integers(0, int_high, shape).astype(value.dtype)
        out.append(value)
    return out


def _run_report(args):
    texts, status = [], 0
    for name, _, obj, module in _functions(args):
        static, call_args = cli.prepare_call(module, name, obj, args, "report")
        rep = report(static, *call_args)
        status = 1 if rep.error is not None else status
        texts.append(rep.text)
    return "\n".join(texts), status


def _run_check(args):
    texts, status = [], 0
    for name, _, obj, module in _functions(args):
        static, call_args = cli.prepare_call(module, name, obj, args, "check")
        values = _random_inputs(call_args, args.batch_size, args.seed, args.int_high)
        result = check(static, *values, rtol=args.rtol, atol=args.atol, grads=args.grads)
        status = status if result.ok else 1
        texts.append(str(result) + "\n")
    return "".join(texts), status


def _run_graph(args):
    texts = []
    chosen = _functions(args)
    if args.format == "html" and len(chosen) > 1:
        raise cli.UsageError(f"--format html draws one function; name one of "
                             f"{[c[0] for c in chosen]} as FILE.py:QUALNAME")
    for name, _, obj, module in chosen:
        static, call_args = cli.prepare_call(module, name, obj, args, "graph")
        program = static.get_concrete_program(*call_args).main_program
        if args.format == "html":
            texts.append(program_to_html(program, name))
        else:
            texts.append(program_to_dot(program, name))
    return "".join(texts), 0


def _run_lint(args):
    try:
        findings = lint_paths(args.paths)
    except FileNotFoundError as e:
        raise cli.UsageError(str(e)) from None
    errors = sum(f.severity == "error" for f in findings)
    lines = [str(f) for f in findings]
    lines.append(f"{len(findings)} finding(s), {errors} error(s)")
    return "\n".join(lines) + "\n", 1 if errors else 0


_RUN = {"report": _run_report, "check": _run_check, "graph": _run_graph, "lint": _run_lint}
COMMANDS = tuple(_RUN)


def main(argv):
    """``dy2static COMMAND ...``; returns the exit status (2 for a usage error)."""
    args = _parser().parse_args(argv)
    try:
        text, status = _RUN[args.command](args)
    except cli.UsageError as e:
        print(f"dy2static {args.command}: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # translating the user's code failed: say what and where
        print(f"dy2static {args.command}: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if args.output:
        cli.write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return status

"""``translator.report``: what the translator made of each ``if`` / ``while`` / ``for`` /
``and`` / ``or`` of a function and of the functions it calls.

The report translates the function afresh for example arguments while a :class:`Recorder` is
active, then prints the source of every user function that ran, each control-flow construct
annotated with what happened to it: it became a ``cond`` / ``while`` op (the condition was a
Tensor, with its dtype and shape; the loop variables it carries), or it stayed Python and why
(the condition's Python type and value), and how many times a Python loop ran, i.e. how often
its body was unrolled into the Program. A construct that never ran is marked as such.

How it is recorded: converted code reaches its run-time helpers as attributes of the ``_d2s``
namespace (``translator.convert_ops``), looked up at each call. While a recorder is active it
puts observing wrappers there; each wrapper notes the user's line of the construct
(``origin_info.current_user_origin``), watches the condition values the construct sees, and
calls the original helper with the same arguments, so translation is unchanged.
"""
import ast
import contextlib
import linecache
import os

from . import convert_ops, origin_info
from .convert_iter import is_static_iterable
from .convert_state import is_static
from .program_translator import FALLBACK_ERRORS, StaticFunction, fallback_reason

__all__ = ["Event", "Recorder", "Report", "recording", "report"]

_KINDS = {ast.If: "if", ast.IfExp: "if", ast.While: "while", ast.For: "for"}


def describe_value(value):
    """What a condition or iterable is, for the report (``'a Tensor bool[1]'``, ``'bool True'``)."""
    if is_static(value):
        shape = [None if d is None or d < 0 else d for d in value.shape]
        return f"a Tensor {getattr(value.dtype, 'name', value.dtype)}{shape}"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return (f"an eager {type(value).__name__} {getattr(value.dtype, 'name', value.dtype)}"
                f"{list(value.shape)}, a constant at translation time")
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"a Python {type(value).__name__} ({text})"


class Event:
    """One time a construct ran while translating: ``kind`` ('if', 'while', 'for', 'and',
    'or'), ``filename`` and ``line`` of the user's code, ``static`` (it built a ``cond`` /
    ``while`` op), ``reason`` (the condition or iterable, described), ``carried`` (the user's
    loop variables a static loop carries), ``iterations`` (how many times a Python loop's body
    ran before it ended or turned static)."""

    __slots__ = ("kind", "filename", "line", "static", "reason", "carried", "iterations")

    def __init__(self, kind, origin, carried=()):
        self.kind = kind
        self.filename, self.line = (origin[0], origin[1]) if origin else (None, None)
        self.static = False
        self.reason = None
        self.carried = tuple(n for n in carried if not n.startswith("__"))
        self.iterations = 0

    def see(self, value):
        """The construct saw condition ``value``; a static one makes it a graph op."""
        if self.reason is None or (is_static(value) and not self.static):
            self.reason = describe_value(value)
        if is_static(value):
            self.static = True

    def summary(self):
        op = {"if": "cond", "and": "cond", "or": "cond"}.get(self.kind, "while")
        if self.kind in ("and", "or"):
            if self.static:
                return f"became a {op} op (left operand is {self.reason})"
            return f"stayed Python, short-circuit (left operand is {self.reason})"
        if self.kind == "if":
            if self.static:
                return f"became a cond op (condition is {self.reason})"
            return f"stayed Python (condition is {self.reason})"
        what = "condition" if self.kind == "while" else "iterable"
        if self.static:
            carried = ", ".join(self.carried) or "nothing"
            before = f", after {self.iterations} Python iteration(s)" \
                if self.iterations else ""
            return f"became a while op ({what} is {self.reason}{before}); carries {carried}"
        return (f"stayed Python ({what} is {self.reason}); "
                f"unrolled {self.iterations} time(s)")


class Recorder:
    """Collects :class:`Event` s from the observing helpers while active."""

    def __init__(self):
        self.events = []

    def new(self, kind, carried=()):
        event = Event(kind, origin_info.current_user_origin(), carried)
        self.events.append(event)
        return event

    # -- the observing helpers ---------------------------------------------------------------------
    def helpers(self, original):
        """``{name: wrapper}`` around the ``original`` helpers (``{name: function}``)."""
        rec = self

        def convert_ifelse(pred, *args, **kwargs):
            rec.new("if").see(pred)
            return original["convert_ifelse"](pred, *args, **kwargs)

        def convert_ifexp(pred, *args, **kwargs):
            rec.new("if").see(pred)
            return original["convert_ifexp"](pred, *args, **kwargs)

        def logical(name, kind):
            def helper(x_fn, *args, **kwargs):
                event = rec.new(kind)

                def x_observed():
                    value = x_fn()
                    event.see(value)
                    return value

                return original[name](x_observed, *args, **kwargs)
            helper.__name__ = name
            return helper

        def convert_while_loop(cond_fn, body_fn, loop_vars=(), *args, **kwargs):
            event = rec.new("while", loop_vars)

            def cond_observed(*a, **k):
                value = cond_fn(*a, **k)
                event.see(value)
                if not event.static and value:
                    event.iterations += 1
                return value

            return original["convert_while_loop"](cond_observed, body_fn, loop_vars, *args,
                                                  **kwargs)

        def convert_for_loop(iterable, extra_test, body_fn, loop_vars=(), *args, **kwargs):
            event = rec.new("for", loop_vars)
            event.see(iterable)
            if is_static_iterable(iterable):
                event.static = True
            elif extra_test is not None:
                test = extra_test

                def extra_test(*a, **k):
                    value = test(*a, **k)
                    if is_static(value) and not event.static:
                        event.static = True
                        event.reason += ", with a break/return under a Tensor condition"
                    elif value and not event.static:
                        event.iterations += 1
                    return value
            elif hasattr(iterable, "__len__"):
                event.iterations = len(iterable)
            else:
                iterable = _counting(iterable, event)
            return original["convert_for_loop"](iterable, extra_test, body_fn, loop_vars,
                                                *args, **kwargs)

        return {"convert_ifelse": convert_ifelse, "convert_ifexp": convert_ifexp,
                "convert_logical_and": logical("convert_logical_and", "and"),
                "convert_logical_or": logical("convert_logical_or", "or"),
                "convert_while_loop": convert_while_loop, "convert_for_loop": convert_for_loop}


def _counting(iterable, event):
    for item in iterable:
        event.iterations += 1
        yield item


@contextlib.contextmanager
def recording():
    """Record every construct converted code runs inside the block; yields the
    :class:`Recorder`. The helpers are restored afterwards, also on an error."""
    names = ("convert_ifelse", "convert_ifexp", "convert_logical_and", "convert_logical_or",
             "convert_while_loop", "convert_for_loop")
    original = {n: getattr(convert_ops, n) for n in names}
    recorder = Recorder()
    for name, helper in recorder.helpers(original).items():
        setattr(convert_ops, name, helper)
    try:
        yield recorder
    finally:
        for name, helper in original.items():
            setattr(convert_ops, name, helper)


# -- rendering ------------------------------------------------------------------------------------
def _functions_of(filename):
    """``[(start, end, node)]`` of the function definitions in ``filename``."""
    source = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [(n.lineno, n.end_lineno, n) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _innermost(functions, line):
    best = None
    for start, end, node in functions:
        decorated = min([d.lineno for d in node.decorator_list] + [start])
        if decorated <= line <= end and (best is None or start > best[0]):
            best = (start, end, node)
    return best


def _constructs(node):
    """``{(line, kind)}`` of the control-flow constructs in a function's body."""
    found = set()
    for n in ast.walk(node):
        kind = _KINDS.get(type(n))
        if kind is None and isinstance(n, ast.BoolOp):
            kind = "and" if isinstance(n.op, ast.And) else "or"
        if kind is not None:
            found.add((n.lineno, kind))
    return found


class Report:
    """The outcome of :func:`report`: ``events`` (every :class:`Event`), ``error`` (the
    exception that stopped translation, or None), ``fallback`` (why a declarative call with
    these arguments runs eagerly -- ``full_graph=False`` and a construct the translator cannot
    express -- or None), ``program`` (the translated main Program, or None) and ``text`` (the
    annotated source; also ``str(report)``)."""

    def __init__(self, func, events, program, error, fallback=None):
        self.function = func
        self.events = events
        self.program = program
        self.error = error
        self.fallback = fallback
        self.text = self._render()

    def __str__(self):
        return self.text

    def summary(self):
        """``[(filename, line, kind, summary)]`` per construct that ran, in source order (on one
        line, in the order they first ran)."""
        grouped = {}
        for e in self.events:
            if e.filename is not None:
                grouped.setdefault((e.filename, e.line, e.kind), []).append(e)
        out = []
        for (filename, line, kind), events in sorted(grouped.items(), key=lambda i: i[0][:2]):
            out.append((filename, line, kind, _merge(events)))
        return out

    def _render(self):
        code = getattr(self.function, "__code__", None)
        entry = (code.co_filename, code.co_firstlineno) if code else None
        by_line = {}
        for filename, line, kind, text in self.summary():
            by_line.setdefault((filename, line), []).append((kind, text))
        functions = {}  # (filename, start) -> (end, node)
        for filename, line in list(by_line) + ([entry] if entry else []):
            found = _innermost(_functions_of(filename), line)
            if found is not None:
                functions[(filename, found[0])] = found[1:]
        parts, shown = [], set()
        for (filename, start), (end, node) in sorted(
                functions.items(), key=lambda item: (item[0] != entry, item[0])):
            parts.append(self._render_function(filename, start, end, node, by_line))
            shown.update((filename, k) for k in range(start, end + 1))
        rest = [f"# {filename}:{line}: {kind}: {text}"  # code whose source is not available
                for (filename, line), notes in sorted(by_line.items())
                if (filename, line) not in shown for kind, text in notes]
        if rest:
            parts.append("\n".join(rest))
        if self.fallback is not None:
            parts.append(f"# fallback: runs eagerly for these arguments (full_graph=False): "
                         f"{self.fallback}")
        elif self.error is not None:
            parts.append(f"# translation stopped: {type(self.error).__name__}: {self.error}")
        if not parts:
            parts.append("# no control flow ran")
        return "\n\n".join(parts) + "\n"

    def _render_function(self, filename, start, end, node, by_line):
        lines = linecache.getlines(filename)
        first = min([d.lineno for d in node.decorator_list] + [start])
        constructs = _constructs(node)
        out = [f"# {node.name}  ({os.path.basename(filename)}:{start})"]
        for k in range(first, end + 1):
            text = lines[k - 1].rstrip("\n") if k - 1 < len(lines) else ""
            out.append(f"{k:5d}  {text}")
            indent = " " * (len(text) - len(text.lstrip()) + 7)
            seen = set()
            for kind, summary in by_line.get((filename, k), []):
                out.append(f"{indent}# ^ {kind}: {summary}")
                seen.add(kind)
            for line, kind in sorted(constructs):
                if line == k and kind not in seen:
                    out.append(f"{indent}# ^ {kind}: not reached while translating")
        return "\n".join(out)


def _merge(events):
    texts = {}
    for e in events:
        s = e.summary()
        texts[s] = texts.get(s, 0) + 1
    if len(events) == 1:
        return next(iter(texts))
    return f"ran {len(events)} times: " + "; ".join(
        f"{s} [x{n}]" if n > 1 else s for s, n in texts.items())


def report(func, *example_args, **example_kwargs):
    """Translate ``func`` (a function, a ``declarative`` function or a bound Layer method) for
    the example arguments (eager tensors, ndarrays or :class:`InputSpec`; the declared
    ``input_spec`` when none are given) and return a :class:`Report`: its source and the
    source of the functions it called, each ``if`` / ``while`` / ``for`` / ``and`` / ``or``
    annotated with whether it became a ``cond`` / ``while`` op or stayed Python, and why.

    The function's program cache is not touched (a separate translation is made). Arguments
    that do not fit the function raise ``TypeError``; an error while translating is kept in
    ``Report.error`` and shown after the annotated source (as the fallback to eager execution
    when the function's ``full_graph`` is False and the translator cannot express a construct).
    """
    static = func if isinstance(func, StaticFunction) else StaticFunction(func)
    fresh = StaticFunction(static.dygraph_function, static.input_spec, static.instance,
                           static.full_graph)
    if example_args or example_kwargs or fresh.input_spec is None:
        fresh.binder.bind(example_args, example_kwargs)  # wrong arguments: a TypeError now
    program, error = None, None
    with recording() as recorder:
        try:
            program = fresh.get_concrete_program(*example_args, **example_kwargs).main_program
        except Exception as e:
            error = e
    fallback = None
    if isinstance(error, FALLBACK_ERRORS) and not fresh.full_graph:
        fallback = fallback_reason(error)
    return Report(static.dygraph_function, recorder.events, program, error, fallback)

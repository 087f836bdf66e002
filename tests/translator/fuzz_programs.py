"""A differential fuzzer for the translator: random small control-flow programs, each run
eagerly (translator off, the meaning of the code), converted (``declarative``) and as a
Program (``get_concrete_program`` + ``core.Executor``); every disagreement is a finding.

:func:`generate(rng)` writes the source of one function ``f(x, n, k)`` -- ``x`` a float32
tensor, ``n`` an int64 0-d tensor (a trip count), ``k`` a Python int -- out of nested ``if``
/ ``while`` / ``for`` with ``break`` / ``continue`` / ``return``, Tensor and Python
conditions (some spelt as PaddlePaddle code does: ``t.numpy()[0] > 0``, chains ending in a
Python object: ``a and (b and None)``), names bound in one branch only (now and then read
where they may be unbound, so eager raises ``UnboundLocalError`` on some paths, and the
static runs must fail the same way on exactly those), Python lists appended to in loops and
iterated after, and early returns (in programs with Python state from ``if`` statements
outside loops only) -- in some programs (which then return only outside loops) of other
structures (a Tensor, None, nested lists and dicts), which the converted function must
return as the path taken does. Loops that a Tensor controls count up to ``n`` and advance
their counter first, so every program ends.

:func:`check_program(source, as_layer)` runs one program on inputs that take different
branches and trip counts (zero included) and returns a description of the first
disagreement, or None. ``scripts/fuzz_translator.py`` runs many; ``test_fuzz.py`` a few
hundred in CI.
"""
import linecache
import random

import numpy as np

import core
from translator import declarative

from .three_way import assert_same, run_declarative, run_eager, run_program

__all__ = ["check_program", "generate", "load", "run_many"]

POOL = ("v0", "v1", "v2")
INPUTS = [(np.asarray(v, np.float32), n, k)
          for v, n, k in (([0.5, -1.0, 2.0], 0, 0), ([0.5, -1.0, 2.0], 3, 2),
                          ([-2.0, 0.25, -0.5], 1, 0), ([-2.0, 0.25, -0.5], 2, 2),
                          ([1.0, 1.5, 0.75], 2, 1))]


class _Gen:
    def __init__(self, rng, max_depth=2, max_stmts=3):
        self.rng, self.max_depth, self.max_stmts = rng, max_depth, max_stmts
        self.lines, self.counter = [], 0
        self.bound = set()  # every name assigned so far, on any path
        self.vary_returns = rng.random() < 0.4  # then no return inside loops
        self.extra = []  # names bound at the top level that every return adds
        # half the programs exercise Python state (nests, dict keys, appended lists, del,
        # globals, shadowed builtins, no_grad) and return early only from ifs outside loops
        self.state = rng.random() < 0.5
        # half the state programs return early (from ifs outside loops)
        self.early_state = self.state and rng.random() < 0.5

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- expressions -------------------------------------------------------------------------------
    def tensor_expr(self, defined, counters):
        r = self.rng
        a, b = r.choice(sorted(defined)), r.choice(sorted(defined))
        maybe = sorted(self.bound - defined)
        if maybe and r.random() < 0.08:  # a name bound on some paths only: may raise eagerly
            b = r.choice(maybe)
        forms = [f"{a} + {b}", f"({a} - {b}) * 0.5", f"{a} * 0.5 + 1.0", f"{a} - 1.0",
                 f"core.layers.relu({a}) - {b} * 0.25", f"{a} * -1.0"]
        if counters:
            c = r.choice(counters)
            forms.append(f"{a} + {c} * 0.5")
        return r.choice(forms)

    def condition(self, defined, counters):
        r = self.rng
        a = r.choice(sorted(defined))
        forms = [f"{a}.sum() > {r.choice(['0.0', '1.0', '-1.0'])}",
                 f"{a}.mean() < {r.choice(['0.0', '0.5'])}",
                 f"k > {r.randint(0, 2)}", f"k == {r.randint(0, 2)}"]
        if counters:
            c = r.choice(counters)
            forms += [f"{c} % 2 == 0", f"{c} > {r.randint(0, 2)}"]
        if r.random() < 0.15:  # PaddlePaddle's spelling: numpy() of a tensor as an operand
            forms.append(r.choice([f"{a}.mean().numpy() < 0.5", f"{a}.numpy()[0] > 0.0",
                                   f"{a}.numpy()[-1] <= {a}.numpy()[0]"]))
        cond = r.choice(forms)
        roll = r.random()
        if roll < 0.15:
            cond = f"not ({cond})"
        elif roll < 0.3:
            cond = f"({cond}) and ({r.choice(forms)})"
        elif roll < 0.4:
            cond = f"({cond}) or ({r.choice(forms)})"
        elif roll < 0.45:  # a chain whose last operand is a Python object, not a Tensor
            last = r.choice(["None", "'s'", "k", "0", "3", "0.0"])
            cond = f"({cond}) {r.choice(['and', 'or'])} ({r.choice(forms)} and {last})"
        return cond

    # -- statements --------------------------------------------------------------------------------
    def block(self, depth, defined, counters, in_loop, nest):
        """Statements at ``depth``; returns (names defined after, whether it always returns)."""
        defined = set(defined)
        for _ in range(self.rng.randint(1, self.max_stmts)):
            kind = self.pick(nest, in_loop)
            if kind == "assign":
                target = self.rng.choice(POOL + ("t" + str(self.rng.randint(0, 2)),))
                self.emit(depth, f"{target} = {self.tensor_expr(defined, counters)}")
                defined.add(target)
                self.bound.add(target)
            elif kind == "if":
                defined, returns = self.if_stmt(depth, defined, counters, in_loop, nest)
                if returns:
                    return defined, True
            elif kind in ("while_", "for_range", "for_list", "nest", "no_grad", "delete",
                          "global_", "attr_", "dict_key", "appended", "shadow"):
                getattr(self, kind)(depth, defined, counters, nest)
            elif kind == "jump":
                self.emit(depth, f"if {self.condition(defined, counters)}:")
                self.emit(depth + 1, self.rng.choice(["break", "continue"]))
            elif kind == "return":
                value = ", ".join(POOL + tuple(self.extra))
                if self.vary_returns and self.rng.random() < 0.4:  # other structures
                    value = self.rng.choice(["v0", "v1, v2", "None", "[v0, {'a': v1}], 7"])
                self.emit(depth, f"return {value}")
                return defined, True
        return defined, False

    def pick(self, nest, in_loop):
        kinds = ["assign", "assign", "if"]
        if nest < self.max_depth:
            kinds += ["if", "while_", "for_range", "for_list"]
            if self.state:
                kinds += ["nest", "no_grad", "delete", "global_", "attr_"]
        if nest == 0 and self.state:  # at the top: bound on every path, and returned
            kinds += ["dict_key", "appended", "shadow"]
        if in_loop:
            kinds.append("jump")
        if not (in_loop and self.vary_returns):  # a loop returns what every path returns
            # a program with Python state returns early only from an if outside loops (so
            # the writes after it run only on the paths that do not return)
            early = self.rng.random() < 0.3 and (not self.state or (
                self.early_state and nest > 0 and not in_loop))
            kinds.append("return" if early else "assign")
        return self.rng.choice(kinds)

    def if_stmt(self, depth, defined, counters, in_loop, nest):
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        body_defined, body_returns = self.block(depth + 1, defined, counters, in_loop, nest + 1)
        else_defined, else_returns = defined, False
        if self.rng.random() < 0.6:
            self.emit(depth, "else:")
            else_defined, else_returns = self.block(depth + 1, defined, counters, in_loop,
                                                    nest + 1)
        if body_returns and else_returns:
            return defined, True
        if body_returns:
            return else_defined, False
        if else_returns:
            return body_defined, False
        return body_defined & else_defined, False

    def counted_while(self, depth, c, bounds=("n", "k", "2")):
        """``c = 0; while c < bound: c += 1`` (the body goes at ``depth + 1``): a loop that
        a Tensor controls when the bound is ``n``, and that always ends."""
        self.emit(depth, f"{c} = 0")
        self.emit(depth, f"while {c} < {self.rng.choice(list(bounds))}:")
        self.emit(depth + 1, f"{c} += 1")

    def while_(self, depth, defined, counters, nest):
        c = self.fresh("i")
        self.counted_while(depth, c, ["n", "n", "2", "k"])
        self.block(depth + 1, defined, counters + [c], True, nest + 1)

    def for_range(self, depth, defined, counters, nest):
        c = self.fresh("j")
        bound = self.rng.choice(["n", "3", "k", "n + 1"])
        self.emit(depth, f"for {c} in range({bound}):")
        self.block(depth + 1, defined, counters + [c], True, nest + 1)

    def for_list(self, depth, defined, counters, nest):
        lst, c, item = self.fresh("lst"), self.fresh("i"), self.fresh("e")
        acc = self.rng.choice(POOL)
        source = self.rng.choice(sorted(defined))
        self.emit(depth, f"{lst} = [{source} * 0.5]")
        self.counted_while(depth, c)
        self.emit(depth + 1, f"{lst}.append({self.tensor_expr(defined, [c])})")
        how = self.rng.choice(["for", "enumerate", "zip"])
        if how == "for":
            self.emit(depth, f"for {item} in {lst}:")
            self.emit(depth + 1, f"{acc} = {acc} + {item}")
        elif how == "enumerate":
            self.emit(depth, f"for {c}, {item} in enumerate({lst}):")
            self.emit(depth + 1, f"{acc} = {acc} + {item} * {c}")
        else:
            self.emit(depth, f"for {item}, {c} in zip({lst}, {lst}):")
            self.emit(depth + 1, f"{acc} = {acc} + {item} - {c} * 0.5")
        self.emit(depth, f"{acc} = {acc} + len({lst})")
        defined.add(acc)


    # -- Python state across tensor control flow --------------------------------------------------
    def loop_or_if(self, depth, defined, counters):
        """Opens a tensor ``while`` (counting to n or k) or an ``if``; returns the body depth
        and the counters visible in it."""
        if self.rng.random() < 0.5:
            c = self.fresh("i")
            self.counted_while(depth, c)
            return depth + 1, counters + [c]
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        return depth + 1, counters

    def nest(self, depth, defined, counters, nest):
        """A nest of lists, dicts and tuples rebound inside a loop or branch (by a
        comprehension now and then), read after it."""
        ns, a, b = self.fresh("ns"), self.rng.choice(sorted(defined)), self.rng.choice(POOL)
        self.emit(depth, f"{ns} = [{a}, {{'a': {b}, 'b': ({a} * 0.5, 2.0)}}]")
        inner, cs = self.loop_or_if(depth, defined, counters)
        if self.rng.random() < 0.5:
            self.emit(inner, f"{ns} = [{ns}[0] + {self.tensor_expr(defined, cs)}, "
                             f"{{key: val for key, val in {ns}[1].items()}}]")
        else:
            self.emit(inner, f"{ns} = [{ns}[0] * 0.5, {{'a': {ns}[1]['a'] - 1.0, "
                             f"'b': ({ns}[1]['b'][0] + {ns}[0], {ns}[1]['b'][1])}}]")
        target = self.rng.choice(POOL)
        self.emit(depth, f"{target} = {ns}[0] + {ns}[1]['a'] * {ns}[1]['b'][1] + {ns}[1]['b'][0]")
        defined.add(target)

    def no_grad(self, depth, defined, counters, nest):
        target = self.rng.choice(POOL)
        self.emit(depth, "with core.no_grad():")
        self.emit(depth + 1, f"{target} = {self.tensor_expr(defined, counters)}")
        defined.add(target)

    def delete(self, depth, defined, counters, nest):
        """A temporary deleted on one path: a later read may raise UnboundLocalError."""
        t = self.fresh("d")
        self.emit(depth, f"{t} = {self.tensor_expr(defined, counters)}")
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        self.emit(depth + 1, f"del {t}")
        self.bound.add(t)
        if self.rng.random() < 0.3:
            target = self.rng.choice(POOL)
            self.emit(depth, f"{target} = {target} + {t}")

    def global_(self, depth, defined, counters, nest):
        """The global ``g`` written under a tensor or Python condition (compared after each
        call: a Python value is written again, guarded on the value it was computed from)."""
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        self.emit(depth + 1, f"g = {self.rng.choice(['1.5', '2', 'g + 1.0'])}")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"g = {self.rng.choice(['0.5', 'g * 2.0', '3'])}")

    def attr_(self, depth, defined, counters, nest):
        """The attribute ``st.a`` of a Layer outside the function written under a condition,
        on one path or both (compared after each call)."""
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        self.emit(depth + 1, f"st.a = {self.tensor_expr(defined, counters)}")
        if self.rng.random() < 0.5:
            self.emit(depth, "else:")
            self.emit(depth + 1, f"st.a = {self.tensor_expr(defined, counters)}")

    def dict_key(self, depth, defined, counters, nest):
        """A dict whose key is set on one path only; tested with ``in`` or read with ``get``,
        and returned."""
        d = self.fresh("dk")
        self.emit(depth, f"{d} = {{'a': {self.rng.choice(sorted(defined))}}}")
        self.emit(depth, f"if {self.condition(defined, counters)}:")
        self.emit(depth + 1, f"{d}['b'] = {self.tensor_expr(defined, counters)}")
        target, use = self.rng.choice(POOL), self.rng.choice(["in", "get", "none"])
        if use == "in":
            self.emit(depth, f"if 'b' in {d}:")
            self.emit(depth + 1, f"{target} = {target} + {d}['b']")
        elif use == "get":
            self.emit(depth, f"{target} = {target} + {d}.get('b', {target} * 0.0)")
        defined.add(target)
        self.extra.append(d)

    def appended(self, depth, defined, counters, nest):
        """A list appended in a tensor loop, then iterated, indexed, sliced and returned."""
        lst, c, item = self.fresh("ap"), self.fresh("i"), self.fresh("e")
        self.emit(depth, f"{lst} = [{self.rng.choice(sorted(defined))}]")
        self.counted_while(depth, c)
        self.emit(depth + 1, f"{lst}.append({self.tensor_expr(defined, [c])})")
        acc = self.rng.choice(POOL)
        use = self.rng.choice(["reverse", "index", "assign", "slice"])
        if use == "reverse":
            self.emit(depth, f"for {item} in {lst}[::-1]:")
            self.emit(depth + 1, f"{acc} = {acc} * 0.5 + {item}")
        elif use == "index":
            self.emit(depth, f"{acc} = {acc} + {lst}[-1] - {lst}[0]")
        elif use == "assign":
            self.emit(depth, f"{lst}[-1] = {lst}[0] * 2.0")
        else:
            self.emit(depth, f"{lst} = {lst}[1:]")
        defined.add(acc)
        self.extra.append(lst)

    def shadow(self, depth, defined, counters, nest):
        """A local name that shadows a builtin."""
        name = self.rng.choice(["abs", "max", "min", "sum"])  # builtins the generator never calls
        self.emit(depth, f"{name} = lambda t, *rest: t * 0.5 - 1.0")
        target = self.rng.choice(POOL)
        self.emit(depth, f"{target} = {name}({self.rng.choice(sorted(defined))})")
        defined.add(target)


def generate(rng, name="f"):
    """The source of one random program (a function ``name(x, n, k)``)."""
    g = _Gen(rng)
    g.emit(0, f"def {name}(x, n, k):")
    g.emit(1, "global g")
    g.emit(1, "v0 = x * 1.0")
    g.emit(1, "v1 = x + 1.0")
    g.emit(1, "v2 = x - 1.0")
    _, returns = g.block(1, set(POOL), [], False, 0)
    if not returns:
        g.emit(1, f"return {', '.join(POOL + tuple(g.extra))}")
    return "\n".join(g.lines) + "\n"


_loaded = [0]


def load(source, name="f"):
    """The function ``source`` defines, with its source findable by ``inspect`` (a
    ``linecache`` entry under a unique file name), as the translator needs."""
    _loaded[0] += 1
    filename = f"<fuzz-program-{_loaded[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"core": core, "g": 0.0, "st": _State()}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


class _State(core.nn.Layer):
    """A Layer outside the programs whose attribute ``a`` they write."""


def _outside(state):
    """The global ``g`` and the attribute ``st.a`` (None when unset) after a run."""
    return state["g"], state["st"].__dict__.get("a")


def _reset(state):
    state["g"] = 0.0
    state["st"].__dict__.pop("a", None)


class _Host(core.nn.Layer):
    """A Layer whose declarative ``forward`` runs a fuzz program."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    @declarative
    def forward(self, x, n, k):
        return self.fn(x, n, k)


def _args(x, n, k):
    return (x, np.asarray(n, np.int64), k)


def check_program(source, as_layer=False, inputs=INPUTS):
    """None when every input agrees three ways; else a description of the disagreement."""
    fn = load(source)
    target = _Host(fn) if as_layer else declarative(fn)
    state = fn.__globals__
    for x, n, k in inputs:
        args = _args(x, n, k)
        _reset(state)
        expected = run_eager(target, args)
        expected_g, expected_a = _outside(state)
        if isinstance(expected, BaseException) and not isinstance(expected, UnboundLocalError):
            return f"eager raised {expected!r} on n={n}, k={k} (generator bug)"
        for how, run in (("declarative", run_declarative), ("program", run_program)):
            _reset(state)
            got = run(target, args)
            try:
                assert_same(expected, got, how)
                if how == "declarative" and not isinstance(expected, BaseException):
                    g, a = _outside(state)
                    # the paths' numbers promote to one type (1.5 or 3 gives 3.0)
                    assert isinstance(g, (int, float)) and g == expected_g, \
                        f"global g: {g!r} != {expected_g!r}"
                    assert (a is None) == (expected_a is None), f"st.a: {a!r} != {expected_a!r}"
                    if a is not None:
                        assert_same(expected_a, a, "st.a")
            except Exception as e:  # a disagreement, or a value that is no eager value
                kind = "Layer.forward" if as_layer else "function"
                return f"{kind}, n={n}, k={k}: {e}"
    return None


def run_many(count, seed, on_finding=None):
    """Generate and check ``count`` programs from ``seed``; returns the findings as
    ``[(index, source, description)]``."""
    findings = []
    for i in range(count):
        rng = random.Random(seed * 1_000_003 + i)
        source = generate(rng)
        problem = check_program(source, as_layer=i % 4 == 3)
        if problem is not None:
            findings.append((i, source, problem))
            if on_finding is not None:
                on_finding(i, source, problem)
    return findings

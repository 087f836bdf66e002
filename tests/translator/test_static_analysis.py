"""``translator.static_analysis``: the names code reads / writes / kills, and the liveness and
definedness annotations of :func:`analyze`, on small parsed snippets with exact answers."""
import importlib.util
import sys
import textwrap

import gast
import numpy as np
import pytest

import core
from translator import declarative
from translator import static_analysis as sa
from translator.gast_nodes import set_anno
from translator.visitor import child_statements

needs_match = pytest.mark.skipif(sys.version_info < (3, 10),
                                 reason="match statements parse from Python 3.10")


def parse(src):
    return gast.parse(textwrap.dedent(src)).body


def names(src):
    body = parse(src)
    return sorted(sa.reads(body)), sorted(sa.writes(body)), sorted(sa.kills(body))


@pytest.mark.parametrize("src, reads, writes, kills", [
    ("x = y + 1", ["y"], ["x"], ["x"]),
    ("x += y", ["x", "y"], ["x"], ["x"]),
    ("o.a += 1", ["o"], [], []),
    ("x[i] = v", ["i", "v", "x"], [], []),
    ("x[0] += 1", ["x"], [], []),
    ("a, *b = c", ["c"], ["a", "b"], ["a", "b"]),
    ("[p, (q, *r)] = s", ["s"], ["p", "q", "r"], ["p", "q", "r"]),
    ("del d", [], ["d"], ["d"]),
    ("del o.attr, x[k]", ["k", "o", "x"], [], []),
    ("a: int = b", ["b", "int"], ["a"], ["a"]),
    ("import os.path as p, numpy.linalg", [], ["numpy", "p"], ["numpy", "p"]),
    ("from m import a as b, c", [], ["b", "c"], ["b", "c"]),
    ("for i, j in pairs:\n    s = s + i", ["i", "pairs", "s"], ["i", "j", "s"],
     ["i", "j", "s"]),
    ("with open(f) as h:\n    d = h.read()", ["f", "h", "open"], ["d", "h"], ["d", "h"]),
    ("try:\n    a = 1\nexcept E as e:\n    b = e", ["E", "e"], ["a", "b", "e"],
     ["a", "b", "e"]),
])
def test_statement_names(src, reads, writes, kills):
    assert names(src) == (reads, writes, kills)


@pytest.mark.parametrize("src, reads, writes", [
    # a nested function: its parameters and locals are its own; defaults, decorators and
    # annotations are evaluated here; the free names it reads are reads
    ("@deco(k)\ndef f(p, q=r, *a, kw=t, **kws):\n    z = p + w + q + a + kw + kws\n    return z",
     ["deco", "k", "r", "t", "w"], ["f"]),
    ("def f(a: T, *, b: U = 0) -> R:\n    return a", ["R", "T", "U"], ["f"]),
    ("def f(x):\n    y = x\n    x = 1\n    return y", [], ["f"]),
    # nonlocal: a read and a possible write of this scope; global: neither
    ("def g():\n    nonlocal n\n    n = m", ["m", "n"], ["g", "n"]),
    ("def g():\n    global G\n    G = 1", [], ["g"]),
    ("def outer():\n    def inner():\n        nonlocal v\n        v = w\n    inner()",
     ["w"], ["outer"]),
    ("f = lambda u, d=dflt: u + v", ["dflt", "v"], ["f"]),
    ("class C(Base, metaclass=M):\n    k = 1\n    def m(self):\n        return k2",
     ["Base", "M", "k2"], ["C"]),
])
def test_nested_scopes(src, reads, writes):
    body = parse(src)
    assert (sorted(sa.reads(body)), sorted(sa.writes(body))) == (reads, writes)


@pytest.mark.parametrize("src, reads, writes", [
    ("ys = [i * k for i in xs if i > t]", ["k", "t", "xs"], ["ys"]),
    ("ys = [i + j for i in a for j in range(i)]", ["a", "range"], ["ys"]),
    ("d = {k: v for k, v in items}", ["items"], ["d"]),
    ("g = (x for x in x)", ["x"], ["g"]),
    ("s = {e for e in [y for y in z]}", ["z"], ["s"]),
    # an assignment expression in a comprehension binds in the enclosing scope
    ("ys = [(w := i) for i in xs]", ["xs"], ["w", "ys"]),
])
def test_comprehensions_have_their_own_scope(src, reads, writes):
    body = parse(src)
    assert (sorted(sa.reads(body)), sorted(sa.writes(body))) == (reads, writes)


@needs_match
def test_match_patterns_bind_their_captures():
    src = """
    match v:
        case [a, *others] if a > k:
            x = 1
        case {'k': c, **rest}:
            y = c
        case Point(x=px) | Other(px) as whole:
            z = px
    """
    reads, writes, _ = names(src)
    assert reads == ["Other", "Point", "a", "c", "k", "px", "v"]
    assert writes == ["a", "c", "others", "px", "rest", "whole", "x", "y", "z"]


def test_reads_and_writes_accept_a_node_or_a_list():
    body = parse("a = b\nc = a")
    assert sa.reads(body) == frozenset({"a", "b"})
    assert sa.reads(body[1]) == frozenset({"a"})
    assert sa.writes(body[0].value) == frozenset()


# -- analyze --------------------------------------------------------------------------------

def annotated(src):
    """``{first source line of each statement: (live_in, live_out, defined_before)}``."""
    fn = parse(src)[0]
    assert sa.analyze(fn) is fn
    out = {}
    todo = list(fn.body)
    while todo:
        s = todo.pop(0)
        key = gast.unparse(s).splitlines()[0]
        assert key not in out, key
        out[key] = (sorted(sa.live_in(s)), sorted(sa.live_out(s)), sorted(sa.defined_before(s)))
        todo[:0] = child_statements(s)
    return out


def test_if_liveness_and_definedness():
    got = annotated("""
    def f(a, b):
        c = a + 1
        if b:
            d = c
        else:
            d = 0
        return d
    """)
    assert got == {
        "c = a + 1": (["a", "b"], ["b", "c"], ["a", "b"]),
        "if b:": (["b", "c"], ["d"], ["a", "b", "c"]),
        "d = c": (["c"], ["d"], ["a", "b", "c"]),
        # definedness is in source order: the else branch follows the if branch
        "d = 0": ([], ["d"], ["a", "b", "c", "d"]),
        "return d": (["d"], [], ["a", "b", "c", "d"]),
    }


def test_while_liveness_reaches_a_fixed_point():
    got = annotated("""
    def f(n):
        s = 0
        i = 0
        while i < n:
            s += i
            i += 1
        return s
    """)
    assert got == {
        "s = 0": (["n"], ["n", "s"], ["n"]),
        "i = 0": (["n", "s"], ["i", "n", "s"], ["n", "s"]),
        "while i < n:": (["i", "n", "s"], ["s"], ["i", "n", "s"]),
        "s += i": (["i", "n", "s"], ["i", "n", "s"], ["i", "n", "s"]),
        "i += 1": (["i", "n", "s"], ["i", "n", "s"], ["i", "n", "s"]),
        "return s": (["s"], [], ["i", "n", "s"]),
    }


def test_for_with_break_and_else():
    got = annotated("""
    def f(xs):
        t = 0
        for x in xs:
            if x > 3:
                break
            t = t + x
        else:
            t = -1
        return t
    """)
    assert got["for x in xs:"] == (["t", "xs"], ["t"], ["t", "xs"])
    assert got["if x > 3:"] == (["t", "x"], ["t", "x"], ["t", "x", "xs"])
    assert got["break"] == (["t"], ["t", "x"], ["t", "x", "xs"])
    assert got["t = -1"] == ([], ["t"], ["t", "x", "xs"])


def test_extra_test_counts_as_read_at_the_loop_head():
    fn = parse("def f(xs, flag):\n    for x in xs:\n        y = x\n    return 0")[0]
    set_anno(fn.body[0], "extra_test", gast.parse("not flag").body[0].value)
    sa.analyze(fn)
    assert sa.live_in(fn.body[0]) == frozenset({"flag", "xs"})
    assert sa.live_in(fn.body[0].body[0]) == frozenset({"flag", "x"})


def test_nested_function_is_its_own_scope_and_del_star_global():
    got = annotated("""
    def f(x):
        global G
        y = x
        def inner(z):
            nonlocal y
            y = y + z
            return y
        del x
        a, *rest = inner(1), 2, 3
        return rest
    """)
    assert got == {
        "global G": (["x"], ["x"], ["x"]),
        "y = x": (["x"], ["y"], ["x"]),
        "def inner(z):": (["y"], ["inner"], ["x", "y"]),
        "nonlocal y": (["y", "z"], ["y", "z"], ["y", "z"]),
        "y = y + z": (["y", "z"], ["y"], ["y", "z"]),
        "return y": (["y"], [], ["y", "z"]),
        "del x": (["inner"], ["inner"], ["inner", "x", "y"]),
        "a, *rest = (inner(1), 2, 3)": (["inner"], ["rest"], ["inner", "x", "y"]),
        "return rest": (["rest"], [], ["a", "inner", "rest", "x", "y"]),
    }


def test_declared_globals_include_nested_statements():
    fn = parse("def f():\n    if c:\n        global A, B\n    def g():\n        global C\n")[0]
    assert sa.declared_globals(fn) == frozenset({"A", "B", "C"})


def test_live_at_exit_of_a_branch_function():
    fn = parse("def branch():\n    nonlocal y\n    y = 1\n    z = 2")[0]
    set_anno(fn, "live_at_exit", frozenset({"y"}))
    sa.analyze(fn)
    assert [sorted(sa.live_out(s)) for s in fn.body] == [[], ["y"], ["y"]]
    assert sorted(sa.defined_before(fn.body[0])) == ["y"]


def test_try_body_may_stop_anywhere():
    got = annotated("""
    def f(x, y):
        try:
            y = g(x)
            w = 1
        except ValueError:
            pass
        return y
    """)
    # the old y is live across the try: the body may raise before rebinding it
    assert got["try:"][0] == ["ValueError", "g", "x", "y"]


@needs_match
def test_match_keeps_what_is_live_when_no_case_runs():
    got = annotated("""
    def f(v, x):
        match v:
            case [a, b] if a > 0:
                x = b
            case {'k': c}:
                y = c
        return x
    """)
    assert got["match v:"] == (["v", "x"], ["x"], ["v", "x"])
    assert got["x = b"] == (["b"], ["x"], ["a", "b", "c", "v", "x"])
    assert got["y = c"] == (["c", "x"], ["x"], ["a", "b", "c", "v", "x"])


MATCH_MODULE = """
def match_with_tensor_if(x, mode):
    y = x
    match mode:
        case "up":
            if x.sum() > 0:
                y = x + 1
            else:
                y = x - 1
        case _:
            y = y * 2
    return y
"""


@needs_match
@pytest.mark.parametrize("mode", ["up", "other"])
def test_converted_tensor_if_inside_a_match_case(mode, tmp_path):
    path = tmp_path / "match_module.py"
    path.write_text(MATCH_MODULE)
    spec = importlib.util.spec_from_file_location("match_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.match_with_tensor_if
    x = core.to_tensor(np.array([1.0, -4.0], np.float32))
    np.testing.assert_array_equal(declarative(fn)(x, mode).numpy(), fn(x, mode).numpy())

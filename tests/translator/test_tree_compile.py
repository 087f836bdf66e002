"""The converted tree compiles directly (``tree_compile.to_ast``) to the same bytecode as its
printed and re-parsed text, and the virtual source it numbers is what tracebacks, ``inspect``
and the origin notes show."""
import ast
import dis
import inspect
import linecache
import random
import traceback
import types

import gast
import numpy as np
import pytest

import core
from translator import convert, origin_info, tree_compile
from translator.gast_nodes import function_def
from translator.templates import replace

from . import fuzz_programs

G = 1


def constructs(x, n, *rest, k=2, **kw):
    """Many statement and expression kinds, to compile both ways."""
    global G
    a, *b = [x, x + 1, x + 2]
    (c, d), e = (x, x), x
    f = {i: i * 2 for i in range(3) if i}
    s = {i for i in [1, 2]}
    gen = list(i for i in range(2))
    lam = lambda p, q=1, *r, t=3, **u: p + q  # noqa: E731
    w = (z := 5) + z
    t = f"{x!r:>10} and {k}" + "a\nb"
    lst = [1, 2, 3]
    lst[0] += 1
    lst[1:2] = [9]
    del lst[0]
    d2 = {"a": 1, **kw}
    d2["b"] = 2
    obj = types.SimpleNamespace(v=1)
    obj.v += 1
    del obj.v
    try:
        r = 1 / 1
    except (ZeroDivisionError, ValueError) as err:
        r = str(err)
    except Exception:
        r = 0
    else:
        r = r + 1
    finally:
        G = G + 1
    with open(__file__) as fh, open(__file__):
        first = fh.readline()
    for i in range(3):
        if i == 1:
            continue
        elif i == 2:
            break
    else:
        i = -1
    while n > 0:
        n -= 1
    else:
        n = 0
    assert x is not None, "x"
    y = x if k > 1 else -x
    cmp = (1 < k <= 3 and not False) or None
    sl = lst[::2], lst[1:], lst[:, ] if False else lst[-1]

    def inner(q, /, p=1, *, o):
        nonlocal a
        a = q
        return p

    class Local:
        attr = 1

        def meth(self):
            return self.attr

    return (a, b, c, d, e, f, s, gen, lam(1), w, t, d2, r, first, i, n, y, cmp, sl,
            inner(1, o=2), Local().meth(), rest, ~k, -k, +k, k ** 2, k // 2, k @ np.eye(1)
            if False else k, [*rest], (*rest,), {**kw}, b"bytes", ..., None)


def _module(func):
    fn_node, ctx, _ = convert._run_passes(func)
    factory = function_def("__d2s_factory", ["_d2s"] + list(func.__code__.co_freevars),
                           [fn_node] + replace("return fn", fn=fn_node.name))
    return gast.Module(body=[factory], type_ignores=[]), ctx


def _instructions(code):
    out = []
    for ins in dis.get_instructions(code):
        arg = ins.argval
        if isinstance(arg, types.CodeType):
            arg = _instructions(arg)
        elif ins.opname in ("JUMP_FORWARD", "JUMP_BACKWARD", "POP_JUMP_FORWARD_IF_FALSE") or \
                "JUMP" in ins.opname:
            arg = ins.arg
        out.append((ins.opname, repr(arg) if not isinstance(arg, list) else arg))
    return out


def _both(func):
    module, ctx = _module(func)
    text, _ = origin_info.to_source(module, ctx.filename, ctx.line_offset)
    from_text = compile(text, "<t>", "exec", dont_inherit=True)
    tree, line_map, lines = tree_compile.to_ast(module, ctx.line_offset)
    from_tree = compile(tree, "<t>", "exec", dont_inherit=True)
    return from_text, from_tree, tree, line_map, lines


def _same_code(func):
    from_text, from_tree, tree, _, lines = _both(func)
    assert _instructions(from_tree) == _instructions(from_text)
    # the virtual source is valid Python with one line per statement and clause
    ast.parse("".join(lines))
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    assert len(lines) >= len(statements)
    for node in statements:
        assert lines[node.lineno - 1].strip(), node


def test_constructs_compile_as_from_text():
    _same_code(constructs)


def test_constructs_run_converted_as_eagerly():
    x = 1.0
    converted = convert.convert_to_static(constructs)
    global G
    G = 1
    want = constructs(x, 2, 3, k=2, z=1)
    g_eager = G
    G = 1
    got = convert.convert_to_static(constructs)(x, 2, 3, k=2, z=1)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if callable(a) or type(a).__name__ == "generator":
            continue
        assert a == b or repr(a) == repr(b)
    assert G == g_eager
    assert converted.__wrapped__.__code__.co_filename.startswith("<dy2static ")


@pytest.mark.parametrize("seed", range(6))
def test_fuzz_programs_compile_as_from_text(seed):
    rng = random.Random(7000 + seed)
    for _ in range(40):
        source = fuzz_programs.generate(rng)
        _same_code(fuzz_programs.load(source))


def failing(x):
    y = x + 1
    if y > 0:
        z = [y]
        y = z[3]
    return y


def test_traceback_shows_converted_line_and_notes_user_line():
    with pytest.raises(IndexError) as info:
        convert.convert_to_static(failing)(1)
    frames = traceback.extract_tb(info.value.__traceback__)
    converted = [f for f in frames if f.filename.startswith("<dy2static ")]
    assert any(f.line.startswith("y = ") and f.line.endswith("[3]") for f in converted)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert f"line {failing.__code__.co_firstlineno + 4}" in notes and "y = z[3]" in notes


def test_virtual_source_is_lazy_and_complete():
    conv = convert.convert_to_static(failing).__wrapped__
    entry = linecache.cache[conv.__code__.co_filename]
    lines = entry[2]
    assert isinstance(lines, tree_compile.VirtualSource)
    source = inspect.getsource(conv)
    assert source.lstrip().startswith("def failing(x):") and "convert_ifelse" in source
    assert "".join(lines) == lines.text()
    assert lines[0].startswith("def __d2s_factory(")


def test_clause_lines_keep_the_source_valid():
    src = tree_compile.to_ast(gast.parse(
        "try:\n    a = 1\nexcept E as e:\n    b = 2\nelse:\n    c = 3\nfinally:\n    d = 4\n"
        "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n"
        "for i in x:\n    pass\nelse:\n    pass\n"))[2]
    text = "".join(src)
    ast.parse(text)
    assert "except E as e:" in text and "finally:" in text and text.count("else:") == 4


def test_contexts_follow_position():
    # a template may build a target with a Load context: the compiled tree stores
    module = gast.parse("a = 1\nb, c = 2, 3\nd = a + b\ndel d\n")
    module.body[0].targets[0].ctx = gast.Load()
    module.body[1].targets[0].elts[0].ctx = gast.Load()
    module.body[2].value.left.ctx = gast.Store()
    tree, _, _ = tree_compile.to_ast(module)
    namespace = {}
    exec(compile(tree, "<t>", "exec"), namespace)
    assert namespace["b"] == 2 and "d" not in namespace


def test_declarative_error_still_names_user_line():
    def bad(x):
        y = core.layers.reshape(x, [3, 5])
        return y

    from translator import declarative

    with pytest.raises(Exception) as info:
        declarative(bad, full_graph=True)(core.to_tensor(np.ones([2, 2], "float32")))
    text = str(info.value) + "\n".join(getattr(info.value, "__notes__", []))
    assert str(bad.__code__.co_firstlineno + 1) in text


def _converted_text(func, keep_stages):
    fn_node, ctx, _ = convert._run_passes(func, keep_stages=keep_stages)
    return convert._text(fn_node, ctx, False)


def test_passes_skipped_only_when_they_have_nothing_to_do():
    # a pass whose node kinds / names the source lacks is skipped (``needed``); with
    # keep_stages every pass runs: the converted code must be the same
    rng = random.Random(9100)
    functions = [constructs, failing] + [fuzz_programs.load(fuzz_programs.generate(rng))
                                         for _ in range(60)]
    skipped = 0
    for func in functions:
        assert _converted_text(func, False) == _converted_text(func, True)
        _, ctx = convert._parse(func)
        skipped += sum(1 for _, module in convert.PASSES
                       if getattr(module, "needed", None) and not module.needed(ctx))
    assert skipped > 0


def test_unrendered_sources_are_bounded():
    # each unrendered source holds its statements' trees; past MAX_PENDING the oldest renders
    module = gast.parse("a = 1\nif a:\n    b = 2\n")
    sources = [tree_compile.to_ast(module)[2] for _ in range(tree_compile.MAX_PENDING + 5)]
    assert sum(s._lines is None for s in sources) <= tree_compile.MAX_PENDING
    assert sources[0]._lines is not None and sources[0]._slots is None
    assert "".join(sources[0]) == "a = 1\nif a:\n    b = 2\n"
    assert "".join(sources[-1]) == "a = 1\nif a:\n    b = 2\n"

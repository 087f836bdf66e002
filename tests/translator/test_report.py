"""translator.report: each if / while / for / and / or annotated with what it became."""
import numpy as np
import pytest

import core
from translator import InputSpec, declarative, report
from translator import convert_ops


def t(shape):
    return core.to_tensor(np.ones(shape, dtype="float32"))


def add_steps(v, k):
    for i in range(k):
        v = v + i
    return v


def mixed(x, n=3):
    if x.sum() > 0 and n > 1:
        y = x * 2
    else:
        y = x
    i = 0
    while i < n:
        y = y + 1
        i += 1
    c = core.layers.fill_constant([], "int64", 0)
    while c < 4:
        y = y * 0.5
        c = c + 1
    y = add_steps(y, 2)
    if n > 100:
        y = y - 1
        if n > 200:
            y = y - 2
    return y


def _lines(text):
    return text.splitlines()


def _note_after(text, code):
    """The annotations printed under the source line holding ``code``."""
    lines = _lines(text)
    k = next(i for i, line in enumerate(lines) if code in line and "# ^" not in line)
    notes = []
    for line in lines[k + 1:]:
        if "# ^" not in line:
            break
        notes.append(line.split("# ^ ", 1)[1])
    return notes


def test_report_tells_static_from_python_and_why():
    rep = report(mixed, t((2, 3)))
    assert rep.error is None
    text = str(rep)
    assert _note_after(text, "if x.sum() > 0 and n > 1:") == [
        "and: became a cond op (left operand is a Tensor bool[])",
        "if: became a cond op (condition is a Tensor bool[])"]
    assert _note_after(text, "while i < n:") == [
        "while: stayed Python (condition is a Python bool (True)); unrolled 3 time(s)"]
    assert _note_after(text, "while c < 4:") == [
        "while: became a while op (condition is a Tensor bool[]); carries c, y"]
    assert _note_after(text, "if n > 100:") == [
        "if: stayed Python (condition is a Python bool (False))"]
    assert _note_after(text, "if n > 200:") == ["if: not reached while translating"]
    # the called function is reported too, with its unrolled loop
    assert "# add_steps" in text
    assert _note_after(text, "for i in range(k):") == [
        "for: stayed Python (iterable is a Python range (range(0, 2))); unrolled 2 time(s)"]
    # the program really holds the ops the report claims
    types = [op.type for b in rep.program.blocks for op in b.ops]
    assert types.count("cond") == 2 and types.count("while") == 1


def test_report_counts_iterations_with_other_arguments():
    rep = report(mixed, t((2, 3)), 5)
    assert "unrolled 5 time(s)" in _note_after(str(rep), "while i < n:")[0]


def test_report_for_over_tensor_and_break_and_input_spec():
    @declarative(input_spec=[InputSpec([None, 3], "float32")])
    def rows(x):
        total = x[0] * 0
        for row in x:
            total = total + row
        for _k in range(10):
            if total.sum() > 100:
                break
            total = total * 2
        return total

    text = str(report(rows))  # the declared input_spec
    assert _note_after(text, "for row in x:") == [
        "for: became a while op (iterable is a Tensor float32[None, 3]); carries total"]
    note = _note_after(text, "for _k in range(10):")[0]
    assert note.startswith("for: became a while op") and "break/return under a Tensor" in note


def test_report_layer_method_and_repeated_construct():
    class Net(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = core.nn.Linear(3, 3)

        @declarative
        def forward(self, x):
            for _ in range(3):
                x = self.fc(x)
                x = core.layers.relu(x) if x.mean() > 0 else x
            return x

    rep = report(Net().forward, t((2, 3)))
    note = _note_after(str(rep), "x = core.layers.relu(x) if x.mean() > 0 else x")
    assert note == ["if: ran 3 times: became a cond op (condition is a Tensor bool[]) [x3]"]


def test_report_keeps_helpers_and_cache_untouched_and_shows_errors():
    helpers = {n: getattr(convert_ops, n) for n in ("convert_ifelse", "convert_while_loop")}

    @declarative
    def bad(x):
        if x.mean() > 0:
            y = x
        else:
            y = -x
        return core.layers.reshape(y, "not a shape")  # translation fails here

    rep = report(bad, t((2,)))
    assert rep.error is not None and "translation stopped" in str(rep)
    assert _note_after(str(rep), "if x.mean() > 0:")[0].startswith("if: became a cond op")
    assert {n: getattr(convert_ops, n) for n in helpers} == helpers
    assert bad.program_cache == {}


def test_wrong_arguments_raise():
    with pytest.raises(TypeError, match="mixed"):
        report(mixed)
    with pytest.raises(TypeError, match="mixed"):
        report(mixed, t((2,)), 1, 2)


def test_python_or_and_code_without_source():
    def pick(x, a=0, b=2):
        if a or b:
            x = x + 1
        return x

    note = _note_after(str(report(pick, t((2,)))), "if a or b:")
    assert note == ["or: stayed Python, short-circuit (left operand is a Python int (0))",
                    "if: stayed Python (condition is a Python int (2))"]
    namespace = {"core": core}
    exec(compile("def gen(x):\n    while x.sum() < 4:\n        x = x * 2\n    return x\n",
                 "<generated>", "exec"), namespace)
    rep = report(namespace["gen"], t((2,)))
    # the converter needs the source: the error is reported, nothing is invented
    assert rep.error is not None and "translation stopped" in str(rep)


def test_constructs_of_a_file_that_does_not_parse_are_listed_by_line():
    import linecache

    text = "def gen(x):\n    while x.sum() < 4:\n        x = x * 2\n    return x\n"
    name = "<report-test-broken>"
    namespace = {"core": core}
    exec(compile(text, name, "exec"), namespace)
    lines = (text + "def broken(:\n").splitlines(True)  # the rest of the file is broken
    linecache.cache[name] = (len("".join(lines)), None, lines, name)
    try:
        rep = report(namespace["gen"], t((2,)))
    finally:
        del linecache.cache[name]
    assert rep.error is None
    assert f"# {name}:2: while: became a while op" in str(rep)

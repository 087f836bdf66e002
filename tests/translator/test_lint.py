"""translator.lint: static findings with line, code and fix; clean code gives none."""
import os
import time

import pytest

from translator import declarative, lint
from translator.linter import RULES, lint_source

HERE = os.path.join(os.path.dirname(__file__), "lint_samples")
BAD = os.path.join(HERE, "bad_model.py")


def _line(path, text):
    with open(path) as f:
        return next(k for k, line in enumerate(f, 1) if text in line)


def _codes(findings):
    return sorted((f.code, f.line) for f in findings)


def test_bad_model_findings_with_lines():
    found = lint(BAD)
    got = _codes(found)
    expected = [
        ("D2S106", _line(BAD, "self.seen.append(1)")),
        ("D2S106", _line(BAD, "HISTORY.append(h)")),
        ("D2S101", _line(BAD, "yield row")),
        ("D2S103", _line(BAD, "y = np.exp(x)")),
        ("D2S104", _line(BAD, "z = x.numpy()")),
        ("D2S110", _line(BAD, "stamp = time.time()")),
        ("D2S105", _line(BAD, "if isinstance(x, core.Tensor):")),
        ("D2S107", _line(BAD, "del out[0]")),
        ("D2S108", _line(BAD, "out[0:1] = [x]")),
        ("D2S111", _line(BAD, "STEP += 1")),
        ("D2S109", _line(BAD, "return x * fact(x, n - 1)")),
    ]
    assert got == sorted(expected)
    # the plain generator outside converted code is not reported
    assert not any(f.function == "not_converted" for f in found)
    # the method forward calls is checked too (and is clean)
    assert all(f.function != "Net.smooth" for f in found)
    for f in found:
        assert f.severity == RULES[f.code][0] and f.fix
        assert str(f).startswith(f"{BAD}:{f.line}:")


def test_clean_model_has_no_findings_and_directory_walk():
    assert lint(os.path.join(HERE, "clean_model.py")) == []
    both = lint(HERE)
    assert {f.path for f in both} == {BAD}


def test_lint_a_function_object():
    @declarative
    def stamped(x):
        t0 = time.perf_counter()
        return x * t0

    found = lint(stamped)
    assert [(f.code, f.line) for f in found] == [
        ("D2S110", stamped.dygraph_function.__code__.co_firstlineno + 2)]


def test_syntax_error_and_missing_path():
    found = lint_source("def f(:\n    pass\n", "broken.py")
    assert [f.code for f in found] == ["D2S100"] and found[0].severity == "error"
    with pytest.raises(FileNotFoundError, match="nope"):
        lint("nope/does_not_exist.py")


def test_python_loops_keep_python_lists():
    src = (
        "from translator import declarative\n"
        "@declarative\n"
        "def f(x):\n"
        "    out = []\n"
        "    for i in range(3):\n"
        "        out.append(x * i)\n"
        "    del out[0]\n"
        "    out[0:1] = [x]\n"
        "    return out\n")
    assert lint_source(src, "m.py") == []


def test_python_conditions_do_not_flag_mutation():
    src = (
        "from translator import declarative\n"
        "ACC = []\n"
        "@declarative\n"
        "def f(x, flag=True):\n"
        "    if flag:\n"
        "        ACC.append(1)\n"
        "    return x\n")
    assert lint_source(src, "m.py") == []


def test_lint_is_fast_on_a_project():
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    start = time.perf_counter()
    lint([os.path.join(root, d) for d in ("core", "translator", "examples")])
    assert time.perf_counter() - start < 5.0

"""break / continue in for and while loops, nested loops and loop else clauses."""
import numpy as np
import pytest

from ..conftest import both, convert, run_static


def loops(n):
    out = []
    for i in range(n):
        if i == 2:
            continue
        if i > 5:
            break
        out.append(i)
    else:
        out.append(-1)
    k = n
    while True:
        k -= 1
        if k < 0:
            break
        if k % 2:
            continue
        out.append(k)
    return out


def nested_loops(n):
    pairs = []
    for i in range(n):
        j = 0
        while j < n:
            j += 1
            if j > i:
                break
            if (i + j) % 2:
                continue
            pairs.append((i, j))
        if len(pairs) > 3:
            break
    return pairs


@pytest.mark.parametrize("n", [0, 3, 8])
@pytest.mark.parametrize("passes", [None, ("break_continue",)])
def test_break_continue_python(n, passes):
    expected, got = both(loops, n, passes=passes)
    assert expected == got


@pytest.mark.parametrize("n", [0, 2, 6])
def test_nested(n):
    assert both(nested_loops, n) == (nested_loops(n),) * 2


def test_flags_replace_the_statements():
    from translator.convert import get_passes

    text = dict(get_passes(loops))["break_continue"]
    assert "break" not in text.replace("__break_", "") and "continue" not in \
        text.replace("__continue_", "")


@pytest.mark.parametrize("limit", [2.0, 100.0])
def test_static_break_under_tensor_condition(limit):
    def f(x, limit):
        i = 0
        while i < 10:
            x = x + 1
            if x.sum() > limit:
                break
            i += 1
        return x

    x = np.zeros([2], dtype="float32")
    out, _ = run_static(f, [x, np.array(limit, dtype="float32")])
    expected = x.copy()
    for _ in range(10):
        expected = expected + 1
        if expected.sum() > limit:
            break
    np.testing.assert_allclose(out, expected)
    assert convert(f)  # converts once, cached


@pytest.mark.parametrize("start", [0.0, 4.0])
def test_static_break_in_python_range_loop_switches_to_while_loop(start):
    def f(x):
        for _ in range(10):
            x = x + 1
            if x.sum() > 5:
                break
        return x

    x = np.full([2], start, dtype="float32")
    out, program = run_static(f, [x])
    expected = x.copy()
    for _ in range(10):
        expected = expected + 1
        if expected.sum() > 5:
            break
    np.testing.assert_allclose(out, expected)
    assert "while" in {op.type for b in program.blocks for op in b.ops}

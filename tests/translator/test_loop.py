"""while / for loops: Python values, eager tensors, static while_loop."""
import numpy as np
import pytest

import core

from .conftest import as_array, both, convert, needs_static_control_flow, op_types, run_static


def while_sum(n):
    i = 0
    s = 0
    while i < n:
        s += i
        i += 1
    return s, i


def for_range(a, b, step):
    s = 0
    for k in range(a, b, step):
        s = s + k
        last = k
    return s, last


def for_list(xs):
    t = 0
    for a, b in zip(xs, xs):
        t = t + a * b
    for j, v in enumerate(xs):
        t -= j * v
    return t


def first_bound_in_loop(n):
    for i in range(n):
        y = i * 2
    return y


def for_tensor(x):
    s = x[0] * 0
    for row in x:
        s = s + row
    return s


def tensor_while(x, n):
    i = 0
    while i < n:
        x = x + 1
        i += 1
    return x, i


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("passes", [None, ("loop",)])
def test_while_python(n, passes):
    expected, got = both(while_sum, n, passes=passes)
    assert expected == got


@pytest.mark.parametrize("args", [(0, 5, 1), (5, 0, -2), (1, 9, 3)])
def test_for_range_python(args):
    assert both(for_range, *args) == (for_range(*args),) * 2


@pytest.mark.parametrize("xs", [[], [1, 2, 3], (4, 5)])
def test_for_list_zip_enumerate(xs):
    expected, got = both(for_list, xs)
    assert expected == got


def test_variable_first_bound_in_loop():
    assert convert(first_bound_in_loop)(3) == 4
    with pytest.raises(UnboundLocalError, match="'y'"):
        convert(first_bound_in_loop)(0)


def test_for_over_eager_tensor():
    x = core.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    expected, got = both(for_tensor, x)
    np.testing.assert_allclose(as_array(got), as_array(expected))


def test_loop_variable_rebinding_is_seen_by_closures():
    def make():
        total = 0

        def add(n):
            nonlocal total
            for k in range(n):
                total += k
            return total
        return add

    add = make()
    converted = convert(add)
    assert converted(4) == 6
    assert converted(3) == 9  # the converted function shares the original closure cell


@needs_static_control_flow
@pytest.mark.parametrize("n", [0, 3])
def test_static_while_loop(n):
    x = np.ones([2], dtype="float32")
    (out, i), program = run_static(tensor_while, [x, np.array(n, dtype="int64")])
    np.testing.assert_allclose(out, x + n)
    assert int(i) == n
    assert any("while" in t for t in op_types(program))


@needs_static_control_flow
@pytest.mark.parametrize("n", [1, 4])
def test_static_for_range_tensor_bound(n):
    def f(n):
        s = 0
        for k in range(n):
            s = s + k
        return s

    out, program = run_static(f, [np.array(n, dtype="int64")])
    assert int(out) == sum(range(n))
    assert "while" in op_types(program)


@needs_static_control_flow
def test_static_for_over_tensor_rows():
    x = np.arange(6, dtype="float32").reshape(3, 2)
    out, _ = run_static(for_tensor, [x])
    np.testing.assert_allclose(out, x.sum(0))

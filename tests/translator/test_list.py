"""list.append / pop in loops: Python lists stay lists; static loops use tensor arrays."""
import numpy as np
import pytest

import core

from .conftest import both, needs_static_control_flow, op_types, run_static

items = []


def appends(n):
    out = []
    for i in range(n):
        out.append(i * i)
    last = out.pop()
    out.pop(0)
    return out, last


def global_list(v):
    items.append(v)
    return len(items)


@pytest.mark.parametrize("n", [2, 5])
@pytest.mark.parametrize("passes", [None, ("list",)])
def test_python_list(n, passes):
    assert both(appends, n, passes=passes) == (appends(n),) * 2


def test_global_list_is_left_alone():
    items.clear()
    assert both(global_list, 1) == (1, 2)
    assert items == [1, 1]


@needs_static_control_flow
@pytest.mark.parametrize("n", [1, 3])
def test_static_append_in_tensor_loop(n):
    def f(x, n):
        out = []
        i = 0
        while i < n:
            out.append(x * 2)
            i += 1
        return len(out), i

    x = np.ones([2], dtype="float32")
    (length, i), program = run_static(f, [x, np.array(n, dtype="int64")])
    assert int(np.asarray(length).reshape(-1)[0]) == n and int(i) == n
    assert "write_to_array" in op_types(program)


@needs_static_control_flow
def test_static_append_of_int_values_to_empty_list():
    def f(n):
        out = []
        i = 0
        while i < n:
            out.append(i)
            i += 1
        return len(out)

    length, _ = run_static(f, [np.array(4, dtype="int64")])
    assert int(np.asarray(length).reshape(-1)[0]) == 4


def test_tensor_list_append_eager():
    def f(x):
        out = []
        for row in x:
            out.append(row * 2)
        return core.layers.stack(out) if hasattr(core.layers, "stack") else out

    x = core.to_tensor(np.arange(4, dtype="float32").reshape(2, 2))
    expected, got = both(f, x)
    np.testing.assert_allclose(np.asarray(got.numpy()), np.asarray(expected.numpy()))

"""list.append / pop in loops: Python lists stay lists; static loops use tensor arrays."""
import numpy as np
import pytest

import core

from ..conftest import as_array, both, op_types, run_static

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


# -- reading a list a static loop built: stack / concat / indexing -----------------------------
def collect(x, n):
    outs = []
    i = 0
    while i < n:
        x = x * 2 + 1
        outs.append(x)
        i += 1
    k = i - n - 1  # -1, a Tensor when n is one
    return (core.layers.stack(outs), core.layers.stack(outs, axis=1),
            core.layers.concat(outs), outs[-1], outs[0], outs[i - 1], outs[k])


def rows_doubled(x):
    outs = []
    for row in x:
        outs.append(row * 2)
    return core.layers.stack(outs), outs[-1], len(outs)


def _check(expected, got):
    for e, g in zip(expected, got):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e.numpy() if hasattr(e, "numpy")
                                                            else e), rtol=1e-6)


@pytest.mark.parametrize("n", [1, 3])
def test_tensor_array_stack_concat_index(n):
    x = np.array([1.0, -2.0], dtype="float32")
    expected, converted = both(collect, core.to_tensor(x), n)
    _check(expected, converted)
    got, program = run_static(collect, [x, np.array(n, dtype="int64")])
    _check(expected, got)
    assert got[0].shape == (n, 2) and got[1].shape == (2, n) and got[2].shape == (2 * n,)
    assert {"while", "tensor_array_to_tensor", "read_from_array"} <= op_types(program)


@pytest.mark.parametrize("rows", [1, 3])
def test_tensor_array_from_rows(rows):
    x = np.arange(rows * 2, dtype="float32").reshape(rows, 2)
    expected = rows_doubled(core.to_tensor(x))
    (stacked, last, length), program = run_static(rows_doubled, [x])
    np.testing.assert_allclose(stacked, as_array(expected[0]))
    np.testing.assert_allclose(last, as_array(expected[1]))
    assert int(np.asarray(length).reshape(-1)[0]) == expected[2] == rows
    assert "tensor_array_to_tensor" in op_types(program)


def test_tensor_array_stack_trains_through_declarative():
    from translator import declarative

    def f(x, n):
        outs = []
        i = 0
        while i < n:
            x = x * 2
            outs.append(x)
            i += 1
        return core.layers.reduce_sum(core.layers.stack(outs))

    x = core.to_tensor(np.array([1.0, 3.0], dtype="float32"), stop_gradient=False)
    loss = declarative(f)(x, core.to_tensor(np.array(2, dtype="int64")))
    loss.backward()
    np.testing.assert_allclose(as_array(loss), 2 * 4 + 4 * 4)  # (2x + 4x) summed
    np.testing.assert_allclose(x.gradient(), [6.0, 6.0])


def test_python_list_indexing_is_python():
    def f(n):
        out = []
        for i in range(n):
            out.append(i * 3)
        return out[-1], out[0], out[1:]

    assert both(f, 4) == (f(4),) * 2


# -- pop on a tensor array: the item is removed -----------------------------------------------
def pop_forms(x, n):
    stack = [x, x * 2.0, x * 3.0]
    total = x * 0.0
    i = 0
    while i < n:
        stack.append(x * 10.0)
        stack.pop()  # a statement
        top = stack.pop()  # an assignment
        total = total + stack.pop(0) * 0.5 + top  # inside an expression, from the front
        stack.append(top + 1.0)
        stack.append(x * -1.0)
        total = total + stack.pop(-2)  # a negative index
        i += 1
    return core.layers.stack(stack), total


def pop_after_a_static_loop(x, w, n):
    hs = []
    h = x
    for _i in range(n):
        h = core.layers.tanh(h * w)
        hs.append(h)
    first = hs.pop(0)
    return core.layers.stack(hs).sum() + first.sum() * 2.0


def test_pop_removes_the_item_from_a_tensor_array():
    from .. import test_semantics as sem

    x = np.array([1.0, -2.0], np.float32)
    static = sem.check(pop_forms, (x, np.array(0)), (x, np.array(1)), (x, np.array(2)),
                       ops={"while", "read_from_array"})
    assert static.translations == 1


@pytest.mark.parametrize("n", [2, 4])
def test_gradient_through_pop_of_a_tensor_array(n):
    from .. import test_semantics as sem

    x, w = np.array([0.3, -0.2], np.float32), np.array([0.9, 1.1], np.float32)
    (le, ge), (ls, gs) = sem._gradients(pop_after_a_static_loop, [x, w], np.array(n))
    assert ls == pytest.approx(le, rel=1e-5)
    for a, b in zip(gs, ge):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)

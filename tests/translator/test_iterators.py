"""The iterables of converted ``for`` loops (``translator.convert_iter``): ``range``,
``enumerate`` and ``zip`` with Python operands return the builtins' results; with a static
operand they return a ``StaticIter`` whose length and items are checked here by running the
Program, and through converted loops against eager Python."""
import numpy as np
import pytest

import core
from translator.convert_iter import (StaticIter, as_static_iter, convert_enumerate,
                                     convert_range, convert_zip, is_static_iterable)

from .conftest import run_static


def run_program(build, *inputs):
    """Build a Program from ``build(*data vars)`` (one ``data`` per input array) and run it;
    ``build`` returns a list of Variables and Python values. Returns the Variables' values as
    arrays and the Python values unchanged."""
    main, startup = core.static.Program(), core.static.Program()
    feed, args = {}, []
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            for k, value in enumerate(inputs):
                args.append(core.static.data(f"in{k}", list(value.shape), str(value.dtype)))
                feed[f"in{k}"] = value
            fetch = build(*args)
        finally:
            core.disable_static()
    fetched = [v for v in fetch if isinstance(v, core.static.Variable)]
    exe = core.Executor(core.CPUPlace())
    exe.run(startup)
    values = iter(exe.run(main, feed=feed, fetch_list=fetched))
    return [np.asarray(next(values)) if isinstance(v, core.static.Variable) else v
            for v in fetch]


def index(k):
    return core.layers.fill_constant([], "int64", k)


def i64(v):
    return np.array(v, np.int64)


# -- Python operands: the builtins ----------------------------------------------------------

@pytest.mark.parametrize("args", [(5,), (2, 7), (7, 2), (10, 0, -3), (0, 10, -1), (3, 3),
                                  (-4, 4, 3), (True, 3)])
def test_python_range_is_the_builtin(args):
    r = convert_range(*args)
    assert isinstance(r, range)
    assert list(r) == list(range(*args))


def test_python_range_rejects_what_range_rejects():
    with pytest.raises(TypeError):
        convert_range(2.5)
    with pytest.raises(ValueError):
        convert_range(0, 4, 0)


def test_python_enumerate_and_zip_are_the_builtins():
    assert list(convert_enumerate("abc", 5)) == [(5, "a"), (6, "b"), (7, "c")]
    assert list(convert_enumerate([])) == []
    assert list(convert_zip([1, 2, 3], "ab")) == [(1, "a"), (2, "b")]
    assert list(convert_zip()) == []
    assert not is_static_iterable([1, 2])
    assert not is_static_iterable(range(3))


# -- StaticIter -----------------------------------------------------------------------------

def test_static_iter_with_python_length_iterates_in_python():
    it = StaticIter(3, lambda i: i * i)
    assert list(it) == [0, 1, 4]
    assert is_static_iterable(it)
    assert as_static_iter(it) is it


def test_as_static_iter_of_python_sequences():
    it = as_static_iter(range(10, 0, -4))
    assert it.length == 3
    assert [it.item(i) for i in range(3)] == [10, 6, 2]
    it = as_static_iter("xyz")
    assert (it.length, it.item(2)) == (3, "z")


def test_static_iter_with_tensor_length_refuses_python_iteration():
    def build(n):
        with pytest.raises(TypeError, match="length is a Tensor"):
            iter(convert_range(n))
        return [n]
    run_program(build, i64(3))


# -- range with a static operand ------------------------------------------------------------

_RANGES = [(4,), (0,), (-3,), (2, 9), (9, 2), (0, 10, 3), (10, 0, -2), (3, -4, -3),
           (0, 10, -1), (5, 5, 1), (-7, 2, 4), (1, 2, 5)]


@pytest.mark.parametrize("args, static_pos", [(a, list(range(len(a)))) for a in _RANGES] +
                         [(a, [min(1, len(a) - 1)]) for a in _RANGES] +
                         [(a, [2]) for a in _RANGES if len(a) == 3])
def test_static_range_length_and_items(args, static_pos):
    """``static_pos``: the arguments given as static Tensors (all, the stop, the step)."""
    expected = list(range(*args))

    def build(*vars_):
        full = list(args)
        for pos, var in zip(static_pos, vars_):
            full[pos] = var
        it = convert_range(*full)
        assert isinstance(it, StaticIter)
        items = [it.item(index(k)) for k in range(len(expected))]
        return [core.layers.reshape(it.length, [1])] + items

    out = run_program(build, *[i64(args[p]) for p in static_pos])
    assert int(out[0].reshape(-1)[0]) == len(expected)
    assert [int(v) for v in out[1:]] == expected


def test_static_range_rejects_float_tensor_and_zero_step():
    def build(x, n):
        with pytest.raises(TypeError, match="cannot be used as an index"):
            convert_range(x)
        with pytest.raises(ValueError, match="must not be zero"):
            convert_range(n, 10, 0)
        return [n]
    run_program(build, np.array(2.0, np.float32), i64(1))


# -- enumerate / zip with a static operand -------------------------------------------------

def test_static_enumerate_counts_from_start():
    rows = np.arange(6, dtype=np.float32).reshape(3, 2)

    def build(x):
        it = convert_enumerate(x, 10)
        pairs = [it.item(index(k)) for k in range(3)]
        return [it.length] + [v for p in pairs for v in p]

    out = run_program(build, rows)
    assert out[0] == 3
    for k in range(3):
        assert int(out[1 + 2 * k]) == 10 + k
        np.testing.assert_array_equal(out[2 + 2 * k], rows[k])


@pytest.mark.parametrize("n_rows, other", [(4, range(2)), (2, range(5)), (3, [7.0, 8.0, 9.0,
                                                                              10.0])])
def test_static_zip_stops_at_the_shortest(n_rows, other):
    rows = np.arange(n_rows * 2, dtype=np.float32).reshape(n_rows, 2)
    shortest = min(n_rows, len(other))

    def build(x):
        it = convert_zip(x, other)
        items = [it.item(index(k)) for k in range(shortest)]
        assert it.length == shortest  # both lengths are known: a Python int
        return [v for pair in items for v in pair]

    out = [None] + run_program(build, rows)
    for k in range(shortest):
        np.testing.assert_array_equal(out[1 + 2 * k], rows[k])
        assert float(out[2 + 2 * k]) == float(other[k])


def test_static_zip_of_two_tensor_lengths_is_a_static_min():
    def build(n, m):
        it = convert_zip(convert_range(n), convert_range(m))
        return [core.layers.reshape(it.length, [1])]

    for n, m, expected in [(3, 5, 3), (6, 2, 2), (0, 4, 0), (-2, 4, 0)]:
        assert int(run_program(build, i64(n), i64(m))[0][0]) == expected


def test_static_zip_rejects_a_list_of_other_objects():
    def build(x):
        with pytest.raises(TypeError, match="must hold Tensors or numbers"):
            convert_zip(x, ["a", "b"])
        return [x]
    run_program(build, np.zeros((2, 2), np.float32))


# -- converted for loops: the values each iteration sees ------------------------------------

def range_stats(a, b, c):
    count = a * 0
    total = a * 0
    weighted = a * 0
    for i in range(a, b, c):
        count = count + 1
        total = total + i
        weighted = weighted + i * count
    return count, total, weighted


def python_range_stats(a, b, c):
    items = list(range(a, b, c))
    return len(items), sum(items), sum(v * (k + 1) for k, v in enumerate(items))


@pytest.mark.parametrize("args", [(0, 5, 1), (10, 0, -2), (3, -4, -3), (0, 10, -1), (5, 5, 1),
                                  (-7, 2, 4), (4, 0, 1)])
def test_converted_range_loop_sees_eager_items(args):
    outs, _ = run_static(range_stats, [i64(v) for v in args])
    assert tuple(int(v) for v in outs) == python_range_stats(*args)


def zip_enumerate_sum(x, n):
    total = x[0] * 0
    steps = n * 0
    for k, (row, j) in enumerate(zip(x, range(n)), 1):
        total = total + row * (k + j)
        steps = steps + 1
    return total, steps


@pytest.mark.parametrize("rows, n", [(4, 2), (2, 5), (3, 3), (3, 0)])
def test_converted_zip_enumerate_loop_stops_at_the_shortest(rows, n):
    x = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2) + 1
    (total, steps), _ = run_static(zip_enumerate_sum, [x, i64(n)])
    expected = sum((x[j] * (j + 1 + j) for j in range(min(rows, n))), np.zeros(2, np.float32))
    np.testing.assert_allclose(total, expected)
    assert int(steps) == min(rows, n)

"""while / for loops: Python values, eager tensors, static while_loop."""
import numpy as np
import pytest

import core

from ..conftest import as_array, both, convert, op_types, run_static


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


@pytest.mark.parametrize("n", [0, 3])
def test_static_while_loop(n):
    x = np.ones([2], dtype="float32")
    (out, i), program = run_static(tensor_while, [x, np.array(n, dtype="int64")])
    np.testing.assert_allclose(out, x + n)
    assert int(i) == n
    assert any("while" in t for t in op_types(program))


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


def test_static_for_over_tensor_rows():
    x = np.arange(6, dtype="float32").reshape(3, 2)
    out, _ = run_static(for_tensor, [x])
    np.testing.assert_allclose(out, x.sum(0))


# -- loop variables that start as Python numbers (or 0-d values) -------------------------------
def accumulate_rows(x):
    s = 0
    for v in x:
        s = s + v
    return s


def accumulate_while(x, n):
    i = 0
    h = 0.0
    while i < n:
        h = h + x
        i += 1
    return h, i


def accumulate_from_0d(x, n):
    s = x.sum() * 0
    i = 0
    while i < n:
        s = s + x
        i += 1
    return s


@pytest.mark.parametrize("rows", [0, 1, 3])
def test_number_becomes_vector_over_tensor_rows(rows):
    x = np.arange(rows * 2, dtype="float32").reshape(rows, 2) + 1
    out, program = run_static(accumulate_rows, [x])
    expected = as_array(accumulate_rows(core.to_tensor(x)))
    np.testing.assert_allclose(out, np.broadcast_to(expected, [2]))
    assert out.shape == (2,) and out.dtype == np.float32  # eager: float32 once it is a Tensor
    assert "while" in op_types(program)
    assert program.num_blocks == 2  # the first trace's blocks were removed


@pytest.mark.parametrize("n", [0, 1, 3])
def test_number_becomes_vector_in_while(n):
    x = np.array([1.5, -2.0], dtype="float32")
    (h, i), program = run_static(accumulate_while, [x, np.array(n, dtype="int64")])
    eager_h, eager_i = accumulate_while(core.to_tensor(x), n)
    np.testing.assert_allclose(h, np.broadcast_to(as_array(eager_h), [2]))
    assert h.dtype == np.float32 and int(i) == eager_i == n
    assert "while" in op_types(program)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_0d_value_becomes_vector_in_while(n):
    x = np.array([1.0, 2.0, 4.0], dtype="float32")
    out, program = run_static(accumulate_from_0d, [x, np.array(n, dtype="int64")])
    expected = as_array(accumulate_from_0d(core.to_tensor(x), n))
    np.testing.assert_allclose(out, np.broadcast_to(expected, [3]))
    assert "while" in op_types(program)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_number_becomes_vector_declarative(n):
    from translator import declarative

    fn = declarative(accumulate_while)
    x = core.to_tensor(np.array([0.5, 3.0], dtype="float32"))
    h, i = fn(x, core.to_tensor(np.array(n, dtype="int64")))
    eager_h, _ = accumulate_while(x, n)
    np.testing.assert_allclose(as_array(h), np.broadcast_to(as_array(eager_h), [2]))
    assert int(as_array(i)) == n


def test_number_becomes_tensor_of_unknown_shape_is_a_clear_error():
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 2], "float32")
            n = core.static.data("n", [], "int64")
            with pytest.raises(ValueError, match=r"variable 'h'.*shape \[-1, 2\].*zeros_like"):
                convert(accumulate_while)(x, n)
        finally:
            core.disable_static()


# -- dtypes of promoted Python numbers ---------------------------------------------------------
def scaled_sum(x, n):
    i = 0
    y = x
    while i < n:
        y = y + x * i
        i += 1
    return y


@pytest.mark.parametrize("n", [0, 3])
def test_counter_stays_weak_in_float_arithmetic(n):
    x = np.array([1.0, 2.0], dtype="float32")
    out, _ = run_static(scaled_sum, [x, np.array(n, dtype="int64")])
    expected = as_array(scaled_sum(core.to_tensor(x), n))
    assert out.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(out, expected)


# -- shapes that change across iterations; names first bound in a loop -------------------------
def grow_by_concat(x, n):
    out = x
    i = 0
    while i < n:
        out = core.layers.concat([out, x * (i + 1.0)], axis=0)
        i += 1
    return out


def last_step_of_while(x, n):
    i = 0
    while i < n:
        y = x * (i + 1.0)
        i += 1
    return y, i


def last_row_doubled(x):
    for row in x:
        last = row * 2.0
    return last


def _sem():
    from .. import test_semantics  # imports this module: import it when a test runs

    return test_semantics


def test_growing_concat_gets_its_changing_dim_relaxed():
    from translator import ProgramTranslator

    sem = _sem()
    x = np.array([[1.0, 2.0]], np.float32)
    static = sem.check(grow_by_concat, (x, np.array(0)), (x, np.array(1)), (x, np.array(4)),
                       ops={"while", "concat"})
    assert static.translations == 1  # one Program serves every trip count
    outs = ProgramTranslator().get_program(static, sem.tensor(x), sem.tensor(np.array(2)))[3]
    assert list(outs[0].shape) == [-1, 2]


def test_name_first_bound_in_a_tensor_loop_is_usable_after_it():
    from translator import InputSpec, declarative

    sem = _sem()
    x = np.array([1.0, -2.0], np.float32)
    sem.check(last_step_of_while, (x, np.array(1)), (x, np.array(3)), ops={"while"})
    sem.check(last_row_doubled, (np.arange(6, dtype=np.float32).reshape(3, 2),), ops={"while"})
    static = declarative(last_row_doubled, input_spec=[InputSpec([None, 2])])
    for rows in (1, 4):
        value = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
        sem.assert_same(last_row_doubled(sem.tensor(value)), static(sem.tensor(value)))
    assert static.translations == 1
    # after a loop that ran no iteration the name has no value: reading it fails as eagerly
    with pytest.raises(AssertionError, match=r"local variable 'y' is read .* on a path where"):
        declarative(last_step_of_while)(sem.tensor(x), sem.tensor(np.array(0)))
    with pytest.raises(UnboundLocalError):
        last_step_of_while(sem.tensor(x), sem.tensor(np.array(0)))

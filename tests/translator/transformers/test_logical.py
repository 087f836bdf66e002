"""and / or / not and chained comparisons keep Python's values and short circuit."""
import numpy as np
import pytest

import core
from translator import declarative

from ..three_way import check_three_ways
from ..conftest import as_array, both, convert, op_types, run_static


def logic(a, b, c):
    return (a and b), (a or c), (not a), ((a and b) or c)


def chained(a, b, c):
    return a < b <= c, a < b > c, a == b != c


def short_circuit(x, calls):
    def right():
        calls.append("right")
        return 7
    return x and right()


@pytest.mark.parametrize("args", [(0, 1, 2), (3, 0, 5), ("", "x", None), ([1], [], 0)])
@pytest.mark.parametrize("passes", [None, ("logical",)])
def test_python_values(args, passes):
    expected, got = both(logic, *args, passes=passes)
    assert expected == got


@pytest.mark.parametrize("args", [(1, 2, 3), (1, 2, 2), (3, 2, 1), (2, 2, 3)])
def test_chained_comparisons(args):
    assert both(chained, *args) == (chained(*args),) * 2


def test_chained_comparison_evaluates_middle_once():
    calls = []

    def mid():
        calls.append(1)
        return 5

    def f():
        return 1 < mid() < 9

    assert convert(f)() is True
    assert calls == [1]


@pytest.mark.parametrize("x", [0, 1])
def test_short_circuit(x):
    calls = []
    assert convert(short_circuit)(x, calls) == short_circuit(x, [])
    assert calls == (["right"] if x else [])


def test_eager_tensors_return_what_python_returns():
    # Paddle issue 50365: `x and y` gave 999999 statically where eager gave 0.
    x = core.to_tensor(np.array([0], dtype="int64"))
    y = core.to_tensor(np.array([999999], dtype="int64"))

    def f(x, y):
        return x and y

    expected, got = both(f, x, y)
    assert as_array(got).tolist() == as_array(expected).tolist() == [0]


@pytest.mark.parametrize("xv", [0, 5])
def test_static_and_returns_python_value(xv):
    def f(x, y):
        return x and y

    x = np.array([xv], dtype="int64")
    y = np.array([999999], dtype="int64")
    out, program = run_static(f, [x, y])
    assert out.tolist() == (x and y).tolist() if xv else out.tolist() == [0]
    assert "cond" in op_types(program)


@pytest.mark.parametrize("xv", [-1.0, 1.0])
def test_static_right_side_ops_live_in_a_branch(xv):
    def f(x):
        return x > 0 and x.sum() < 10

    x = np.array([xv], dtype="float32")
    out, program = run_static(f, [x])
    assert bool(out) == bool(xv > 0 and xv < 10)
    global_types = {op.type for op in program.global_block().ops}
    assert "reduce_sum" not in global_types


@pytest.mark.parametrize("xv", [-1.0, 1.0])
def test_static_not(xv):
    def f(x):
        return not x > 0

    out, _ = run_static(f, [np.array([xv], dtype="float32")])
    assert bool(out) == (not xv > 0)


# -- one Program, run on inputs where the right operand is / is not needed ------------------------
def _checked_positive(x):
    assert x.min() > 0, "the right operand ran"
    return x.max() > 1.0


def and_guards_an_assert(x):
    return x.min() > 0 and _checked_positive(x)


def or_guards_an_assert(x):
    return x.min() <= 0 or _checked_positive(x)


def or_value(x, y):
    return x or y


def and_number(x):
    return x and 999999


@pytest.mark.parametrize("fn", [and_guards_an_assert, or_guards_an_assert])
def test_right_operand_ops_run_only_when_needed(fn):
    from .. import test_semantics as sem

    # the right operand's Assert fails for the non-positive inputs: the executor only gets
    # through them when the Assert sits in a cond branch that is not taken
    sem.check(fn, (sem.f32(2.0, 3.0),), (sem.f32(0.5, 0.7),), (sem.f32(-1.0, 3.0),),
              (sem.f32(0.0, 0.0),), ops={"cond", "assert"})


def test_static_and_or_give_the_operand_python_gives():
    from translator import ProgramTranslator, declarative

    from .. import test_semantics as sem

    exe = core.Executor(core.CPUPlace())
    seven = np.array([7], np.int64)
    for fn, args in ((or_value, (seven,)), (and_number, ())):
        static = declarative(fn)
        zero = sem.tensor(np.array([0], np.int64))
        main, startup, inputs, outputs = ProgramTranslator().get_program(
            static, zero, *map(sem.tensor, args))
        assert "cond" in op_types(main)
        exe.run(startup)
        for xv in (0, 5):
            x = np.array([xv], np.int64)
            feed = {v.name: a for v, a in zip(inputs, (x,) + args)}
            (got,) = exe.run(main, feed=feed, fetch_list=outputs)
            expected = fn(sem.tensor(x), *map(sem.tensor, args))
            assert got.tolist() == np.reshape(as_array(expected), [1]).tolist()  # 999999 vs 0


def chain_to_python(a, b, y):
    """``a and (b and y)`` / ``a or (b and y)`` with a Python ``y`` (None, a str): the inner
    operation is already one of two things, the outer one of three."""
    r = a > 0 and b > 0 and y
    s = a > 0 or (b > 0 and y)
    if not (a > 0 and (b > 0 and y)):
        a = a + 1
    if s:
        a = a * 3
    return a, r, s


def test_chains_ending_in_a_python_object_as_conditions_and_results():
    for y in (None, "s"):
        for a in (1.0, -1.0):
            for b in (1.0, -1.0):
                check_three_ways(declarative(chain_to_python),
                                 (np.float32(a) * np.ones([], "float32"),
                                  np.float32(b) * np.ones([], "float32"), y))

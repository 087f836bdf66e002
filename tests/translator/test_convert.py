"""convert_to_static, get_code, get_passes, caching, closures and unsupported syntax."""
import numpy as np
import pytest

from translator import convert as c
from translator.transformers import PASSES


def simple(x, k=2):
    if x > 0:
        x = x * k
    return x


def test_code_and_passes():
    code = c.get_code(simple)
    assert "convert_ifelse" in code and code.startswith("def simple(x, k=2):")
    stages = c.get_passes(simple)
    assert [n for n, _ in stages] == ["original"] + [n for n, _ in PASSES]
    assert "convert_ifelse" not in stages[0][1]


def test_origin_comments():
    code = c.get_code(simple, with_origin=True)
    line = simple.__code__.co_firstlineno
    assert f"# test_convert.py:{line + 1}" in code


def test_cached_and_defaults_kept():
    f = c.convert_to_static(simple)
    assert c.convert_to_static(simple) is f
    assert f(3) == 6 and f(3, k=3) == 9 and f.__name__ == "simple"


def test_bound_method():
    class A:
        def __init__(self):
            self.k = 5

        def m(self, x):
            while x < self.k:
                x += 1
            return x

    a = A()
    assert c.convert_to_static(a.m)(1) == 5


def test_closure_cells_are_shared():
    counter = 0

    def bump(n):
        nonlocal counter
        if n > 0:
            counter += n
        return counter

    f = c.convert_to_static(bump)
    assert f(2) == 2
    assert counter == 2
    counter = 10
    assert f(1) == 11


def test_generators_are_rejected_with_location():
    def gen(x):
        yield x

    with pytest.raises(c.ConversionError, match=r"'yield'.*test_convert.py:\d+"):
        c.convert_to_static(gen)


def test_lambda_is_rejected():
    with pytest.raises(c.ConversionError, match="lambda"):
        c.convert_to_static(lambda x: x)


def test_global_assignment_under_if():
    assert c.convert_to_static(set_global)(4) == 4
    assert GLOBAL_VALUE == 4


GLOBAL_VALUE = 0


def set_global(x):
    global GLOBAL_VALUE
    if x > 0:
        GLOBAL_VALUE = x
    return GLOBAL_VALUE


# -- constructs the module docstring says are converted like any block ----------------------------
def try_around_tensor_if(x):
    try:
        if x.sum() > 0:
            y = x * 2.0
        else:
            y = x - 1.0
    except ZeroDivisionError:
        y = x
    finally:
        x = x + 0.5
    return x, y


def make_scaled_loop():
    scale = 2.0
    calls = 0

    def scaled_loop(x, n):
        nonlocal calls
        calls += 1
        i = 0
        while i < n:
            x = x * scale
            i += 1
        return x

    return scaled_loop, lambda: calls


def test_try_around_tensor_control_flow_builds_the_op_inside_it():
    from . import test_semantics as sem

    x = np.array([1.0, 2.0], np.float32)
    sem.check(try_around_tensor_if, (x,), (-x,), ops={"cond"})


def test_nonlocal_in_a_function_with_a_tensor_loop():
    from . import test_semantics as sem

    fn, calls = make_scaled_loop()
    x = np.array([1.0, -2.0], np.float32)
    static = sem.check(fn, (x, np.array(0)), (x, np.array(3)), ops={"while"})
    static(sem.tensor(x), sem.tensor(np.array(2)))
    # eagerly each call counts: the Program writes the Python int its trace computed, which
    # holds only while the nonlocal is the one it was traced from; it changed, so each call
    # traces again and counts once more
    before, translations = calls(), static.translations
    for k in (1, 2):
        static(sem.tensor(x), sem.tensor(np.array(2)))
        assert calls() == before + k
        assert static.translations == translations + k

"""convert_to_static, get_code, get_passes, caching, closures and unsupported syntax."""
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

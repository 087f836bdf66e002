"""print and assert: plain Python for Python values, Print/Assert ops for static Tensors."""
import numpy as np
import pytest

from ..conftest import convert, op_types, run_static


def f(x):
    print("x is", x)
    assert x > 0, f"x must be positive, got {x}"
    return x


@pytest.mark.parametrize("passes", [None, ("print_assert",)])
def test_python(capsys, passes):
    assert convert(f, passes)(3) == 3
    assert capsys.readouterr().out == "x is 3\n"
    with pytest.raises(AssertionError, match="x must be positive, got -1"):
        convert(f, passes)(-1)


def test_assert_message_is_evaluated_only_on_failure():
    calls = []

    def g(x):
        assert x, calls.append("msg")
        return x

    assert convert(g)(1) == 1
    assert calls == []


def test_static_ops():
    def g(x):
        print(x)
        assert x.sum() > 0
        return x * 2

    out, program = run_static(g, [np.ones([2], dtype="float32")])
    np.testing.assert_allclose(out, [2.0, 2.0])
    types = op_types(program)
    assert any("print" in t.lower() for t in types)
    assert any("assert" in t.lower() for t in types)

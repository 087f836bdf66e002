"""if/elif/else and conditional expressions: Python values, eager tensors, static Tensors."""
import numpy as np
import pytest

import core

from ..conftest import as_array, both, convert, op_types, run_static


def nested(x, y):
    if x > 0:
        z = x + 1
        if y > 0:
            w = 1
        else:
            w = 2
    elif x < -5:
        z = 3
        w = 0
    else:
        z = 0
        w = -1
    return z + w


def one_branch(x):
    if x > 0:
        y = x * 2
    return y


def ifexp(x):
    return x + 1 if x > 0 else x - 1


def tensor_branch(x):
    if x.mean() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def python_flag_under_tensor(x):
    big = False
    if x.sum() > 3:
        big = True
        x = x + 10
    return x, big


@pytest.mark.parametrize("args", [(1, 1), (1, -1), (-6, 0), (-1, 0)])
@pytest.mark.parametrize("passes", [None, ("ifelse",)])
def test_nested_python_values(args, passes):
    expected, got = both(nested, *args, passes=passes)
    assert expected == got


def test_only_the_ifelse_pass_generates_convert_ifelse():
    from translator.convert import get_passes

    stages = dict(get_passes(nested))
    assert "convert_ifelse" not in stages["logical"]
    assert stages["ifelse"].count("convert_ifelse(") == 3


def test_defined_in_one_branch_python():
    assert convert(one_branch)(3) == 6
    with pytest.raises(UnboundLocalError, match="'y'"):
        convert(one_branch)(-3)


@pytest.mark.parametrize("x", [2, -2])
def test_ifexp_python(x):
    assert both(ifexp, x) == (ifexp(x),) * 2


@pytest.mark.parametrize("value", [[1.0, 2.0], [-1.0, -2.0]])
def test_eager_tensor_predicate(value):
    x = core.to_tensor(np.array(value, dtype="float32"))
    expected, got = both(tensor_branch, x)
    np.testing.assert_allclose(as_array(got), as_array(expected))


@pytest.mark.parametrize("value", [[1.0, 2.0], [-1.0, -2.0]])
def test_static_cond(value):
    x = np.array(value, dtype="float32")
    out, program = run_static(tensor_branch, [x])
    np.testing.assert_allclose(out, x * 2 if x.mean() > 0 else x - 1)
    assert "cond" in op_types(program) or "conditional_block" in op_types(program)


@pytest.mark.parametrize("value", [[1.0, 2.0], [3.0, 4.0]])
def test_static_cond_promotes_python_values(value):
    x = np.array(value, dtype="float32")
    (out, big), _ = run_static(python_flag_under_tensor, [x])
    assert bool(big) == (x.sum() > 3)
    np.testing.assert_allclose(out, x + 10 if x.sum() > 3 else x)


@pytest.mark.parametrize("value", [[1.0], [-1.0]])
def test_static_ifexp(value):
    x = np.array(value, dtype="float32")

    def f(x):
        return x * 3 if x.sum() > 0 else x * 0

    out, program = run_static(f, [x])
    assert "cond" in op_types(program)
    np.testing.assert_allclose(out, x * 3 if x.sum() > 0 else x * 0)


def test_static_defined_in_one_branch_fails_only_on_the_path_that_leaves_it_unbound():
    out, _ = run_static(one_branch, [np.array([1.0], dtype="float32")])
    np.testing.assert_allclose(out, [2.0])
    with pytest.raises(AssertionError, match=r"local variable 'y' is read") as info:
        run_static(one_branch, [np.array([-1.0], dtype="float32")])
    assigned = one_branch.__code__.co_firstlineno + 2
    read = assigned + 1
    assert f"assigned at {__file__}:{assigned}" in str(info.value)
    assert f"read ({__file__}:{read})" in str(info.value)

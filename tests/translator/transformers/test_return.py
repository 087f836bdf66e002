"""return anywhere: early returns in branches and loops, several values, None paths."""
import numpy as np
import pytest

import core
from core.mode import static_mode_guard

from ..conftest import as_array, both, convert, run_static


def early(x):
    if x > 0:
        return 1
    y = 2
    for i in range(10):
        if i * x < -5:
            return i
    return y


def nested_returns(x):
    if x > 3:
        if x > 10:
            return "big", x
        x = x + 1
    else:
        return "small", x
    return "mid", x


def maybe_none(x):
    if x > 0:
        return x


def in_while(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            return i * 10


def tensor_early(x):
    if x.mean() > 0:
        return x * 2
    return x - 1


@pytest.mark.parametrize("x", [1, -1, 0, -3])
@pytest.mark.parametrize("passes", [None, ("return",)])
def test_early_returns(x, passes):
    expected, got = both(early, x, passes=passes)
    assert expected == got


@pytest.mark.parametrize("x", [1, 5, 20])
def test_several_values(x):
    assert both(nested_returns, x) == (nested_returns(x),) * 2


@pytest.mark.parametrize("x", [1, -1])
def test_none_path(x):
    assert both(maybe_none, x) == (maybe_none(x),) * 2


@pytest.mark.parametrize("n", [1, 4])
def test_return_in_while_true(n):
    assert both(in_while, n) == (in_while(n),) * 2


@pytest.mark.parametrize("value", [[1.0], [-1.0]])
def test_eager_tensor(value):
    x = core.to_tensor(np.array(value, dtype="float32"))
    expected, got = both(tensor_early, x)
    np.testing.assert_allclose(as_array(got), as_array(expected))


@pytest.mark.parametrize("value", [[1.0, 2.0], [-1.0, -3.0]])
def test_static_early_return(value):
    x = np.array(value, dtype="float32")
    out, _ = run_static(tensor_early, [x])
    np.testing.assert_allclose(out, x * 2 if x.mean() > 0 else x - 1)


def test_static_none_on_one_path_gives_one_of_two_results():
    from translator.convert_state import PathUnion

    def f(x):
        if x.sum() > 0:
            return x

    # a Program built by hand gets both paths' results and a selector (a declarative call
    # returns the one the run took); fetching the union itself is an error naming it
    with pytest.raises(TypeError, match="PathUnion"):
        run_static(f, [np.ones([1], dtype="float32")])
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup), static_mode_guard():
        out = convert(f)(core.static.data("x", [1], "float32"))
    assert isinstance(out, PathUnion) and out.alternatives[1] is None

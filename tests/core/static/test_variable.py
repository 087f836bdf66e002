"""core/static/variable.py helpers: names_of (Variables or names given to an API) and
merge_shape."""
import numpy as np
import pytest

import core
from core import static
from core.mode import static_mode_guard
from core.static.variable import merge_shape, names_of


def test_names_of_accepts_variables_names_and_iterables():
    with static.program_guard(static.Program(), static.Program()), static_mode_guard():
        x = static.data("x", [2], "float32")
    assert names_of(x, "f") == ["x"]
    assert names_of("y", "f") == ["y"]
    assert names_of([x, "y"], "f") == ["x", "y"]
    assert names_of(("y",), "f") == ["y"]
    assert names_of(None, "f") == []


def test_names_of_error_starts_with_the_callers_wording():
    with pytest.raises(TypeError, match=r"^api: 'what' must hold Variables or names, got int$"):
        names_of([1], "api: 'what' must hold Variables or names")
    with pytest.raises(TypeError, match=r"^api: must be names, got int$"):
        names_of(3, "api: must be names")
    with pytest.raises(TypeError, match=r"^api: must be names, got NoneType$"):
        names_of(None, "api: must be names", allow_none=False)


def test_merge_shape():
    assert merge_shape([2, 3], [2, 4]) == [2, -1]
    assert merge_shape(None, [1]) == [1]
    assert merge_shape([1], [1, 2]) is False


def test_renaming_a_variable_renames_it_in_its_block_and_ops():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [2], "float32")
        y = x * 2.0
        old = y.name
        y.name = "doubled"
        z = y + 1.0
    block = main.global_block()
    assert block.var("doubled") is y and not block.has_var(old)
    assert "doubled" in [n for op in block.ops for n in op.output_arg_names]
    assert "doubled" in block.ops[-1].input_arg_names
    out = core.Executor(core.CPUPlace()).run(
        main, feed={"x": np.array([1.0, 2.0], "float32")}, fetch_list=[z, y])
    np.testing.assert_allclose(out[0], [3.0, 5.0])
    with pytest.raises(ValueError, match="already has a variable named 'x'"):
        y.name = "x"
    with pytest.raises(TypeError, match="non-empty str"):
        y.name = 3

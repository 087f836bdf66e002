"""core/static/variable.py helpers: names_of (Variables or names given to an API) and
merge_shape."""
import pytest

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

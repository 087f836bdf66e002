"""Errors from declarative functions name what was wrong and where."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative, program_translator


def t(array):
    return core.to_tensor(np.asarray(array, dtype=np.float32))


@declarative
def bad_shapes(x):
    y = x * 2
    z = core.layers.matmul(y, y)  # [2, 3] @ [2, 3]: the user's error is on this line
    return z


@declarative
def raises_in_python(x, n):
    if n > 2:
        raise ValueError(f"n is too large: {n}")
    return x


def _notes(exc):
    return "\n".join(getattr(exc, "__notes__", []))


def _line_of(text):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_error_while_translating_points_to_the_users_line():
    with pytest.raises(Exception) as info:
        bad_shapes(t(np.ones((2, 3))))
    notes = _notes(info.value)
    line = _line_of("z = core.layers.matmul(y, y)")
    assert f'"{__file__}", line {line}' in notes, notes
    assert "core.layers.matmul(y, y)" in notes
    assert "matmul" in str(info.value)


def test_python_exception_in_converted_code_keeps_its_type_and_origin():
    with pytest.raises(ValueError, match="n is too large: 3") as info:
        raises_in_python(t([1.0]), 3)
    line = _line_of('raise ValueError(f"n is too large')
    assert f'"{__file__}", line {line}' in _notes(info.value)
    np.testing.assert_allclose(raises_in_python(t([1.0]), 1).numpy(), [1.0])


@declarative
def divides(x, k):
    return core.layers.reshape(x, [k, -1])


def test_run_time_error_names_the_op_and_the_users_line():
    x = t(np.ones(6))
    divides(x, 2)
    # a new signature translates fine, the reshape fails when the program runs
    with pytest.raises(Exception, match="reshape"):
        divides(x, 4)


def test_save_inference_model_without_a_call(monkeypatch, tmp_path):
    monkeypatch.setitem(program_translator._state, "last", None)
    with pytest.raises(RuntimeError, match="no declarative function has been called"):
        ProgramTranslator().save_inference_model(str(tmp_path / "m"))


def test_save_inference_model_index_errors(tmp_path):
    divides(t(np.ones(6)), 3)
    with pytest.raises(IndexError, match="feed index 3 is out of range; the program has 1 "
                                         "inputs"):
        ProgramTranslator().save_inference_model(str(tmp_path / "m"), feed=[3])
    with pytest.raises(IndexError, match="fetch index"):
        ProgramTranslator().save_inference_model(str(tmp_path / "m"), fetch=["0"])


LAYERS = {"fc": core.nn.Linear(2, 2)}


@declarative
def hidden_layer(x):
    return LAYERS["fc"](x)


def test_parameters_reached_through_a_container_are_found():
    """A Layer held in a global dict: the builder records every eager Parameter it maps."""
    x = t(np.ones((1, 2)))
    out = hidden_layer(x)
    np.testing.assert_allclose(out.numpy(), LAYERS["fc"](x).numpy(), rtol=1e-6)
    out.sum().backward()
    assert LAYERS["fc"].weight.gradient() is not None


def test_declarative_rejects_non_callables():
    with pytest.raises(TypeError, match="function or method"):
        declarative(3)


def test_concrete_program_needs_an_input_spec():
    # without one, the program of the most recent call (as in PaddlePaddle); none before
    with pytest.raises(ValueError, match="declares no input_spec and has no program yet"):
        _ = declarative(divides.dygraph_function).concrete_program

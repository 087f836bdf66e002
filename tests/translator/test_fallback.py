"""``full_graph``: with False (the default outside this suite) a declarative call whose
translation fails on a construct the translator cannot express runs the function eagerly for
that input signature, with one WARNING naming the construct and the user's line; with True
(or ``DY2STATIC_FULL_GRAPH=1``, which tests/conftest.py sets) it raises. Errors in the user's
own code are raised in both modes. Cases follow PaddlePaddle's dygraph_to_static
test_fallback.py (``x.numpy()`` in a called function, a Layer whose branches both call it)."""
import logging

import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative, report, to_static


def support_func(x):
    return 2 * x


def unsupport_func(x):
    x = 2 * x
    t = x.numpy()
    t = np.ones(t)
    return core.to_tensor(t)


class UnsupportNet(core.nn.Layer):
    def forward(self, x):
        if self.training:
            return unsupport_func(x)
        return unsupport_func(x - 1)


def generator_sum(x):
    for k in range(2):
        yield x * k


def _int_tensor(v):
    return core.to_tensor(np.array(v, dtype=np.int64))


def _warnings(caplog):
    return [r for r in caplog.records if r.name == "translator" and r.levelno == logging.WARNING]


def test_the_suite_runs_with_full_graph():
    assert declarative(support_func).full_graph is True


def test_supported_function_is_converted_in_both_modes():
    for full_graph in (False, True):
        fn = to_static(support_func, full_graph=full_graph)
        np.testing.assert_allclose(fn(_int_tensor(2)).numpy(), 4)
        assert "fallback" not in ProgramTranslator().cache_info(fn)[0]


def test_numpy_in_a_called_function_falls_back_once_with_a_warning(caplog):
    fn = declarative(unsupport_func, full_graph=False)
    x = _int_tensor(2)
    with caplog.at_level(logging.WARNING, logger="translator"):
        for _ in range(3):
            out = fn(x)
            np.testing.assert_allclose(out.numpy(), unsupport_func(x).numpy())
    (warning,) = _warnings(caplog)
    text = warning.getMessage()
    assert "unsupport_func runs eagerly" in text and "numpy()" in text
    assert "test_fallback.py" in text and "line 22" in text  # the line of x.numpy()
    (info,) = ProgramTranslator().cache_info(fn)
    assert info["x"] == "Tensor int64[]" and "numpy()" in info["fallback"]


def test_fallback_is_per_signature(caplog):
    def maybe_numpy(x, use_numpy):
        if use_numpy:
            return core.to_tensor(np.asarray(x.numpy()) + 1)
        return x + 1

    fn = declarative(maybe_numpy, full_graph=False)
    x = core.to_tensor(np.array([1.0, 2.0], np.float32))
    with caplog.at_level(logging.WARNING, logger="translator"):
        for flag in (False, True, False, True):
            np.testing.assert_allclose(fn(x, flag).numpy(), [2.0, 3.0])
    assert len(_warnings(caplog)) == 1
    infos = ProgramTranslator().cache_info(fn)
    assert ["fallback" in i for i in infos] == [False, True]
    assert len(fn.program_cache) == 2


def test_layer_falls_back_in_train_and_eval_mode():
    net = declarative(UnsupportNet(), full_graph=False)
    x = _int_tensor(2)
    np.testing.assert_allclose(net(x).numpy(), [1.0, 1.0, 1.0, 1.0])
    net.eval()
    np.testing.assert_allclose(net(x).numpy(), [1.0, 1.0])
    assert net.training is False


def test_full_graph_true_raises():
    with pytest.raises(TypeError, match=r"numpy\(\)"):
        declarative(unsupport_func, full_graph=True)(_int_tensor(2))
    with pytest.raises(Exception, match="'yield'"):
        declarative(generator_sum, full_graph=True)(_int_tensor(2))


def test_environment_variable_sets_the_default(monkeypatch):
    monkeypatch.setenv("DY2STATIC_FULL_GRAPH", "0")
    fn = declarative(unsupport_func)
    assert fn.full_graph is False
    np.testing.assert_allclose(fn(_int_tensor(3)).numpy(), np.ones(6))
    monkeypatch.setenv("DY2STATIC_FULL_GRAPH", "1")
    with pytest.raises(TypeError):
        declarative(unsupport_func)(_int_tensor(3))
    # an explicit argument wins over the variable
    np.testing.assert_allclose(
        declarative(unsupport_func, full_graph=False)(_int_tensor(3)).numpy(), np.ones(6))


def test_generator_function_runs_eagerly(caplog):
    fn = declarative(generator_sum, full_graph=False)
    with caplog.at_level(logging.WARNING, logger="translator"):
        values = list(fn(_int_tensor(5)))
    assert [int(v) for v in values] == [0, 5]
    (warning,) = _warnings(caplog)
    assert "'yield'" in warning.getMessage() and "test_fallback.py" in warning.getMessage()


def test_recursion_ending_on_a_tensor_falls_back():
    def power(x, n):
        if n == 1:
            return x
        return x * power(x, n - 1)

    fn = declarative(power, full_graph=False)
    out = fn(core.to_tensor(np.array([2.0], np.float32)), _int_tensor(3))
    np.testing.assert_allclose(out.numpy(), [8.0])
    assert "RecursionError" in ProgramTranslator().cache_info(fn)[0]["fallback"]


def test_user_errors_are_never_swallowed():
    def shape_mismatch(x):
        return core.layers.matmul(x, core.to_tensor(np.ones([3, 3], np.float32)))

    def wrong_keyword(x):
        return core.layers.reduce_sum(x, dimm=0)

    x = core.to_tensor(np.ones([2, 2], np.float32))
    with pytest.raises(ValueError, match="matmul"):
        declarative(shape_mismatch, full_graph=False)(x)
    with pytest.raises(TypeError, match="dimm"):
        declarative(wrong_keyword, full_graph=False)(x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'xx'"):
        declarative(support_func, full_graph=False)(xx=x)


def test_a_signature_that_runs_eagerly_has_no_program():
    fn = declarative(unsupport_func, full_graph=False)
    fn(_int_tensor(2))
    with pytest.raises(TypeError, match=r"numpy\(\)"):
        ProgramTranslator().get_program(fn, _int_tensor(2))


def test_report_shows_the_fallback():
    fn = declarative(unsupport_func, full_graph=False)
    result = report(fn, _int_tensor(2))
    assert result.fallback is not None and "numpy()" in result.fallback
    assert "# fallback: runs eagerly" in result.text
    strict = report(declarative(unsupport_func, full_graph=True), _int_tensor(2))
    assert strict.fallback is None and "translation stopped" in strict.text


def test_full_graph_must_be_a_bool():
    with pytest.raises(TypeError, match="'full_graph'"):
        declarative(support_func, full_graph="yes")


def numpy_in_conditions(x):
    if x.numpy()[0] > 0 and x.numpy()[-1] < 10:
        x = x + 1
    while x.numpy()[0] < 3:
        x = x + 1
    return x


def test_numpy_as_an_operand_is_the_variable_and_elsewhere_falls_back(caplog):
    # PaddlePaddle's translator drops ``.numpy()``: as an operand of a comparison, operator or
    # subscript a static Variable means what its array means eagerly; a value handed on
    # (``np.asarray(x.numpy())``) cannot be one, and the function runs eagerly
    fn = declarative(numpy_in_conditions)
    for values in ([1.0, 2.0], [-1.0, 2.0], [5.0, 20.0]):
        x = core.to_tensor(np.array(values, np.float32))
        ProgramTranslator().enable(False)
        expected = fn(x).numpy()
        ProgramTranslator().enable(True)
        np.testing.assert_allclose(fn(x).numpy(), expected)
    assert not any("fallback" in i for i in ProgramTranslator().cache_info(fn))
    with pytest.raises(TypeError, match=r"numpy\(\)"):
        declarative(numpy_handed_on)(_int_tensor(2))


def numpy_handed_on(x):
    return core.to_tensor(np.asarray(x.numpy()) + 1)

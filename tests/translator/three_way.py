"""Run one function three ways and compare: eagerly with the translator off (the meaning of
the code), through ``declarative`` (converted, run as a cached Program from eager mode), and
as a Program built by ``get_program``-style translation and run by ``core.Executor``.

* ``run_eager(fn, args)`` / ``run_declarative(fn, args)`` / ``run_program(fn, args)`` --
  ``fn`` is a ``declarative`` function or a Layer whose ``forward`` is one; ndarray arguments
  become tensors (fed as arrays to the Program). Each returns the outputs, or the exception
  raised (so callers can compare failures too).
* ``check_three_ways(fn, cases)`` -- for every case (a tuple of arguments) the three agree:
  same nesting and Python values, tensors equal in value, shape and dtype (a Python number
  a static loop carried may come back as a 0-d tensor of that value, as in PaddlePaddle).
  Where eager raises, the other two must raise the same exception type (for an unbound name,
  attribute or item: the static run's ``AssertionError`` saying the path taken left it without
  a value).
"""
import numpy as np

import core
from translator import ProgramTranslator

__all__ = ["assert_same", "check_three_ways", "run_declarative", "run_eager", "run_program"]


def _tensor(a):
    return core.to_tensor(np.asarray(a), stop_gradient=True)


def _as_args(args):
    return [_tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def _static_of(fn):
    return fn.forward if hasattr(fn, "forward") and hasattr(fn.forward, "program_cache") else fn


def _guard(call):
    try:
        return call()
    except Exception as e:  # compared by the caller
        return e


def run_eager(fn, args):
    ProgramTranslator().enable(False)
    try:
        return _guard(lambda: fn(*_as_args(args)))
    finally:
        ProgramTranslator().enable(True)


def run_declarative(fn, args):
    ProgramTranslator().enable(True)
    return _guard(lambda: fn(*_as_args(args)))


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]


def _pack(like, it):
    if isinstance(like, (list, tuple)):
        return type(like)(_pack(v, it) for v in like)
    if isinstance(like, dict):
        return {k: _pack(v, it) for k, v in like.items()}
    return next(it)


def run_program(fn, args):
    """The Program of this call's signature, run by ``core.Executor`` with the Layer's current
    parameter values; outputs packed like the function's (Python values as they are)."""
    ProgramTranslator().enable(True)
    static = _static_of(fn)

    def call():
        concrete = static.get_concrete_program(*_as_args(args))
        exe, scope = core.Executor(core.CPUPlace()), core.static.Scope()
        exe.run(concrete.startup_program, scope=scope)
        for name, tensor in concrete.parameters:
            scope.var(name).get_tensor().set(tensor.numpy(), core.CPUPlace())
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        feed = {v.name: a for v, a in zip(concrete.inputs, arrays)}
        fetched = exe.run(concrete.main_program, feed=feed, fetch_list=concrete.fetch_vars,
                          scope=scope)
        return concrete.pack_outputs(fetched)

    return _guard(call)


def _array(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _is_number(value):
    return isinstance(value, (bool, int, float, np.number))


def assert_same(expected, got, where=""):
    if isinstance(expected, BaseException):
        if isinstance(expected, (UnboundLocalError, AttributeError, KeyError)) and \
                isinstance(got, AssertionError):
            # a static run fails on the path that leaves the name (attribute, item) unbound:
            # an Assert op
            assert "on a path where it has no value" in str(got), f"{where}: {got!r}"
            return
        assert isinstance(got, type(expected)), f"{where}: eager raised {expected!r}, got {got!r}"
        return
    if isinstance(got, BaseException):
        raise AssertionError(f"{where}: eager gave {expected!r}, this raised {got!r}") from got
    if isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), \
            f"{where}: {got!r} != {expected!r}"
        for k, (e, g) in enumerate(zip(expected, got)):
            assert_same(e, g, f"{where}[{k}]")
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected), f"{where}: {got!r}"
        for k in expected:
            assert_same(expected[k], got[k], f"{where}[{k!r}]")
    elif _is_number(expected) and (hasattr(got, "numpy") or isinstance(got, np.ndarray)):
        a = _array(got)
        assert a.size == 1 and np.isclose(a.item(), expected), f"{where}: {a} != {expected}"
    elif isinstance(expected, np.ndarray):  # a Python value: an array stays an array
        assert isinstance(got, np.ndarray), f"{where}: {got!r} != {expected!r}"
        assert (got.dtype, got.shape) == (expected.dtype, expected.shape) and \
            np.array_equal(got, expected), f"{where}: {got!r} != {expected!r}"
    elif hasattr(expected, "numpy"):
        assert hasattr(got, "numpy") or isinstance(got, np.ndarray), f"{where}: {got!r}"
        ea, ga = _array(expected), _array(got)
        assert (ga.dtype, ga.shape) == (ea.dtype, ea.shape), \
            f"{where}: {ga.dtype}{list(ga.shape)} != eager {ea.dtype}{list(ea.shape)}"
        np.testing.assert_allclose(ga, ea, rtol=1e-5, atol=1e-5, err_msg=where)
    else:
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"


def check_three_ways(fn, *cases, program=True):
    """Every case agrees eagerly, through ``declarative`` and (``program``) through Executor."""
    for args in cases:
        expected = run_eager(fn, args)
        assert_same(expected, run_declarative(fn, args), f"declarative{_show(args)}")
        if program:
            assert_same(expected, run_program(fn, args), f"program{_show(args)}")
    return fn


def _show(args):
    return "(" + ", ".join(f"array{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a)
                           for a in args) + ")"

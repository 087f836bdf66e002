"""Helpers for the ports of PaddlePaddle's dygraph-to-static unit tests: each Paddle function
runs eagerly (the translator off: what the code means), through ``declarative`` and as the
Program ``get_concrete_program`` builds, run by ``core.Executor``; the three must agree
(see ``three_way``). Inputs are numpy arrays (passed as tensors) or Python values."""
import numpy as np

from translator import StaticFunction, declarative

from ..three_way import check_three_ways, run_declarative, run_eager

__all__ = ["check", "converted_error", "f32", "i32", "i64"]


def _static(fn):
    if isinstance(fn, StaticFunction) or hasattr(getattr(fn, "forward", None), "program_cache"):
        return fn
    return declarative(fn)


def check(fn, *cases, program=True):
    """``fn`` (a plain function, a declarative one or a Layer with a declarative forward) on
    every case (a tuple of arguments) agrees three ways."""
    return check_three_ways(_static(fn), *cases, program=program)


def converted_error(fn, *args):
    """The exception the converted call raises where the eager call returns: converting
    ``fn`` must fail loudly, never give a wrong value."""
    static = _static(fn)
    eager = run_eager(static, args)
    assert not isinstance(eager, BaseException), f"the eager run raised {eager!r}"
    got = run_declarative(static, args)
    assert isinstance(got, Exception), f"the converted run returned {got!r}"
    return got


def f32(*shape, low=0.0, high=1.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype("float32")


def i32(*values):
    return np.array(values, dtype="int32")


def i64(*values):
    return np.array(values, dtype="int64")

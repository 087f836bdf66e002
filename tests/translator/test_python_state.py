"""Python state across tensor control flow: containers (nests of lists, tuples and dicts with
tensor leaves), names deleted or bound on one path, and outside state (attributes, globals,
nonlocals) written by converted code. Every function runs eagerly, through ``declarative`` and
as a Program run by ``core.Executor``, on inputs that take every path and trip count."""
import numpy as np
import pytest

import core
from translator import declarative

from .three_way import check_three_ways, run_declarative, run_eager


def f32(*values):
    return np.array(values, dtype=np.float32)


def i64(value):
    return np.array(value, dtype=np.int64)


# -- names bound or deleted on one path ----------------------------------------------------------
@declarative
def dict_made_in_loop(x, n):
    i = 0
    while i < n:
        cache = {"v": x + 1, "w": [x * 2]}
        i += 1
    return cache["w"][0] + cache["v"]


def test_dict_made_only_in_a_loop_is_unbound_after_zero_trips():
    check_three_ways(dict_made_in_loop, (f32(1.0), i64(0)), (f32(1.0), i64(1)),
                     (f32(1.0), i64(3)))
    assert isinstance(run_eager(dict_made_in_loop, (f32(1.0), i64(0))), UnboundLocalError)


@declarative
def delete_in_branch(x):
    i = x + 1
    if x > 0:
        del i
    return i


@declarative
def delete_in_both_python_and_tensor_paths(x, flag):
    i, j = x + 1, x * 2
    if flag:
        del j
    if x > 0:
        del i
        i = x * 3
    return i + (0 if flag else j)


def test_del_unbinds_a_name_on_the_path_taken():
    check_three_ways(delete_in_branch, (f32(-1.0),), (f32(1.0),))
    assert isinstance(run_eager(delete_in_branch, (f32(1.0),)), UnboundLocalError)
    check_three_ways(delete_in_both_python_and_tensor_paths, (f32(-1.0), True),
                     (f32(1.0), True), (f32(-2.0), False), (f32(2.0), False))


def test_del_error_names_the_variable():
    err = run_declarative(delete_in_branch, (f32(1.0),))
    assert isinstance(err, Exception) and "'i'" in str(err)

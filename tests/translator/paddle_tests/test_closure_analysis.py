"""Port of PaddlePaddle's
python/paddle/fluid/tests/unittests/dygraph_to_static/test_closure_analysis.py (2.x releases):
the functions whose names and closures Paddle's ``FunctionNameLivenessAnalysis`` inspects,
bodies as written (``paddle`` -> ``dy2static``), run eagerly and converted: the behaviour, not
Paddle's analysis API (its expected sets of read / modified / pushed names). The functions
lose their ``test_`` prefix (pytest would collect them)."""
import numpy as np
import pytest
from numpy import append


from ._port import check, i64

global_a = []


def normal_0(x):
    def func():
        if True:
            i = 1

    func()
    return i


def normal_argument(x):
    x = 1

    def func():
        if True:
            print(x)
            i = 1

    func()
    return x


def global_(x):
    global t
    t = 10

    def func():
        if True:
            print(x)
            i = 1

    func()
    return x


def nonlocal_(x, *args, **kargs):
    i = 10

    def func(*args, **kargs):
        nonlocal i
        k = 10
        if True:
            print(x)
            i = 1

    func(*args, **kargs)
    return x


def push_pop_1(x, *args, **kargs):
    """push_pop_vars in main_function is : `l`, `k`"""
    l = []
    k = []
    for i in range(10):
        l.append(i)
        k.pop(i)
    return l


def push_pop_2(x, *args, **kargs):
    """push_pop_vars in main_function is : `k`"""
    l = []
    k = []

    def func():
        l.append(0)

    for i in range(10):
        k.append(i)
    return l, k


def push_pop_3(x, *args, **kargs):
    """push_pop_vars in main_function is : `k`
    NOTE: One may expect `k` and `l` because l
          is nonlocal. Name bind analysis is
          not implemented yet.
    """
    l = []
    k = []

    def func():
        nonlocal l
        l.append(0)

    for i in range(10):
        k.append(i)
    return l, k


def push_pop_4(x, *args, **kargs):
    """push_pop_vars in main_function is : `k`"""
    l = []
    k = []
    for i in range(10):
        for j in range(10):
            if True:
                l.append(j)
            else:
                k.pop()
    return l, k


def closure_attribute(self):
    # in this function, only self is a Name, self.current is a Attribute. self is read and self.current.function is store()
    i = 0
    self.current.function = 12


def vlist_of_dict(x):
    ma = {'a': []}
    for i in range(3):
        ma['a'].append(1)
    return ma


def vlist_of_np_append(x):
    a = np.array([1, 2, 3])
    for i in range(3):
        np.append(a, 4)
    return a


def vlist_of_if_true(x):
    a = np.array([1, 2, 3])
    if True:
        pass
    return a


def vlist_of_bare_append(x):
    a = np.array([1, 2, 3])
    for i in range(3):
        append(a, 4)
    return a


def vlist_of_global_append(x):
    a = np.array([1, 2, 3])
    for i in range(3):
        global_a.append(4)
    return a


@pytest.mark.parametrize("fn", [
    normal_0, normal_argument, global_, nonlocal_, push_pop_1, push_pop_2, push_pop_3,
    push_pop_4, vlist_of_dict, vlist_of_np_append, vlist_of_if_true, vlist_of_bare_append,
], ids=lambda fn: fn.__name__)
def test_closures_and_containers(fn):
    # normal_0 reads a name only the inner function binds (NameError), push_pop_1 pops an
    # empty list (IndexError): the converted calls raise as eagerly
    check(fn, (i64(3),), (7,))


def test_global_written_by_the_function():
    global t
    t = None
    check(global_, (i64(3),))
    assert t == 10


def test_global_list_appended_in_a_loop():
    del global_a[:]
    check(vlist_of_global_append, (i64(3),))
    # three trips eagerly and three in the translation; the Executor run reuses its Program
    assert global_a == [4] * 6


class _Current:
    function = None


class _Owner:
    def __init__(self):
        self.current = _Current()


def test_attribute_of_an_attribute_assigned():
    owner = _Owner()
    check(closure_attribute, (owner,))
    assert owner.current.function == 12

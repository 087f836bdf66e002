"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_function_spec.py (2.x releases). Paddle tests its internal ``FunctionSpec``; the same
duties here belong to a StaticFunction's binder (arguments bound to parameter names with the
defaults applied) and ``translator.input_spec.to_specs`` (tensors replaced by their declared
or own InputSpec), tested through them with Paddle's cases on ``foo_func`` (test_declarative).
Where Paddle raises ValueError for arguments Python itself refuses (too many, a missing one,
an unknown keyword) the error is Python's TypeError naming the function; a keyword argument
with an input_spec is accepted (as Python accepts it)."""
import pytest

import dy2static as paddle
from dy2static.static import InputSpec
from translator import declarative
from translator.input_spec import flatten, to_specs

from .test_declarative import foo_func


def test_constructor():
    foo_spec = declarative(foo_func)
    args_name = foo_spec.binder.names
    assert args_name == ['a', 'b', 'c', 'd']
    assert foo_spec.dygraph_function == foo_func
    assert foo_spec.input_spec is None


def test_verify_input_spec():
    a_spec = InputSpec([None, 10], name='a')
    b_spec = InputSpec([10], name='b')

    # type(input_spec) should be list or tuple
    with pytest.raises(TypeError, match="list or tuple"):
        declarative(foo_func, input_spec=a_spec)

    foo_spec = declarative(foo_func, input_spec=[a_spec, b_spec])
    assert len(flatten(foo_spec.input_spec)) == 2


def test_unified_args_and_kwargs():
    binder = declarative(foo_func).binder
    # case 1: foo(10, 20, c=4)
    assert tuple(binder.bind([10, 20], {'c': 4})) == (10, 20, 4, 2)

    # case 2: foo(a=10, b=20, d=4)
    assert tuple(binder.bind([], {'a': 10, 'b': 20, 'd': 4})) == (10, 20, 1, 4)

    # case 3: foo(10, b=20)
    assert tuple(binder.bind([10], {'b': 20})) == (10, 20, 1, 2)

    # assert len(self._arg_names) >= len(args)
    with pytest.raises(TypeError, match="foo_func"):
        binder.bind([10, 20, 30, 40, 50], {'c': 4})

    # assert arg_name should be in kwargs
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        binder.bind([10], {'c': 4})


def test_args_to_input_spec():
    a_spec = InputSpec([None, 10], name='a')
    b_spec = InputSpec([10], name='b')

    a_tensor = paddle.ones([4, 10])
    b_tensor = paddle.ones([4, 10])

    # case 1
    input_with_spec = to_specs([a_tensor, paddle.ones([10]), 1, 2], [a_spec, b_spec])
    assert len(input_with_spec) == 4
    assert (input_with_spec[0].shape, input_with_spec[0].name) == (a_spec.shape, 'a')  # a
    assert (input_with_spec[1].shape, input_with_spec[1].name) == (b_spec.shape, 'b')  # b
    assert input_with_spec[2] == 1  # c
    assert input_with_spec[3] == 2  # d

    # case 2
    input_with_spec = to_specs([a_tensor, b_tensor], [a_spec])
    assert len(input_with_spec) == 2
    assert input_with_spec[0].name == 'a'  # a
    assert tuple(input_with_spec[1].shape) == (4, 10)  # b.shape

    # case 3: a keyword with input_spec (Paddle: ValueError) is bound as Python binds it
    foo = declarative(foo_func, input_spec=[a_spec])
    out = foo(a_tensor, b_tensor, c=4)
    assert out.shape == [4, 10]

    # case 4
    # assert len(args) >= len(self._input_spec)
    foo = declarative(foo_func, input_spec=[a_spec, b_spec])
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        foo.get_concrete_program(a_tensor)

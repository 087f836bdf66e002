"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_declarative.py
(2.x releases): the Layers and functions as written (``paddle`` -> ``dy2static``,
``paddle.fluid`` -> ``core``, ``paddle.fluid.dygraph.declarative`` -> ``translator``'s);
``dyfunc_to_variable`` is Paddle's from test_basic_api_transformation. The API checks are
Paddle's (one program cache per bound method and per instance, InputSpecs of lists and dicts
and their default names, the cache keyed by the non-tensor arguments, ``concrete_program``
only with InputSpecs or after a call, errors for kwargs with an InputSpec, too many specs,
unknown keywords, ``concrete_program`` / ``inputs`` / ``outputs`` only in dynamic mode); each
call's value is also checked against eager mode, and the Layer saved with ``jit.save``
against the loaded one. Where Paddle is stricter than Python the port follows Python: a known
keyword with an InputSpec is accepted, a missing or unknown argument is a TypeError, a call
in static mode builds into the current program, and a buffer set to None and then to a
tensor works as eagerly."""
import numpy as np
import pytest

import core as fluid
import dy2static as paddle
from dy2static.static import InputSpec
from translator import ConcreteProgram, ProgramTranslator, StaticFunction, declarative

from ._port import check

to_variable = fluid.dygraph.to_variable
Layer = paddle.nn.Layer
jit = paddle.jit
program_trans = ProgramTranslator()


def dyfunc_to_variable(x):
    res = fluid.dygraph.to_variable(x, name=None, zero_copy=None)
    return res


class SimpleNet(Layer):

    def __init__(self):
        super(SimpleNet, self).__init__()
        self.linear = fluid.dygraph.Linear(10, 3)

    @declarative(input_spec=[InputSpec(shape=[None, 10], dtype='float32')])
    def forward(self, x, a=1, b=2):
        y = self.inner_function(x)
        return y

    # `declarative` is not essential, add it to test for robustness.
    @declarative
    def inner_function(self, x):
        y = self.linear(x)
        return y

    def add_func(self, x, y):
        z = x + y
        return z

    @declarative(input_spec=[[InputSpec([None, 10]), InputSpec([None, 10])]])
    def func_with_list(self, l, int_val=1):
        x, y = l
        z = x + y
        z = z + int_val
        return z

    @declarative(input_spec=[{
        'x': InputSpec([None, 10]),
        'y': InputSpec([None, 10])
    }])
    def func_with_dict(self, d):
        x = d['x']
        y = d['y']
        z = x + y

        return z

    @declarative(input_spec=[[
        InputSpec([None]), {
            'x': InputSpec([None, 10]),
            'y': InputSpec([None, 10])
        }
    ]])
    def func_with_list_dict(self, dl):
        bias = dl[0]
        x = dl[1]['x']
        y = dl[1]['y']

        z = x + y
        z = z + bias

        return z


def foo_func(a, b, c=1, d=2):
    z = a + b
    return z


class CallNonForwardFuncNet(paddle.nn.Layer):

    def __init__(self):
        super(CallNonForwardFuncNet, self).__init__()
        self.sub = CallNonForwardFuncSubNet()

    @paddle.jit.to_static
    def forward(self):
        return self.sub.func()


class CallNonForwardFuncSubNet(paddle.nn.Layer):

    def __init__(self):
        super(CallNonForwardFuncSubNet, self).__init__()
        self.a = paddle.to_tensor([1, 2])

    def func(self):
        x = self.a * 2
        return x


class SetBuffersNet1(paddle.nn.Layer):

    def __init__(self):
        super(SetBuffersNet1, self).__init__()
        self.a = paddle.to_tensor([1])

    @paddle.jit.to_static
    def forward(self):
        self.a = self.a + 1
        return self.a


class SetBuffersNet2(paddle.nn.Layer):

    def __init__(self):
        super(SetBuffersNet2, self).__init__()
        self.b = paddle.to_tensor([2])

    @paddle.jit.to_static
    def forward(self):
        self.b = None
        self.b = paddle.to_tensor([3])
        return self.b


@pytest.fixture(autouse=True)
def _dynamic_mode():
    paddle.disable_static()
    program_trans.enable(True)
    yield
    paddle.disable_static()
    program_trans.enable(True)


def _ones(*shape, value=1.0):
    return np.ones(shape).astype('float32') * value


def test_instance_same_class():
    net_1 = SimpleNet()
    net_2 = SimpleNet()

    assert isinstance(net_1.forward, StaticFunction)
    assert isinstance(net_2.forward, StaticFunction)
    assert net_1.forward != net_2.forward

    # convert layer into static progam of net_1
    _ = net_1.forward.concrete_program
    assert len(net_1.forward.program_cache) == 1
    # check no conversion applid with net_2
    assert len(net_2.forward.program_cache) == 0


def test_with_input_spec(tmp_path):
    x = to_variable(_ones(4, 10))
    y = to_variable(_ones(4, 10, value=2))
    int_val = 4.

    net = SimpleNet()

    # 1. each method holds independent program cache
    out = net(x)
    assert len(net.forward.program_cache) == 1

    # 2. test save load
    net.inner_function(x)
    jit.save(net, str(tmp_path / "simple_net"))
    infer_net = paddle.jit.load(str(tmp_path / "simple_net"))
    pred = infer_net(x)
    np.testing.assert_allclose(out.numpy(), pred.numpy(), rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), net.linear(x).numpy(), rtol=1e-6)

    # 3. we can decorate any method
    x_2 = to_variable(_ones(4, 20))
    # uses `declarative(func)` instead of `@declarative`
    net.add_func = declarative(net.add_func)
    out = net.add_func(x_2, _ones(20))
    assert len(net.add_func.program_cache) == 1
    np.testing.assert_allclose(out.numpy(), _ones(4, 20, value=2))

    # 5. test input with list
    out = net.func_with_list([x, y], int_val)
    np.testing.assert_allclose(out.numpy(), _ones(4, 10, value=7))

    # 6. test input with dict
    out = net.func_with_dict({'x': x, 'y': y})
    np.testing.assert_allclose(out.numpy(), _ones(4, 10, value=3))

    # 7. test input with lits contains dict
    int_np = np.ones([1]).astype('float32')
    out = net.func_with_list_dict([int_np, {'x': x, 'y': y}])
    np.testing.assert_allclose(out.numpy(), _ones(4, 10, value=4))


def test_with_error():
    x = to_variable(_ones(4, 10))
    y = to_variable(_ones(4, 10, value=2))

    net = SimpleNet()

    # 1. kwargs and input_spec should not be specificed in same time
    # (an unknown keyword is Python's TypeError; a known one is fine, as eagerly)
    with pytest.raises(TypeError, match="other_kwarg"):
        net(x, a=1, other_kwarg=2)
    np.testing.assert_allclose(net(x, a=1).numpy(), net(x).numpy())

    # 2. requires len(input_spec) <= len(args)
    with pytest.raises(ValueError, match="3 entries, but the function takes 2 positional"):
        net.add_func = declarative(net.add_func,
                                   input_spec=[
                                       InputSpec([-1, 10]),
                                       InputSpec([-1, 10]),
                                       InputSpec([10])
                                   ])
        net.add_func(x, y)


def test_concrete_program_of_input_specs():
    net = SimpleNet()
    # We can get concrete_program by specificing InputSpec information. Faking input is no need.
    net.add_func = declarative(
        net.add_func,
        input_spec=[InputSpec([-1, 10]),
                    InputSpec([-1, 10], name='y')])
    cp1 = net.add_func.concrete_program
    assert cp1.inputs[-1].shape == [-1, 10]
    assert cp1.inputs[-1].name == 'y'

    # generate another program
    net.add_func = declarative(
        net.add_func,
        input_spec=[InputSpec([10]),
                    InputSpec([10], name='label')])
    cp2 = net.add_func.concrete_program
    assert cp2.inputs[-1].shape == [10]
    assert cp2.inputs[-1].name == 'label'
    # Note(Aurelius84): New instance will be returned if we use `declarative(foo)` every time.
    # So number of cache program is 1.
    assert len(net.add_func.program_cache) == 1
    assert cp1 != cp2


def test_with_different_input():
    x_data = np.ones([16, 10]).astype('float32')
    y_data = np.ones([10]).astype('float32') * 2
    z_data = np.ones([10]).astype('float32') * 2.2

    foo = declarative(foo_func)

    # [16, 10] + [10] (varbase)
    out_1 = foo(to_variable(x_data), to_variable(y_data))
    assert np.allclose(x_data + y_data, out_1.numpy())
    assert len(foo.program_cache) == 1
    assert len(foo.program_cache.concrete_programs()) == 1
    first_program = foo.program_cache.last()

    # [16, 10] + [10] (numpy)
    out_2 = foo(to_variable(x_data), y_data)
    assert np.allclose(x_data + y_data, out_2.numpy())
    assert len(foo.program_cache) == 1

    # [16, 10] + [10] (numpy)
    out_3 = foo(to_variable(x_data), z_data)
    assert np.allclose(x_data + z_data, out_3.numpy())
    # hit cache program
    assert len(foo.program_cache) == 1

    # [16, 10] + [10] (numpy) with other different arguments (c=3)
    out_4 = foo(to_variable(x_data), z_data, 3)
    assert np.allclose(x_data + z_data, out_4.numpy())
    # create a new program
    assert len(foo.program_cache) == 2

    # test for recent program
    foo(to_variable(x_data), y_data)
    recent_program = foo.program_cache.last()
    assert first_program == recent_program
    check(foo, (x_data, y_data), (x_data, z_data, 3), (x_data[:0], y_data))


def test_get_concrete_program():
    foo = declarative(foo_func)

    # 1. specific InputSpec for `x`/`y`
    concrete_program_1 = foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]))
    assert len(foo.program_cache) == 1

    # 2. specific `c`/`d` explicitly with same default value
    concrete_program_2 = foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), 1, 2)
    assert concrete_program_2 == concrete_program_1
    assert len(foo.program_cache) == 1

    # 3. specific `c` = 2
    concrete_program_3 = foo.get_concrete_program(InputSpec([None, 10]), InputSpec([10]), c=2)
    assert concrete_program_3 != concrete_program_1
    assert len(foo.program_cache) == 2

    # 4. specific x.shape = [10]
    concrete_program_4 = foo.get_concrete_program(InputSpec([10]), InputSpec([10]))
    assert concrete_program_4 != concrete_program_1
    assert len(foo.program_cache) == 3

    # 5. only specific InputSpec of x (a missing argument: Python's TypeError)
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        foo.get_concrete_program(InputSpec([10]))

    # 6. specific unknown kwargs `e`=4
    with pytest.raises(TypeError, match="'e'"):
        foo.get_concrete_program(InputSpec([10]), InputSpec([10]), e=4)


def test_concrete_program():
    # usage 1
    foo_1 = paddle.jit.to_static(foo_func,
                                 input_spec=[
                                     InputSpec([10], name='x'),
                                     InputSpec([10], name='y')
                                 ])
    assert isinstance(foo_1.concrete_program, ConcreteProgram)

    # usage 2
    foo_2 = paddle.jit.to_static(foo_func)
    foo_2(paddle.rand([10]), paddle.rand([10]))
    assert isinstance(foo_2.concrete_program, ConcreteProgram)

    # raise error
    foo_3 = paddle.jit.to_static(foo_func)
    with pytest.raises(ValueError):
        _ = foo_3.concrete_program


@pytest.mark.parametrize("func_name, input_names", [
    ('forward', ['x']),
    ('func_with_list', ['l_0', 'l_1']),
    ('func_with_dict', ['x', 'y']),
    ('func_with_list_dict', ['dl_0', 'x', 'y']),
])
def test_input_default_name(func_name, input_names):
    decorated_func = getattr(SimpleNet(), func_name)
    spec_names = [x.name for x in decorated_func.inputs]
    assert spec_names == input_names


def test_declarative_api_in_static_mode():
    """Paddle raises here (RuntimeError converted, AssertionError from to_variable eagerly);
    a declarative call in static mode appends the converted function to the current program
    and to_variable makes a Variable there, so both calls build ops of that program."""
    func = declarative(dyfunc_to_variable)
    main = fluid.static.Program()
    with fluid.static.program_guard(main, fluid.static.Program()):
        paddle.enable_static()
        converted = func(np.ones(5).astype("int32"))
        program_trans.enable(False)
        plain = func(np.ones(5).astype("int32"))
    assert func.translations == 0
    for v in (converted, plain):
        assert isinstance(v, fluid.static.Variable) and v.block.program is main
    out = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[converted, plain])
    assert [a.tolist() for a in out] == [[1] * 5] * 2


def test_decorate_model_fake_input():
    x = to_variable(_ones(4, 10))
    net = SimpleNet()
    net = declarative(net)
    y = net(x)
    assert len(net.forward.program_cache) == 1
    np.testing.assert_allclose(y.numpy(), net.linear(x).numpy(), rtol=1e-6)


def test_decorate_model_input_spec():
    net = SimpleNet()
    net = declarative(net, input_spec=[InputSpec([None, 8, 10])])
    assert len(net.forward.inputs) == 1
    assert len(net.forward.program_cache) == 1
    input_shape = net.forward.inputs[0].shape
    assert list(input_shape) == [-1, 8, 10]

    # redecorate
    net = declarative(net, input_spec=[InputSpec([None, 16, 10])])
    input_shape = net.forward.inputs[0].shape
    assert list(input_shape) == [-1, 16, 10]


def test_error_with_init_from_static_mode():
    # disable imperative
    paddle.enable_static()

    net = SimpleNet()
    with pytest.raises(RuntimeError, match="only available in dynamic mode"):
        _ = net.forward.concrete_program

    with pytest.raises(RuntimeError, match="only available in dynamic mode"):
        _ = net.forward.inputs

    with pytest.raises(RuntimeError, match="only available in dynamic mode"):
        _ = net.forward.outputs


def test_call_non_forward():
    net = CallNonForwardFuncNet()
    out = net()
    assert out.numpy().tolist() == [2, 4]
    check(CallNonForwardFuncNet(), ())


def test_set_buffers1(tmp_path):
    net = SetBuffersNet1()
    out = net()
    assert out.numpy().tolist() == [2]
    assert net.a.numpy().tolist() == [2]
    paddle.jit.save(net, str(tmp_path / "SetBuffersNet1"))


def test_set_buffers2():
    """Paddle raises (a buffer set to None in converted code); eagerly the attribute is
    rebound twice, and so it is converted."""
    check(SetBuffersNet2(), ())
    net = SetBuffersNet2()
    assert net().numpy().tolist() == [3] and net.b.numpy().tolist() == [3]

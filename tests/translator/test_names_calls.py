"""Names and calls in converted code keep Python's meaning, checked three ways (eagerly,
through ``declarative``, and as a Program run by ``core.Executor``) on inputs that take every
path: names that shadow builtins, self-recursion, dataclass / namedtuple results,
``x.item()`` / ``float(x)`` / ``int(x)`` of a tensor, sublayers held in containers, and
keyword arguments a function does not take."""
import collections
import dataclasses

import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative

from .three_way import check_three_ways, run_declarative, run_eager, run_program


def f32(*values):
    return np.array(values, dtype=np.float32)


# -- names that shadow builtins ---------------------------------------------------------------

def _my_len(x):
    return x * 10


def _my_print(*args):
    return len(args)


def local_len(x):
    len = _my_len
    return len(x)


def closure_names(x):
    int = _my_len
    range = lambda n: [n, n]  # noqa: E731

    def inner(y):
        total = y
        for r in range(2):
            total = total + r
        return int(total)

    return inner(x)


def local_print_and_isinstance(x):
    print = _my_print
    isinstance = lambda value, kind: True  # noqa: E731
    n = print(x, x, x)
    if isinstance(x, str):
        x = x + n
    return x


def local_zip_enumerate_float(x):
    zip = lambda a, b: [(a, b)]  # noqa: E731
    enumerate = lambda items: [(7, items)]  # noqa: E731
    float = lambda v: v * 2  # noqa: E731
    out = x
    for a, b in zip(x, 3):
        out = out + a * b
    for k, v in enumerate(x):
        out = out + k + v
    return float(out)


class _Helper:
    def scaled(self, x):
        return x * 3


def nested_super(x):
    def super():
        return _Helper()

    return super().scaled(x)


# a global that shadows a builtin: calls in converted code must reach it
def len(x):
    return x + 100


def global_len(x):
    return len(x)


@pytest.mark.parametrize("fn", [local_len, closure_names, local_print_and_isinstance,
                                local_zip_enumerate_float, nested_super, global_len])
def test_names_shadowing_builtins_are_the_users(fn):
    check_three_ways(declarative(fn), (f32(1.0, 2.0, 3.0),), (f32(-4.0),))


def test_builtins_still_convert_when_not_shadowed():
    def f(x):
        n = builtins_len(x)
        if x.sum() > 0:  # a tensor condition
            x = x + n
        return x

    builtins_len = __builtins__["len"] if isinstance(__builtins__, dict) else __builtins__.len
    check_three_ways(declarative(f), (f32(1.0, 2.0),), (f32(-1.0, -2.0),))


class _Base(core.nn.Layer):
    def forward(self, x):
        return x * 2


class _Child(_Base):
    def forward(self, x):
        y = super().forward(x)
        if core.layers.reduce_sum(y) > 0:
            y = y + 1
        return y


def test_zero_argument_super_in_a_method_still_works():
    net = _Child()
    declarative(net)
    check_three_ways(net, (f32(1.0, 2.0),), (f32(-1.0, -2.0),))


# -- self-recursion --------------------------------------------------------------------------

def power(x, n):
    if n == 1:
        return x
    return x * power(x, n - 1)


def factorial_scaled(x, n):
    """Recursion on a Python int inside a tensor-dependent computation."""
    if n <= 1:
        return x
    y = factorial_scaled(x, n - 1) * n
    if core.layers.reduce_sum(y) > 100:  # a tensor condition in the recursion's result
        y = y / 2
    return y


@pytest.mark.parametrize("n", [1, 2, 5])
def test_self_recursion_ending_on_a_python_value(n):
    check_three_ways(declarative(power), (f32(2.0, 3.0), n))
    check_three_ways(declarative(factorial_scaled), (f32(1.0, 3.0), n))


@declarative
def declared_power(x, n):
    if n <= 1:
        return x
    return x * declared_power(x, n - 1)


def test_declarative_self_recursion():
    check_three_ways(declared_power, (f32(3.0), 3), (f32(3.0), 1))
    with pytest.raises(RecursionError, match="declared_power calls itself without end"):
        declared_power(core.to_tensor(f32(2.0)), core.to_tensor(np.array(3, dtype=np.int64)))


def test_nested_recursive_function():
    def outer(x, n):
        def fib(k):
            return k if k < 2 else fib(k - 1) + fib(k - 2)

        return x * fib(n)

    check_three_ways(declarative(outer), (f32(1.5), 6), (f32(1.5), 0))


def test_recursion_ending_on_a_tensor_is_a_clear_error():
    fn = declarative(power)
    x = core.to_tensor(f32(2.0))
    n = core.to_tensor(np.array(3, dtype=np.int64))
    with pytest.raises(RecursionError, match=r"power calls itself without end.*Python value"):
        fn(x, n)
    assert run_eager(power, (f32(2.0), 3)).numpy().tolist() == [8.0]


# -- dataclass and namedtuple results ---------------------------------------------------------

@dataclasses.dataclass
class Pair:
    first: object
    second: object
    label: str = "pair"


@dataclasses.dataclass(frozen=True)
class Frozen:
    value: object


Stats = collections.namedtuple("Stats", ["mean", "top"])


def make_structures(x):
    pair = Pair(x + 1, {"twice": x * 2, "n": 3})
    if core.layers.reduce_sum(x) > 0:
        top = x
    else:
        top = -x
    return pair, Frozen(x - 1), Stats(core.layers.reduce_mean(x), top)


def _check_structures(got, x, leaf_type):
    pair, frozen, stats = got
    assert type(pair) is Pair and type(frozen) is Frozen and type(stats) is Stats
    assert pair.label == "pair" and pair.second["n"] == 3
    for value in (pair.first, pair.second["twice"], frozen.value, stats.mean, stats.top):
        assert isinstance(value, leaf_type), type(value)
    np.testing.assert_allclose(np.asarray(pair.first), x + 1)
    np.testing.assert_allclose(np.asarray(pair.second["twice"]), x * 2)
    np.testing.assert_allclose(np.asarray(frozen.value), x - 1)
    np.testing.assert_allclose(np.asarray(stats.mean), x.mean(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(stats.top), x if x.sum() > 0 else -x)


@pytest.mark.parametrize("x", [f32(1.0, 2.0), f32(-3.0, 1.0)])
def test_dataclass_and_namedtuple_results_carry_tensors(x):
    fn = declarative(make_structures)
    _check_structures(run_eager(fn, (x,)), x, core.Tensor)
    _check_structures(run_declarative(fn, (x,)), x, core.Tensor)
    # the Executor fetches arrays; pack_outputs rebuilds the same structure around them
    _check_structures(run_program(fn, (x,)), x, np.ndarray)


def test_dataclass_result_gradient_flows():
    x = core.to_tensor(f32(1.0, 2.0), stop_gradient=False)
    pair = declarative(make_structures)(x)[0]
    core.layers.reduce_sum(pair.first * pair.second["twice"]).backward()
    np.testing.assert_allclose(x.gradient(), 4 * np.array([1.0, 2.0]) + 2)


# -- x.item(), float(x), int(x) ---------------------------------------------------------------

def python_scalars(x, a0):
    a, b, c = x.item(), float(x), int(x)
    return (x + a) * b - c + a0


def scalar_in_condition(x):
    v = float(x)
    if v > 1.5:  # the Python float is a tensor in the program: a tensor condition
        return x * v
    return x - int(x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_item_float_int_keep_eager_dtypes(dtype):
    for value in (2.7, -2.7, 0.5):
        x = np.array([value], dtype=dtype)
        check_three_ways(declarative(python_scalars), (x, 1.25))


def test_item_of_a_0d_integer_tensor_and_truncation():
    def f(n, x):
        k = n.item()
        return x * k + int(x)

    check_three_ways(declarative(f), (np.array(3, dtype=np.int64), f32(-2.5)),
                     (np.array(-2, dtype=np.int64), f32(2.5)))
    # int() of two elements: eager's ValueError, raised while the program is built
    check_three_ways(declarative(f), (np.array(3, dtype=np.int64), f32(-2.5, 2.5)))


def test_scalar_in_a_condition_takes_both_paths():
    check_three_ways(declarative(scalar_in_condition), (f32(2.0),), (f32(1.0),))


def test_item_of_many_elements_is_an_error_naming_item():
    fn = declarative(lambda_free_item)
    with pytest.raises(ValueError, match=r"item\(\) needs a tensor with exactly one element"):
        fn(core.to_tensor(f32(1.0, 2.0)))


def lambda_free_item(x):
    return x.item()


def test_item_of_other_objects_is_their_own():
    def f(x, d):
        return x * d.item()

    class Box:
        def item(self):
            return 4.0

    check_three_ways(declarative(f), (f32(1.0, 2.0), Box()))


# -- sublayers in containers ------------------------------------------------------------------

class Clip(core.nn.Layer):
    def forward(self, x):
        if core.layers.reduce_sum(x) > 0:
            x = x * 0.5
        else:
            x = x - 1
        return x


class ContainerNet(core.nn.Layer):
    """PaddlePaddle's test_container pattern: Linear layers and a Layer with tensor control
    flow held in Sequential (named and nested), LayerList and LayerDict."""

    def __init__(self):
        super().__init__()
        self.seq = core.nn.Sequential(("l1", core.nn.Linear(3, 3)), ("clip", Clip()))
        self.nested = core.nn.Sequential(core.nn.Sequential(Clip(), core.nn.ReLU()), Clip())
        self.items = core.nn.LayerList([Clip(), core.nn.Linear(3, 3)])
        self.named = core.nn.LayerDict({"clip": Clip()})

    def forward(self, x):
        y = self.seq(x)
        y = self.nested(y)
        for layer in self.items:
            y = layer(y)
        return self.named["clip"](y) + self.items[0](x)


@pytest.mark.parametrize("value", [1.0, -1.0, 0.01])
def test_layers_in_containers_are_converted(value):
    core.seed(3)
    net = declarative(ContainerNet())
    check_three_ways(net, (np.full([2, 3], value, np.float32),))
    program = net.forward.get_concrete_program(
        core.to_tensor(np.full([2, 3], value, np.float32))).main_program
    assert sum(op.type == "cond" for op in program.global_block().ops) >= 5


def test_sequential_in_eval_mode_keeps_its_flag():
    net = declarative(ContainerNet())
    net.eval()
    x = np.full([2, 3], 2.0, np.float32)
    check_three_ways(net, (x,))
    assert not net.seq.training


# -- keyword arguments ------------------------------------------------------------------------

def double(x, scale=2):
    return x * scale


@pytest.mark.parametrize("kwargs", [{"xx": 1.0}, {"x": 1.0, "scael": 3}])
def test_unexpected_keyword_is_named_as_python_names_it(kwargs):
    kwargs = {k: core.to_tensor(f32(v)) if k == "x" else v for k, v in kwargs.items()}
    bad = next(k for k in kwargs if k not in ("x", "scale"))
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{bad}'") as eager:
        double(**kwargs)
    with pytest.raises(TypeError, match=rf"double\(\) got an unexpected keyword argument "
                                        rf"'{bad}'"):
        declarative(double)(**kwargs)
    with pytest.raises(TypeError, match=rf"'{bad}'"):
        ProgramTranslator().get_program(declarative(double), **kwargs)
    assert bad in str(eager.value)


def test_keywords_that_exist_still_bind():
    check_three_ways(declarative(double), (f32(1.0, 2.0), 3))
    out = declarative(double)(x=core.to_tensor(f32(1.0)), scale=4)
    np.testing.assert_allclose(out.numpy(), [4.0])

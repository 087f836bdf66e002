"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_ifelse.py
and the functions it imports from ifelse_simple_func.py (2.x releases).

Bodies as Paddle wrote them; only the namespaces change (``paddle`` -> ``dy2static``,
``paddle.fluid`` -> ``core``), and ``paddle.mean(x).numpy()[0]`` reads ``.numpy()``: a
reduction over all axes is 0-d here (as in PaddlePaddle >= 2.5, whose copy of these tests
reads the same). Each function runs on inputs that take every branch."""
import pytest

import core as fluid
import dy2static as paddle

from translator import declarative

from ..three_way import run_declarative, run_eager
from ._port import check, f32, i64

LOW = f32(10, 16, low=-1.0, high=0.0)       # mean < 0
MID = f32(10, 16)                            # 0 < mean < 5
HIGH = f32(10, 16, low=5.0, high=9.0, seed=1)  # mean > 5
INPUTS = [LOW, MID, HIGH]


def add_fn(x):
    x = x + 1
    return x


def loss_fn(x, lable):
    loss = fluid.layers.cross_entropy(x, lable)
    return loss


def dyfunc_empty_nonlocal(x):
    flag = True
    if flag:
        print("It's a test for empty nonlocal stmt")

    if paddle.mean(x) < 0:
        x + 1

    out = x * 2
    return out


def dyfunc_with_if_else(x_v, label=None):
    if paddle.mean(x_v).numpy() > 5:
        x_v = x_v - 1
    else:
        x_v = x_v + 1
    # plain if in python
    if label is not None:
        loss = fluid.layers.cross_entropy(x_v, label)
        return loss
    return x_v


def dyfunc_with_if_else2(x, col=100):
    row = 0
    if abs(col) > x.shape[-1]:
        # TODO: Don't support return non-Tensor in Tensor-dependent `if` stament currently.
        #  `x` is Tensor, `col` is not Tensor, and `col` is the return value of `true_fn` after transformed.
        # col = -1
        col = fluid.layers.fill_constant(shape=[1], value=-1, dtype="int64")
    if fluid.layers.reduce_mean(x).numpy() > x.numpy()[row][col]:
        y = fluid.layers.relu(x)
    else:
        x_pow = fluid.layers.pow(x, 2)
        y = fluid.layers.tanh(x_pow)
    return y


def dyfunc_with_if_else3(x):
    # Create new var in parent scope, return it in true_fn and false_fn.
    # The var is created only in one of If.body or If.orelse node, and it used as gast.Load firstly after gast.If node.
    y = x + 1
    # NOTE: x_v[0] < 5 is True
    if paddle.mean(x).numpy() < 5:
        x = x + 1
        z = x + 2
        q = x + 3
    else:
        y = y + 1
        z = x - 2
        m = x + 2
        n = x + 3

    q = q + 1
    n = q + 2
    x = n
    return x


def dyfunc_with_if_else_early_return1():
    x = paddle.to_tensor([10])
    if x == 0:
        a = paddle.zeros([2, 2])
        b = paddle.zeros([3, 3])
        return a, b
    a = paddle.zeros([2, 2]) + 1
    return a, None


def dyfunc_with_if_else_early_return2():
    x = paddle.to_tensor([10])
    if x == 0:
        a = paddle.zeros([2, 2])
        b = paddle.zeros([3, 3])
        return a, b
    elif x == 1:
        c = paddle.zeros([2, 2]) + 1
        d = paddle.zeros([3, 3]) + 1
        return c, d
    e = paddle.zeros([2, 2]) + 3
    return e, None


def dyfunc_with_if_else_with_list_geneator(x):
    if 10 > 5:
        y = paddle.add_n(
            [paddle.full(shape=[2], fill_value=v) for v in range(5)]
        )
    else:
        y = x
    return y


def nested_if_else(x_v):
    batch_size = 16
    feat_size = x_v.shape[-1]
    bias = fluid.layers.fill_constant([feat_size], dtype='float32', value=1)
    if x_v.shape[0] != batch_size:
        # TODO: Don't support return non-Tensor in Tensor-dependent `if` stament currently.
        #  `x_v.shape[0]` is not Tensor, and `batch_size` is the return value of `true_fn` after transformed.
        # col = -1
        # batch_size = x_v.shape[0]
        batch_size = fluid.layers.shape(x_v)[0]

    # if tensor.shape is [1], now support to compare with numpy.
    if paddle.mean(x_v).numpy() < 0:
        y = x_v + bias
        w = fluid.layers.fill_constant([feat_size], dtype='float32', value=10)
        if y.numpy()[0] < 10:
            tmp = y * w
            y = fluid.layers.relu(tmp)
            if paddle.mean(y).numpy() < batch_size:
                y = fluid.layers.abs(y)
            else:
                tmp = fluid.layers.fill_constant(
                    y.shape, dtype='float32', value=-1
                )
                y = y - tmp
    else:
        y = x_v - bias
    return y


def nested_if_else_2(x):
    y = fluid.layers.reshape(x, [-1, 1])
    b = 2
    if b < 1:
        # var `z` is not visible for outer scope
        z = y
    x_shape_0 = x.shape[0]
    if x_shape_0 < 1:
        if fluid.layers.shape(y).numpy()[0] < 1:
            res = fluid.layers.fill_constant(
                value=2, shape=x.shape, dtype="int32"
            )
            # `z` is a new var here.
            z = y + 1
        else:
            res = fluid.layers.fill_constant(
                value=3, shape=x.shape, dtype="int32"
            )
    else:
        res = x
    return res


def nested_if_else_3(x):
    y = fluid.layers.reshape(x, [-1, 1])
    b = 2
    # var `z` is visible for func.body
    if b < 1:
        z = y
    else:
        z = x

    if b < 1:
        res = x
        # var `out` is only visible for current `if`
        if b > 1:
            out = x + 1
        else:
            out = x - 1
    else:
        y_shape = fluid.layers.shape(y)
        if y_shape.numpy()[0] < 1:
            res = fluid.layers.fill_constant(
                value=2, shape=x.shape, dtype="int32"
            )
            # `z` is created in above code block.
            z = y + 1
        else:
            res = fluid.layers.fill_constant(
                value=3, shape=x.shape, dtype="int32"
            )
            # `out` is a new var.
            out = x + 1
    return res


class NetWithControlFlowIf(fluid.dygraph.Layer):
    def __init__(self, hidden_dim=16):
        super(NetWithControlFlowIf, self).__init__()
        self.hidden_dim = hidden_dim
        self.fc = fluid.dygraph.Linear(
            input_dim=hidden_dim,
            output_dim=5,
            param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.99)
            ),
            bias_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(value=0.5)
            ),
        )
        self.alpha = 10.0
        self.constant_vars = {}

    @paddle.jit.to_static
    def forward(self, input):
        hidden_dim = input.shape[-1]
        if hidden_dim != self.hidden_dim:
            raise ValueError(
                "hidden_dim {} of input is not equal to FC.weight[0]: {}".format(
                    hidden_dim, self.hidden_dim
                )
            )

        self.constant_vars['bias'] = fluid.layers.fill_constant(
            [5], dtype='float32', value=1
        )
        # Control flow `if` statement
        fc_out = self.fc(input)
        if paddle.mean(fc_out).numpy() < 0:
            y = fc_out + self.constant_vars['bias']
            self.constant_vars['w'] = fluid.layers.fill_constant(
                [5], dtype='float32', value=10
            )
            if y.numpy()[0] < self.alpha:
                # Create new var, but is not used.
                x = 10
                tmp = y * self.constant_vars['w']
                y = fluid.layers.relu(tmp)
                # Nested `if/else`
                if y.numpy()[-1] < self.alpha:
                    # Modify variable of class
                    self.constant_vars['w'] = fluid.layers.fill_constant(
                        [hidden_dim], dtype='float32', value=9
                    )
                    y = fluid.layers.abs(y)
                else:
                    tmp = fluid.layers.fill_constant(
                        y.shape, dtype='float32', value=-1
                    )
                    y = y - tmp
        else:
            y = fc_out - self.constant_vars['bias']

        loss = paddle.mean(y)
        return loss


def if_with_and_or(x_v, label=None):
    batch_size = fluid.layers.shape(x_v)
    if (
        x_v is not None
        and (paddle.mean(x_v).numpy() > 0 or label is not None)
        and batch_size[0] > 1
        and True
    ):
        x_v = x_v - 1
    else:
        x_v = x_v + 1

    if label is not None:
        loss = fluid.layers.cross_entropy(x_v, label)
        return loss
    return x_v


def if_with_and_or_1(x, y=None):
    batch_size = fluid.layers.shape(x)
    if batch_size[0] > 1 and y is not None:
        x = x + 1
    if y is not None or batch_size[0] > 1:
        x = x - 1
    return x


def if_with_and_or_2(x, y=None):
    batch_size = fluid.layers.shape(x)
    if x is not None and batch_size[0] > 1 and y is not None:
        x = x + 1
    if batch_size[0] > 1 or y is not None or x is not None:
        x = x - 1
    return x


def if_with_and_or_3(x, y=None):
    batch_size = fluid.layers.shape(x)
    mean_res = paddle.mean(x)
    if (
        x is not None
        and batch_size[0] > 1
        and y is not None
        and mean_res.numpy() > 0
    ):
        x = x + 1
    if mean_res.numpy() > 0 and (x is not None and batch_size[0] > 1) and y:
        x = x - 1
    return x


def if_with_and_or_4(x, y=None):
    batch_size = fluid.layers.shape(x)
    mean_res = paddle.mean(x)
    if (x is not None and batch_size[0] > 1) or (
        y is not None and mean_res.numpy() > 0
    ):
        x = x + 1
    if (x is not None or batch_size[0] > 1) and (
        y is not None or mean_res.numpy() > 0
    ):
        x = x - 1
    return x


def if_with_class_var(x, y=None):
    class Foo(object):
        def __init__(self):
            self.a = 1
            self.b = 2

    foo = Foo()
    batch_size = fluid.layers.shape(x)
    mean_res = paddle.mean(x)

    if batch_size[0] > foo.a:
        x = x + foo.b
    else:
        x = x - foo.b
    return x


def if_tensor_case(x):
    x = fluid.dygraph.to_variable(x)

    mean = paddle.mean(x)
    # It is equivalent to `if mean != 0`
    if mean:
        for i in range(0, 10):
            if i > 5:
                x += 1
                break
            x += 1
    else:
        for i in range(0, 37):
            x += 1
            break
            x += i

    # join `and`/`or`
    if paddle.mean(x) + 1 and mean > 1 and x is not None or 2 > 1:
        x -= 1

    # `not` statement
    if not (x[0][0] and (mean * x)[0][0]):
        x += 1

    return x


def dyfunc_ifelse_ret_int1(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return y, index
    else:
        y = x[index] + 2
        index = index + 1
        return y, index


def dyfunc_ifelse_ret_int2(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return y, index
    else:
        y = x[index] + 2
        index = index + 1
        return y


def dyfunc_ifelse_ret_int3(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return index
    else:
        y = x[index] + 2
        return y


def dyfunc_ifelse_ret_int4(x):
    index = 0
    pred = paddle.to_tensor([1])
    if pred:
        y = x[index] + 1
        index = index + 1
        return 'unsupport ret'
    else:
        y = x[index] + 2
        return y


LABEL = i64(*range(10)).reshape(10, 1)
PROBS = f32(10, 16, low=0.1, high=1.0, seed=2)


@pytest.mark.parametrize("fn", [
    dyfunc_empty_nonlocal, dyfunc_with_if_else, dyfunc_with_if_else2, nested_if_else_2, nested_if_else_3, if_with_and_or, if_with_and_or_1, if_with_and_or_2,
    if_with_and_or_4, if_with_class_var, if_tensor_case, add_fn,
], ids=lambda fn: fn.__name__)
def test_tensor_if_on_every_branch(fn):
    # batch 10 and 16 (nested_if_else's batch-size test), 1 (the shape tests' other side)
    check(fn, *[(x,) for x in INPUTS], (f32(16, 16, low=-1.0, high=0.0),), (f32(1, 16),),
          (f32(1, 16, low=-1.0, high=0.0),))


def test_nested_if_else_with_its_multi_element_condition():
    # nested_if_else's ``if y.numpy()[0] < 10`` tests a row of 16: eagerly numpy's "truth
    # value ... ambiguous" once the path reaches it (mean < 0); PaddlePaddle's own test never
    # does (its inputs have mean > 0). Converted: an error at run time, on that path only,
    # naming the line
    check(nested_if_else, (MID,), (HIGH,), (f32(1, 16),))
    _both_raise_naming(declarative(nested_if_else), (LOW,), "if y.numpy()[0] < 10")


def _both_raise_naming(fn, args, line):
    assert isinstance(run_eager(fn, args), ValueError)
    got = run_declarative(fn, args)
    assert isinstance(got, Exception) and line in str(got), got


def test_python_only_if_true_and_label():
    check(dyfunc_with_if_else, (PROBS, LABEL), (PROBS * 7, LABEL))
    check(if_with_and_or, (PROBS, LABEL), (-PROBS, LABEL))
    check(loss_fn, (PROBS, LABEL))


def test_and_or_with_python_second_operand():
    for y in (None, 1, 0):
        check(if_with_and_or_1, (MID, y), (f32(1, 16), y))
        check(if_with_and_or_2, (MID, y), (f32(1, 16), y))
        check(if_with_and_or_4, (LOW, y), (f32(1, 16), y))
    # ``... and y`` with y a Python number ends the test (y None: eager and converted stop
    # at ``y is not None``)
    for y in (None, 1, 0):
        check(if_with_and_or_3, (MID, y), (LOW, y), (f32(1, 16), y))


def test_name_created_in_one_branch_only():
    # q is bound only on the true path; n is rebound after; the false path leaves q unbound
    check(dyfunc_with_if_else3, (MID,), (HIGH,))


def test_early_returns_without_inputs():
    check(dyfunc_with_if_else_early_return1, ())
    check(dyfunc_with_if_else_early_return2, ())


def test_list_generator_in_python_if():
    check(dyfunc_with_if_else_with_list_geneator, (MID,))


def test_layer_with_nested_ifs_and_dict_attribute():
    # the mean < 0 path reaches ``if y.numpy()[0] < self.alpha`` on a row of 5: ambiguous
    # eagerly (PaddlePaddle's test stays on the other path)
    check(NetWithControlFlowIf(), (MID,), (f32(3, 16),))
    _both_raise_naming(NetWithControlFlowIf(), (-MID * 4,), "if y.numpy()[0] < self.alpha")
    net = NetWithControlFlowIf(hidden_dim=8)
    check(net, (MID,))     # hidden_dim mismatch: ValueError both ways


def test_ifelse_returning_python_int():
    check(dyfunc_ifelse_ret_int1, (MID,))
    check(dyfunc_ifelse_ret_int3, (MID,))


def test_ifelse_returning_different_structures_under_a_known_condition():
    # ``pred = paddle.to_tensor([1])`` is a constant while the program is built: the
    # translator takes the path Python takes, so the paths' different structures (a tuple and
    # a Tensor, a str and a Tensor) agree with eager mode, where PaddlePaddle raises
    check(dyfunc_ifelse_ret_int2, (MID,))
    check(dyfunc_ifelse_ret_int4, (MID,))

"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/
test_partial_program.py (2.x releases): functions as written (``paddle.fluid`` -> ``core``);
``Linear`` is Paddle's from test_fetch_feed. Nested inputs (a list holding strings, ints and
a dict of lists and dicts) and nested outputs (a dict of a list holding ints and strings)
agree eagerly, converted and as an Executor Program, on Paddle's shapes and on batches of one
and none. Paddle checks that ``eval()`` / ``train()`` switch the PartialProgramLayer between
its train and infer programs (its internals); here the Layer's train and eval calls are two
cached programs, each reused when the mode comes back, with eager values (and gradients in
train mode) equal."""
import numpy as np

import core as fluid
from translator import declarative

from ._port import check, f32

SEED = 2020


def nested_input(x, y):
    sum_res = x + y[0]

    z_elem = y[3]['z']
    sub_res = z_elem[0] - z_elem[1]

    mul_res = y[-1]['d']['da'] * y[-1]['d']['dc']
    mean_func = fluid.layers.mean
    out = mean_func(sub_res) + mean_func(sum_res) + mean_func(mul_res)
    return out


def nested_output(x, y):
    sum_res = x + y
    sub_res = x - y
    mul_res = x * y

    out = {}
    out['z'] = sum_res
    out['a'] = [sub_res, 64, [mul_res, "cmd"]]
    return out


class Linear(fluid.dygraph.Layer):
    def __init__(self, input_dim=10, output_dim=5):
        super(Linear, self).__init__()
        self.fc = fluid.dygraph.Linear(
            input_dim,
            output_dim,
            act='relu',
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=0.99)),
            bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=0.5)))

    @declarative
    def forward(self, x):
        pre = self.fc(x)
        loss = fluid.layers.mean(pre)
        return pre, loss


def _nested_y(batch, seed):
    def t(*shape, seed):
        return fluid.dygraph.to_variable(f32(*shape, seed=seed))

    return [t(batch, 16, seed=seed), "preprocess_cmd", 64, {
        'z': [t(batch, 12, seed=seed + 1), t(batch, 12, seed=seed + 2)],
        'c': t(batch, 10, seed=seed + 3),
        'd': {'da': 12, 'dc': t(batch, 10, seed=seed + 4)},
    }]


def test_nested_input():
    # tensors inside a list are not fed by the Executor helper: eager against declarative
    check(nested_input, *[(f32(b, 16, seed=b), _nested_y(b, 10 * b + 1)) for b in (10, 1)],
          program=False)


def test_nested_output():
    check(nested_output, (f32(10, 16), f32(10, 16, seed=1)), (f32(1, 16), f32(1, 16, seed=2)),
          (f32(0, 16), f32(0, 16)))


def test_switch_eval_and_train():
    linear_net = Linear()
    x = fluid.dygraph.to_variable(f32(4, 10, low=-1.0))
    x.stop_gradient = False
    linear_net(x)
    assert len(linear_net.forward.program_cache) == 1

    linear_net.eval()
    linear_net(x)
    assert len(linear_net.forward.program_cache) == 2
    check(linear_net, (f32(4, 10, low=-1.0),))

    linear_net.train()
    pre, loss = linear_net(x)
    assert len(linear_net.forward.program_cache) == 3  # + check's stop_gradient=True inputs
    check(linear_net, (f32(4, 10, low=-1.0),))
    assert len(linear_net.forward.program_cache) == 4
    loss.backward()
    # d mean(relu(x W + b)) / dx with W = 0.99 everywhere, relu active where x W + b > 0
    active = (x.numpy() @ np.full([10, 5], 0.99, "float32") + 0.5 > 0).astype("float32")
    np.testing.assert_allclose(x.grad.numpy(), active @ np.full([5, 10], 0.99 / 20, "float32"),
                               rtol=1e-5)

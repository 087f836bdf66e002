"""PartialProgram: a declarative call is one tape op whose backward runs the Program's
backward; gradients equal eager ones, parameters are shared with the Layer."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative
from translator.partial_program import PartialProgram


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def t(array, stop_gradient=True):
    return core.to_tensor(np.asarray(array, dtype=np.float32), stop_gradient=stop_gradient)


def eager_and_static(fn, make_args, loss_of):
    """Gradients of ``loss_of(fn(*args))`` w.r.t. every non-stop-gradient arg, both ways."""
    grads = []
    for enabled in (False, True):
        ProgramTranslator().enable(enabled)
        args = make_args()
        loss = loss_of(fn(*args))
        loss.backward()
        grads.append((float(loss), [a.gradient() for a in args if not a.stop_gradient]))
    ProgramTranslator().enable(True)
    return grads


@declarative
def with_control_flow(x, w):
    h = core.layers.matmul(x, w)
    if h.mean() > 0:
        h = core.layers.tanh(h) * 3.0
    else:
        h = h * h
    i = 0
    while i < 3:
        h = h + core.layers.sigmoid(h) * w[0, 0]
        i += 1
    return h


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_input_gradients_through_cond_and_while_equal_eager(sign):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((3, 4)).astype(np.float32)
    wv = (sign * np.abs(rng.standard_normal((4, 2)))).astype(np.float32)

    def make():
        return t(np.abs(xv), False), t(wv, False)

    (l_e, g_e), (l_s, g_s) = eager_and_static(with_control_flow, make,
                                              lambda h: core.layers.reduce_sum(h * h))
    assert l_s == pytest.approx(l_e, rel=1e-5)
    for a, b in zip(g_e, g_s):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


class Mlp(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = core.nn.Linear(5, 8, act="relu")
        self.fc2 = core.nn.Linear(8, 3)

    @declarative
    def forward(self, x):
        return self.fc2(self.fc1(x))


def test_parameter_gradients_equal_eager_gradients():
    core.seed(11)
    net = Mlp()
    x = t(np.random.default_rng(1).standard_normal((4, 5)))
    grads = []
    for enabled in (True, False):
        ProgramTranslator().enable(enabled)
        net.clear_gradients()
        loss = core.layers.mean(net(x) ** 2)
        loss.backward()
        grads.append({p.name: p.gradient().copy() for p in net.parameters()})
    assert set(grads[0]) == {p.name for p in net.parameters()}
    for name in grads[0]:
        np.testing.assert_allclose(grads[0][name], grads[1][name], rtol=1e-5, atol=1e-7)


def test_optimizer_updates_are_seen_by_the_next_call():
    core.seed(2)
    net = Mlp()
    opt = core.optimizer.SGD(learning_rate=0.1, parameter_list=net.parameters())
    x = t(np.ones((2, 5)))
    losses = []
    for _ in range(5):
        loss = core.layers.mean(net(x) ** 2)
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        losses.append(float(loss))
    assert losses[-1] < losses[0] * 0.5
    assert net.forward.translations == 1
    ProgramTranslator().enable(False)
    eager_now = float(core.layers.mean(net(x) ** 2))
    ProgramTranslator().enable(True)
    with core.no_grad():
        assert float(core.layers.mean(net(x) ** 2)) == pytest.approx(eager_now, rel=1e-6)


def test_no_tape_node_without_gradients():
    core.seed(4)
    net = Mlp()
    x = t(np.ones((2, 5)))
    with core.no_grad():
        out = net(x)
    assert out.stop_gradient and out._node is None
    out = net(x)
    assert not out.stop_gradient and out._node.op.type == "run_program"


@declarative
def passthrough(x, y):
    z = x * y
    return x, z, z


def test_outputs_that_are_inputs_or_repeated_get_all_their_gradient():
    def make():
        return t([1.0, 2.0], False), t([3.0, 5.0], False)

    def loss_of(outs):
        x, z1, z2 = outs
        return core.layers.reduce_sum(x * 2.0) + core.layers.reduce_sum(z1) + \
            core.layers.reduce_sum(z2 * 3.0)

    (l_e, g_e), (l_s, g_s) = eager_and_static(passthrough, make, loss_of)
    assert l_s == pytest.approx(l_e)
    for a, b in zip(g_e, g_s):
        np.testing.assert_allclose(b, a)
    np.testing.assert_allclose(g_s[0], [2.0 + 4 * 3.0, 2.0 + 4 * 5.0])


def test_stop_gradient_inputs_get_no_gradient():
    x, w = t(np.ones((3, 4))), t(np.full((4, 2), 0.1), False)
    out = with_control_flow(x, w)
    core.layers.reduce_sum(out).backward()
    assert x.gradient() is None and w.gradient() is not None


def test_dropout_gradient_uses_the_forward_mask():
    class Drop(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.drop = core.nn.Dropout(0.5)

        @declarative
        def forward(self, x):
            return self.drop(x) * 2.0

    core.seed(8)
    layer = Drop()
    x = t(np.ones((50,)), False)
    out = layer(x)
    core.layers.reduce_sum(out).backward()
    kept = out.numpy() != 0
    assert 0 < kept.sum() < 50
    np.testing.assert_allclose(x.gradient(), np.where(kept, 2.0, 0.0))


def test_backward_twice_needs_retain_graph():
    net = Mlp()
    loss = core.layers.mean(net(t(np.ones((1, 5)))))
    loss.backward(retain_graph=True)
    first = [p.gradient().copy() for p in net.parameters()]
    loss.backward()
    for p, g in zip(net.parameters(), first):
        np.testing.assert_allclose(p.gradient(), 2 * g, rtol=1e-6)
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


def test_partial_program_runs_a_hand_built_program():
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 2], "float32")
            x.stop_gradient = False  # the program differentiates what needs a gradient
            y = core.layers.reduce_sum(x * x, dim=[1])
        finally:
            core.disable_static()
    pp = PartialProgram(main, [x], [y], [])
    xt = t([[1.0, 2.0], [3.0, 4.0]], False)
    (out,) = pp([xt])
    np.testing.assert_allclose(out.numpy(), [5.0, 25.0])
    core.layers.reduce_sum(out).backward()
    np.testing.assert_allclose(xt.gradient(), 2 * xt.numpy())


class _ConvBN(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = core.nn.Conv2D(2, 3, 3, padding=1)
        self.bn = core.nn.BatchNorm(3)

    @declarative
    def forward(self, x):
        return self.bn(self.conv(x))


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_inside_declarative_matches_eager(training):
    """Running statistics are written back to the Layer's tensors, as in eager mode."""
    core.seed(3)
    x = np.random.default_rng(0).standard_normal((4, 2, 5, 5)).astype(np.float32)
    results = []
    for enabled in (False, True):
        ProgramTranslator().enable(enabled)
        core.seed(3)
        net = _ConvBN()
        net.train() if training else net.eval()
        for _ in range(2):
            out = net(t(x))
        out.sum().backward()
        results.append((out.numpy(), net.bn._mean.numpy().copy(),
                        net.bn._variance.numpy().copy(), net.conv.weight.gradient()))
    for eager_v, static_v in zip(*results):
        np.testing.assert_allclose(static_v, eager_v, rtol=1e-4, atol=1e-5)
    if training:
        assert np.abs(results[1][1]).sum() > 0  # the running mean moved


def test_train_eval_switching_on_one_instance_matches_eager():
    """One Layer switched train -> eval -> train: batch_norm uses batch statistics and updates
    its running ones only in training, in the converted program as in eager mode."""
    x = np.random.default_rng(1).standard_normal((4, 2, 5, 5)).astype(np.float32)
    results = []
    for enabled in (False, True):
        ProgramTranslator().enable(enabled)
        core.seed(3)
        net = _ConvBN()
        outs = []
        for mode in ("train", "eval", "eval", "train"):
            getattr(net, mode)()
            outs.append(net(t(x * (len(outs) + 1))).numpy())
            outs.append(net.bn._mean.numpy().copy())
        results.append(outs)
    ProgramTranslator().enable(True)
    for eager_v, static_v in zip(*results):
        np.testing.assert_allclose(static_v, eager_v, rtol=1e-4, atol=1e-5)
    eager = results[0]
    np.testing.assert_array_equal(eager[3], eager[1])  # eval left the running mean alone
    assert not np.allclose(eager[7], eager[5])  # training moved it again


def test_gradient_through_a_while_loop_with_constants_in_its_body():
    """A constant created inside the loop body is read by the loop's gradient block; the
    backward-only plan must define it too."""
    def f(x, n):
        i = 0
        while i < n:
            x = x * 2
            i += 1
        return core.layers.reduce_sum(x)

    for trips in (0, 1, 3):
        x = t([1.0, 3.0], stop_gradient=False)
        loss = declarative(f)(x, core.to_tensor(np.array(trips, dtype="int64")))
        loss.backward()
        np.testing.assert_allclose(loss.numpy(), 4.0 * 2 ** trips)
        np.testing.assert_allclose(x.gradient(), [2.0 ** trips] * 2)


def _dropout_in_branch(x):
    if x.sum() > 0:
        y = core.layers.dropout(x * 2.0, 0.5, dropout_implementation="upscale_in_train")
    else:
        y = x
    return y


def test_random_op_in_a_tensor_if_gets_the_forward_mask_in_backward():
    """The backward half re-runs cond branches; a dropout there must replay the forward's
    mask, or the gradient silently disagrees with the output."""
    core.seed(1)
    f = declarative(_dropout_in_branch)
    for _ in range(3):
        x = t(np.ones((4, 8)), stop_gradient=False)
        out = f(x)
        out.sum().backward()
        kept = out.numpy() != 0
        assert 0 < kept.sum() < kept.size
        np.testing.assert_allclose(x.gradient(), 4.0 * kept)  # d(2x * mask / 0.5)/dx


def _dropout_in_loop(x, n):
    outs = []
    i = 0
    while i < n:
        outs.append(core.layers.dropout(x, 0.5, dropout_implementation="upscale_in_train"))
        i += 1
    return core.layers.stack(outs)


def test_random_op_in_a_loop_draws_a_new_mask_each_iteration():
    core.seed(2)
    x = t(np.ones((64,)), stop_gradient=False)
    out = declarative(_dropout_in_loop)(x, core.to_tensor(np.array(3, np.int64)))
    masks = out.numpy() != 0
    assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])
    out.sum().backward()
    np.testing.assert_allclose(x.gradient(), 2.0 * masks.sum(axis=0))

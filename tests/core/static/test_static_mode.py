"""The same Layer classes eagerly and as a static Program: equal outputs for equal parameters,
and static training through optimizer.minimize."""
import numpy as np
import pytest

import core
from core import layers, nn, static
from core.mode import static_mode_guard


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(num_channels=1, num_filters=3, filter_size=3, act="relu")
        self.pool = nn.Pool2D(pool_size=2, pool_stride=2)
        self.fc = nn.Linear(3 * 3 * 3, 4, act="softmax")

    def forward(self, x):
        h = self.pool(self.conv(x))
        return self.fc(layers.reshape(h, [-1, 27]))


def test_same_layer_class_gives_equal_outputs_in_both_modes():
    core.seed(3)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 1, 8, 8)).astype(np.float32)
    with core.dygraph.guard():
        eager_net = Net()
        want = eager_net(core.to_tensor(x)).numpy()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 1, 8, 8], "float32")
        out = Net()(img)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    params = main.all_parameters()
    assert len(params) == len(eager_net.parameters())
    for sp, ep in zip(params, eager_net.parameters()):
        assert sp.shape == ep.shape
        scope.find_var(sp.name).get_tensor().set(ep.numpy())
    got, = exe.run(main, feed={"img": x}, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_static_mnist_example_trains():
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples",
                        "mnist_static.py")
    spec = importlib.util.spec_from_file_location("mnist_static", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    exe, scope, test_program, prediction, losses = mod.train(epochs=1, log_every=0)
    assert losses[-1] < losses[0]
    assert mod.evaluate(exe, scope, test_program, prediction) > 0.90  # as the eager example


def test_the_seed_mnist_class_runs_eagerly_and_builds_a_static_program():
    from examples.mnist_model import MNIST

    core.seed(11)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (3, 1, 28, 28)).astype(np.float32)
    label = np.array([[1], [7], [3]], np.int64)
    with core.dygraph.guard():
        eager_net = MNIST()
        eager_net.eval()
        want_pred, want_acc = (t.numpy() for t in eager_net(core.to_tensor(x),
                                                             core.to_tensor(label)))
    main, startup = static.Program(), static.Program()
    core.enable_static()
    try:
        with static.program_guard(main, startup):
            img = layers.data("img", [1, 28, 28], "float32")
            lab = layers.data("label", [1], "int64")
            pred, acc = MNIST()(img, lab)
    finally:
        core.disable_static()
    assert img.shape == [-1, 1, 28, 28] and pred.shape == [-1, 10]
    assert {"conv2d", "pool2d", "matmul", "softmax", "accuracy"} <= \
        {op.type for op in main.global_block().ops}
    params = main.all_parameters()
    assert [p.shape for p in params] == [p.shape for p in eager_net.parameters()]
    assert len(startup.global_block().ops) == len(params)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    for sp, ep in zip(params, eager_net.parameters()):
        scope.find_var(sp.name).get_tensor().set(ep.numpy())
    got_pred, got_acc = exe.run(main, feed={"img": x, "label": label}, fetch_list=[pred, acc],
                                scope=scope)
    np.testing.assert_allclose(got_pred, want_pred, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_acc, want_acc)


X1 = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
W1 = np.array([[0.5], [-0.25]], np.float32)


@pytest.mark.parametrize("kind", ["sgd", "momentum", "adam"])
def test_static_optimizers_keep_persistable_accumulators_initialised_by_startup(kind):
    """minimize returns (optimize_ops, params_grads); the accumulators are persistable
    variables of the main program whose initial values come from the startup program, and two
    steps with a constant gradient give the textbook values."""
    lr, mu, b1, b2, eps = 0.1, 0.9, 0.9, 0.999, 1e-8
    opt = {"sgd": lambda: core.optimizer.SGD(lr),
           "momentum": lambda: core.optimizer.Momentum(lr, momentum=mu),
           "adam": lambda: core.optimizer.Adam(lr, beta1=b1, beta2=b2, epsilon=eps)}[kind]()
    main, startup = static.Program(), static.Program()
    core.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [2, 2], "float32")
            w = static.create_parameter(
                [2, 1], "float32", name="w_opt",
                default_initializer=core.initializer.NumpyArrayInitializer(W1))
            loss = layers.reduce_sum(layers.matmul(x, w))  # d loss / d w is constant
            optimize_ops, params_grads = opt.minimize(loss)
    finally:
        core.disable_static()
    assert [op.type for op in optimize_ops] == [kind]
    assert [(p.name, g.name) for p, g in params_grads] == [("w_opt", "w_opt@GRAD")]
    assert all(op.role == "optimize" for op in optimize_ops)
    accumulators = {v.name: v for v in main.list_vars()
                    if v.persistable and not isinstance(v, static.program.Parameter)}
    expected = {"sgd": set(), "momentum": {"w_opt_velocity_0"},
                "adam": {"w_opt_moment1_0", "w_opt_moment2_0", "w_opt_beta1_pow_acc_0",
                         "w_opt_beta2_pow_acc_0"}}[kind]
    assert {n for n in accumulators if n.startswith("w_opt_")} == expected
    initialised = {n for op in startup.global_block().ops for n in op.output_arg_names}
    assert set(accumulators) <= initialised and "w_opt" in initialised
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)

    def value(name):
        return np.asarray(scope.find_var(name).get_tensor())

    for name in expected:
        start = {"w_opt_beta1_pow_acc_0": b1, "w_opt_beta2_pow_acc_0": b2}.get(name, 0.0)
        np.testing.assert_allclose(value(name), np.full(accumulators[name].shape, start))
    for _ in range(2):
        exe.run(main, feed={"x": X1}, scope=scope)
    g = X1.sum(0).reshape(2, 1).astype(np.float64)
    if kind == "sgd":
        want = W1 - 2 * lr * g
    elif kind == "momentum":
        want = W1 - lr * g - lr * (mu * g + g)
        np.testing.assert_allclose(value("w_opt_velocity_0"), (1 + mu) * g, rtol=1e-6)
    else:
        p, m, v = W1.astype(np.float64), 0.0, 0.0
        for t in (1, 2):
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
            p = p - lr_t * m / (np.sqrt(v) + eps * np.sqrt(1 - b2 ** t))
        want = p
        np.testing.assert_allclose(value("w_opt_moment1_0"), m, rtol=1e-6)
        np.testing.assert_allclose(value("w_opt_moment2_0"), v, rtol=1e-6)
        np.testing.assert_allclose(value("w_opt_beta1_pow_acc_0"), [b1 ** 3], rtol=1e-6)
    np.testing.assert_allclose(value("w_opt"), want, rtol=1e-5)

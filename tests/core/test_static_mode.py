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

    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "mnist_static.py")
    spec = importlib.util.spec_from_file_location("mnist_static", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    exe, scope, test_program, prediction, losses = mod.train(epochs=1, log_every=0)
    assert losses[-1] < losses[0]
    assert mod.evaluate(exe, scope, test_program, prediction) > 0.85

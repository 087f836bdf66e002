"""``core.dygraph.guard`` (fluid's ``fluid.dygraph.guard``) restarts unique names inside its
block, as fluid's does: the same model built in two guards has the same parameter names and
structured names (a sublayer named by ``self.full_name()``), so a state dict of one loads
into the other; the names outside the guard go on counting where they were."""
import numpy as np

import core


class Block(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = self.add_sublayer(self.full_name() + "_1", core.nn.Linear(2, 3))

    def forward(self, x):
        return self.inner(x)


def test_names_restart_in_each_guard():
    outside = core.unique_name.generate("probe")
    with core.dygraph.guard():
        a = Block()
    with core.dygraph.guard(core.CPUPlace()):
        b = Block()
    assert a.full_name() == b.full_name()
    assert list(a.state_dict()) == list(b.state_dict())
    assert [p.name for p in a.parameters()] == [p.name for p in b.parameters()]
    with core.dygraph.guard():
        b.set_dict(a.state_dict())
        x = core.to_tensor(np.ones((1, 2), "float32"))
        np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    n = int(outside.rsplit("_", 1)[1])
    assert core.unique_name.generate("probe") == f"probe_{n + 1}"
    assert core.dygraph.base.guard is core.dygraph.guard

"""core.dispatch.set_eager_observer: every eager op is reported, fast paths included."""
import numpy as np

import core
from core import dispatch


def test_observer_sees_each_eager_op_and_is_removable():
    seen = []
    x = core.to_tensor(np.ones((2, 2), "float32"), stop_gradient=False)
    old = dispatch.set_eager_observer(lambda op, attrs, results: seen.append(
        (op.type, [r.numpy().copy() for r in results])))
    try:
        y = x * 2.0          # the scalar fast path of Tensor.__mul__
        z = core.layers.relu(y + x)
    finally:
        assert dispatch.set_eager_observer(old) is not None
    assert [t for t, _ in seen] == ["elementwise_mul", "elementwise_add", "relu"]
    np.testing.assert_allclose(seen[-1][1][0], z.numpy())
    seen.clear()
    _ = x * 3.0
    assert seen == []  # no observer: nothing reported

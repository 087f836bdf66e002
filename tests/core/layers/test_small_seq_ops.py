"""The small ops the classic sequence models use, through their fluid (``core.layers``) and
2.0 (``core.nn.functional``) spellings: eager equals a static program, and bad arguments give
clear errors."""
import numpy as np
import pytest

import core
from core import layers
from core.errors import OpError
from core.nn import functional as F

rng = np.random.default_rng(5)
X = rng.uniform(-3, 3, (2, 3, 4, 4)).astype(np.float32)
LABEL = np.eye(5, dtype=np.float32)[[0, 3, 4]]
BOOLS = np.array([[True, False], [True, True]])


def _calls():
    """(name, fn(inputs...), inputs) for each spelling."""
    return [
        ("softsign", lambda x: layers.softsign(x), [X]),
        ("F.softsign", lambda x: F.softsign(x), [X]),
        ("hard_sigmoid", lambda x: layers.hard_sigmoid(x, slope=0.3, offset=0.4), [X]),
        ("F.hardsigmoid", lambda x: F.hardsigmoid(x), [X]),
        ("swish", lambda x: layers.swish(x, beta=1.5), [X]),
        ("F.swish", lambda x: F.swish(x), [X]),
        ("adaptive_pool2d max", lambda x: layers.adaptive_pool2d(x, 3), [X]),
        ("adaptive_pool2d avg", lambda x: layers.adaptive_pool2d(x, [2, 3], "avg"), [X]),
        ("F.adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), [X]),
        ("cos_sim", lambda x: layers.cos_sim(layers.reshape(x, [2, -1]),
                                             layers.reshape(x, [2, -1]) * 2.0 + 1.0), [X]),
        ("label_smooth", lambda y: layers.label_smooth(y, epsilon=0.2), [LABEL]),
        ("F.label_smooth", lambda y: F.label_smooth(y), [LABEL]),
        ("reduce_all", lambda b: layers.reduce_all(b, dim=1), [BOOLS]),
        ("reduce_any", lambda b: layers.reduce_any(b, dim=0, keep_dim=True), [BOOLS]),
    ]


def _numpy(name, *a):
    x = a[0].astype(np.float64)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    return {
        "softsign": lambda: x / (1 + np.abs(x)),
        "F.softsign": lambda: x / (1 + np.abs(x)),
        "hard_sigmoid": lambda: np.clip(0.3 * x + 0.4, 0, 1),
        "F.hardsigmoid": lambda: np.clip(x * 0.1666667 + 0.5, 0, 1),
        "swish": lambda: x * sig(1.5 * x),
        "F.swish": lambda: x * sig(x),
        "adaptive_pool2d max": lambda: np.stack([
            np.stack([x[:, :, [0, 1], :][..., [0, 1]].max((2, 3)),
                      x[:, :, [0, 1], :][..., [1, 2]].max((2, 3)),
                      x[:, :, [0, 1], :][..., [2, 3]].max((2, 3))], -1),
            np.stack([x[:, :, [1, 2], :][..., [0, 1]].max((2, 3)),
                      x[:, :, [1, 2], :][..., [1, 2]].max((2, 3)),
                      x[:, :, [1, 2], :][..., [2, 3]].max((2, 3))], -1),
            np.stack([x[:, :, [2, 3], :][..., [0, 1]].max((2, 3)),
                      x[:, :, [2, 3], :][..., [1, 2]].max((2, 3)),
                      x[:, :, [2, 3], :][..., [2, 3]].max((2, 3))], -1)], 2),
        "adaptive_pool2d avg": lambda: np.stack([
            np.stack([x[:, :, :2, :2].mean((2, 3)), x[:, :, :2, 1:3].mean((2, 3)),
                      x[:, :, :2, 2:].mean((2, 3))], -1),
            np.stack([x[:, :, 2:, :2].mean((2, 3)), x[:, :, 2:, 1:3].mean((2, 3)),
                      x[:, :, 2:, 2:].mean((2, 3))], -1)], 2),
        "F.adaptive_max_pool2d": lambda: x.reshape(2, 3, 2, 2, 2, 2).max((3, 5)),
        "cos_sim": lambda: np.array([[np.dot(u, 2 * u + 1) / np.linalg.norm(u)
                                      / np.linalg.norm(2 * u + 1)]
                                     for u in x.reshape(2, -1)]),
        "label_smooth": lambda: 0.8 * x + 0.2 / 5,
        "F.label_smooth": lambda: 0.9 * x + 0.1 / 5,
        "reduce_all": lambda: a[0].all(1),
        "reduce_any": lambda: a[0].any(0, keepdims=True),
    }[name]()


@pytest.mark.parametrize("name,fn,inputs", _calls(), ids=[c[0] for c in _calls()])
def test_eager_matches_numpy_and_static(name, fn, inputs):
    eager = fn(*[core.to_tensor(a) for a in inputs]).numpy()
    np.testing.assert_allclose(eager, _numpy(name, *inputs), rtol=1e-5, atol=1e-6)
    from core import static

    core.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            vs = [static.data(f"in{k}", list(a.shape), str(a.dtype)) for k, a in enumerate(inputs)]
            out = fn(*vs)
        got, = static.Executor(core.CPUPlace()).run(
            main, feed={f"in{k}": a for k, a in enumerate(inputs)}, fetch_list=[out])
    finally:
        core.disable_static()
    np.testing.assert_allclose(got, eager, rtol=1e-6, atol=1e-7)


def test_bad_arguments_name_the_argument():
    t = core.to_tensor
    with pytest.raises(ValueError, match="epsilon"):
        layers.label_smooth(t(LABEL), epsilon=1.5)
    with pytest.raises(OpError, match=r"prior_dist.*\(5, the label.s last dim\).*\[1, 3\]"):
        layers.label_smooth(t(LABEL), prior_dist=t(np.ones((1, 3), np.float32)))
    with pytest.raises(OpError, match=r"cos_sim: Y must have X's shape.*\[3, 4\].*\[2, 4\]"):
        layers.cos_sim(t(np.ones((3, 4), np.float32)), t(np.ones((2, 4), np.float32)))
    with pytest.raises(TypeError, match=r"reduce_all\(\): argument 'input' has dtype float32"):
        layers.reduce_all(t(X))
    with pytest.raises(ValueError, match="pool_type"):
        layers.adaptive_pool2d(t(X), 2, pool_type="min")

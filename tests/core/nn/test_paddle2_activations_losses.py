"""PaddlePaddle 2.x activation and loss layers (and the ``core.nn.functional`` functions they
call): values against numpy formulas, Paddle's reductions / ignored labels / class weights /
soft labels, and every layer eagerly, in a static Program and in a ``declarative`` forward
with numerically checked gradients (``layer_harness``)."""
import numpy as np
import pytest

import core
from core import nn, unique_name
from core.nn import functional as F
from tests.core.nn.layer_harness import check_layer

rng = np.random.default_rng(2)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(5)
        yield


def away_from(points, shape, scale=2.0, gap=0.05):
    """Random inputs at least ``gap`` from each kink in ``points``."""
    x = rng.uniform(-scale, scale, size=shape)
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + np.where(x[near] >= p, gap, -gap) * 2
    return x.astype(np.float32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.logaddexp(0, x)


ACTIVATIONS = [  # (layer factory, numpy reference, kinks to avoid)
    (lambda: nn.ReLU(), lambda x: np.maximum(x, 0), [0]),
    (lambda: nn.ReLU6(), lambda x: np.clip(x, 0, 6), [0, 6]),
    (lambda: nn.Sigmoid(), sigmoid, []),
    (lambda: nn.Tanh(), np.tanh, []),
    (lambda: nn.GELU(approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), []),
    (lambda: nn.LeakyReLU(0.1), lambda x: np.where(x > 0, x, 0.1 * x), [0]),
    (lambda: nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), [0]),
    (lambda: nn.CELU(2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1)),
     [0]),
    (lambda: nn.SELU(), lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * (np.exp(x) - 1)), [0]),
    (lambda: nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6, [-3, 3]),
    (lambda: nn.Hardsigmoid(), lambda x: np.clip(x / 6 + 0.5, 0, 1), [-3, 3]),
    (lambda: nn.Hardtanh(-0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0), [-0.5, 1.0]),
    (lambda: nn.Hardshrink(0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0), [-0.5, 0.5]),
    (lambda: nn.Softshrink(0.5),
     lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)), [-0.5, 0.5]),
    (lambda: nn.Swish(), lambda x: x * sigmoid(x), []),
    (lambda: nn.Silu(), lambda x: x * sigmoid(x), []),
    (lambda: nn.Mish(), lambda x: x * np.tanh(softplus(x)), []),
    (lambda: nn.Softplus(beta=2), lambda x: softplus(2 * x) / 2, []),
    (lambda: nn.Softsign(), lambda x: x / (1 + np.abs(x)), [0]),
    (lambda: nn.LogSigmoid(), lambda x: -softplus(-x), []),
    (lambda: nn.Tanhshrink(), lambda x: x - np.tanh(x), []),
    (lambda: nn.Softmax(axis=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True), []),
    (lambda: nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)), []),
]


@pytest.mark.parametrize("make,ref,kinks", ACTIVATIONS,
                         ids=[type(m()).__name__ for m, _, _ in ACTIVATIONS])
def test_activation_layers_against_numpy_in_all_modes(make, ref, kinks):
    x = away_from(kinks, (3, 4), scale=4.0)
    check_layer(make, [x], ref(x.astype(np.float64)), rtol=1e-5, atol=2e-6,
                grad_tol={"eps": 1e-3})


def test_prelu_shared_and_per_channel():
    x = away_from([0], (2, 3, 2, 2))
    one = check_layer(lambda: nn.PReLU(), [x], np.where(x > 0, x, 0.25 * x))
    assert list(one.state_dict()) == ["weight"] and one.weight.shape == [1]
    per = check_layer(lambda: nn.PReLU(3, init=0.1), [x], np.where(x > 0, x, 0.1 * x))
    assert per.weight.shape == [3]
    last = nn.PReLU(2, data_format="NHWC")
    last.weight.set_value(np.array([0.5, 2.0], np.float32))
    xl = away_from([0], (2, 3, 2))
    np.testing.assert_allclose(last(core.to_tensor(xl)).numpy(),
                               np.where(xl > 0, xl, np.array([0.5, 2.0]) * xl), rtol=1e-6)


def test_normalize_and_one_hot():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(F.normalize(core.to_tensor(x)).numpy(),
                               x / np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(F.normalize(core.to_tensor(x), p=1, axis=0).numpy(),
                               x / np.abs(x).sum(0, keepdims=True), rtol=1e-5)
    z = core.to_tensor(np.zeros((2, 3), np.float32))
    z.stop_gradient = False
    out = F.normalize(z)
    out.sum().backward()
    assert np.all(np.isfinite(z.gradient())) and np.all(out.numpy() == 0)
    hot = F.one_hot(core.to_tensor(np.array([0, 2], np.int64)), 3).numpy()
    np.testing.assert_array_equal(hot, np.eye(3, dtype=np.float32)[[0, 2]])


# -- losses ---------------------------------------------------------------------------------
def log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def _logits(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_cross_entropy_loss_hard_labels_reductions():
    x, y = _logits(5, 4), np.array([1, 0, 3, 3, 2], np.int64)
    per = -log_softmax(x.astype(np.float64))[np.arange(5), y]
    check_layer(lambda: nn.CrossEntropyLoss(), [x, y], per.mean(), rtol=1e-5)
    check_layer(lambda: nn.CrossEntropyLoss(reduction="sum"), [x, y], per.sum(), rtol=1e-5)
    check_layer(lambda: nn.CrossEntropyLoss(reduction="none"), [x, y], per, rtol=1e-5)
    keep = nn.CrossEntropyLoss(reduction="none")(core.to_tensor(x), core.to_tensor(y[:, None]))
    assert keep.shape == [5, 1]  # a label with the class axis keeps it, as in Paddle


def test_cross_entropy_loss_ignore_index_and_class_weights():
    x, y = _logits(6, 3), np.array([0, 2, -1, 1, 2, -1], np.int64)
    w = np.array([0.2, 1.0, 3.0], np.float32)
    lp = -log_softmax(x.astype(np.float64))
    valid = y != -1
    per = np.where(valid, lp[np.arange(6), np.where(valid, y, 0)], 0.0)
    # NOTE: a negative ignore_index takes the plain mean (PaddlePaddle divides by the labels
    # kept only for ignore_index >= 0): test_cross_entropy_mean.py
    check_layer(lambda: nn.CrossEntropyLoss(ignore_index=-1), [x, y], per.mean())
    wy = np.where(valid, w[np.where(valid, y, 0)], 0.0)
    check_layer(lambda: nn.CrossEntropyLoss(weight=core.to_tensor(w), ignore_index=-1), [x, y],
                (per * wy).sum() / wy.sum(), rtol=1e-5)
    check_layer(lambda: nn.CrossEntropyLoss(weight=core.to_tensor(w), ignore_index=-1,
                                            reduction="none"), [x, y], per * wy, rtol=1e-5)


def test_cross_entropy_soft_labels_axis_and_probabilities():
    x = _logits(2, 3, 4)
    soft = rng.uniform(size=(2, 3, 4)).astype(np.float32)
    soft /= soft.sum(1, keepdims=True)
    per = -(soft * log_softmax(x.astype(np.float64), axis=1)).sum(1, keepdims=True)
    check_layer(lambda: nn.CrossEntropyLoss(soft_label=True, axis=1), [x, soft], per.mean(),
                nondiff=(1,))
    w = np.array([1.0, 2.0, 0.5], np.float32)
    ww = (soft * w[None, :, None]).sum(1, keepdims=True)
    got = F.cross_entropy(core.to_tensor(x), core.to_tensor(soft), weight=core.to_tensor(w),
                          soft_label=True, axis=1).numpy()
    np.testing.assert_allclose(got, (per * ww).sum() / ww.sum(), rtol=1e-5)
    probs = np.exp(log_softmax(x.astype(np.float64), axis=-1)).astype(np.float32)
    y = np.array([[0, 3, 1], [2, 2, 0]], np.int64)
    want = -np.log(np.take_along_axis(probs.astype(np.float64), y[..., None], -1))[..., 0]
    check_layer(lambda: nn.CrossEntropyLoss(use_softmax=False, reduction="none"), [probs, y],
                want, rtol=1e-5)


def test_nll_loss_with_weights_ignore_and_spatial_labels():
    x = log_softmax(_logits(4, 3)).astype(np.float32)
    y = np.array([2, 0, 1, 0], np.int64)
    w = np.array([0.5, 1.0, 2.0], np.float32)
    per = -x[np.arange(4), y] * w[y]
    check_layer(lambda: nn.NLLLoss(weight=core.to_tensor(w)), [x, y], per.sum() / w[y].sum(),
                rtol=1e-5)
    check_layer(lambda: nn.NLLLoss(ignore_index=0, reduction="sum"), [x, y],
                -(x[[0, 2], y[[0, 2]]]).sum(), rtol=1e-5)
    xs = log_softmax(_logits(2, 3, 2, 2), axis=1).astype(np.float32)
    ys = rng.integers(0, 3, size=(2, 2, 2)).astype(np.int64)
    want = -np.take_along_axis(xs, ys[:, None], 1)[:, 0]
    check_layer(lambda: nn.NLLLoss(reduction="none"), [xs, ys], want, rtol=1e-5)


def test_regression_losses():
    a, b = _logits(3, 4), _logits(3, 4)
    d = a.astype(np.float64) - b
    check_layer(lambda: nn.MSELoss(), [a, b], (d ** 2).mean(), rtol=1e-5)
    check_layer(lambda: nn.L1Loss(reduction="sum"), [a, b], np.abs(d).sum(), rtol=1e-5)
    hub = np.where(np.abs(d) < 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25))
    check_layer(lambda: nn.SmoothL1Loss(delta=0.5), [a, b], hub.mean(), rtol=1e-5,
                grad_tol={"eps": 1e-3})


def test_binary_losses():
    p = rng.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
    y = rng.integers(0, 2, size=(4, 3)).astype(np.float32)
    w = rng.uniform(0.5, 2, size=(4, 3)).astype(np.float32)
    bce = -(y * np.log(p.astype(np.float64)) + (1 - y) * np.log(1 - p.astype(np.float64)))
    check_layer(lambda: nn.BCELoss(), [p, y], bce.mean(), rtol=1e-5, nondiff=(1,),
                grad_tol={"eps": 1e-3})
    check_layer(lambda: nn.BCELoss(weight=core.to_tensor(w), reduction="sum"), [p, y],
                (bce * w).sum(), rtol=1e-5, nondiff=(1,), grad_tol={"eps": 1e-3})
    x = _logits(4, 3) * 3
    pos = np.array([1.0, 2.0, 0.5], np.float32)
    base = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x.astype(np.float64))))
    check_layer(lambda: nn.BCEWithLogitsLoss(), [x, y], base.mean(), rtol=1e-5, nondiff=(1,))
    lw = (pos - 1) * y + 1
    want = ((1 - y) * x + lw * softplus(-x.astype(np.float64)))
    check_layer(lambda: nn.BCEWithLogitsLoss(pos_weight=core.to_tensor(pos),
                                             reduction="none"), [x, y], want, rtol=1e-5,
                nondiff=(1,))
    assert F.binary_cross_entropy(core.to_tensor(np.array([0.0, 1.0], np.float32)),
                                  core.to_tensor(np.array([1.0, 0.0], np.float32)),
                                  reduction="sum").numpy() == pytest.approx(200.0)


def test_kl_div_reductions():
    x = log_softmax(_logits(3, 4)).astype(np.float32)
    t = rng.uniform(size=(3, 4)).astype(np.float32)
    t[0, 1] = 0.0
    t /= t.sum(1, keepdims=True)
    t64 = t.astype(np.float64)
    per = np.where(t > 0, t64 * (np.log(np.where(t > 0, t64, 1)) - x), 0)
    check_layer(lambda: nn.KLDivLoss(), [x, t], per.mean(), rtol=1e-5, nondiff=(1,))
    check_layer(lambda: nn.KLDivLoss("batchmean"), [x, t], per.sum() / 3, rtol=1e-5,
                nondiff=(1,))
    check_layer(lambda: nn.KLDivLoss("none"), [x, t], per, rtol=1e-5, nondiff=(1,))


@pytest.mark.parametrize("make,words", [
    (lambda: nn.CrossEntropyLoss(reduction="avg"), ["CrossEntropyLoss", "'reduction'", "'avg'"]),
    (lambda: nn.KLDivLoss("batch"), ["KLDivLoss", "'reduction'", "'batchmean'"]),
    (lambda: nn.SmoothL1Loss(delta=0), ["SmoothL1Loss", "'delta'", "> 0"]),
    (lambda: nn.CrossEntropyLoss(ignore_index=1.5), ["CrossEntropyLoss", "'ignore_index'"]),
    (lambda: nn.PReLU(0), ["PReLU", "'num_parameters'", ">= 1"]),
    (lambda: F.l1_loss(core.to_tensor(np.ones((2, 3), np.float32)),
                       core.to_tensor(np.ones((3, 2), np.float32))),
     ["l1_loss", "'label'", "[2, 3]", "[3, 2]"]),
    (lambda: F.nll_loss(core.to_tensor(np.ones((2, 3), np.float32)),
                        core.to_tensor(np.ones((2, 3), np.int64))),
     ["nll_loss", "'label'", "class axis 1"]),
    (lambda: F.cross_entropy(core.to_tensor(np.ones((2, 3), np.float32)),
                             core.to_tensor(np.zeros((2,), np.int64)),
                             weight=core.to_tensor(np.ones(4, np.float32))),
     ["cross_entropy", "'weight'", "[3]", "[4]"]),
])
def test_loss_and_activation_errors_name_the_argument(make, words):
    with pytest.raises((TypeError, ValueError)) as e:
        make()
    for w in words:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"

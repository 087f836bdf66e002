"""``F.cross_entropy`` / ``nn.CrossEntropyLoss`` with ``reduction='mean'`` and ignored labels, as
PaddlePaddle 2.x's ``loss.py``: divided by the number of labels kept when ``ignore_index >=
0``, by the kept labels' weights when ``weight`` is given, the plain mean for a negative
``ignore_index`` (the default -100), and 0 (not NaN) when every label is ignored. Each case
eagerly, in a static Program and in a ``declarative`` forward, with numeric gradients
(``layer_harness``)."""
import numpy as np
import pytest

import core
import dy2static.nn as nn
import dy2static.nn.functional as F
from core import unique_name
from tests.core.nn.layer_harness import check_layer

R = np.random.default_rng(8)
X = R.standard_normal((6, 4)).astype(np.float32)
W = np.array([0.5, 1.0, 2.0, 3.0], np.float32)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(3)
        yield


def _per(x, y, ignore):
    z = x.astype(np.float64)
    lp = z - z.max(1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(1, keepdims=True))
    keep = y != ignore
    return np.where(keep, -lp[np.arange(len(y)), np.where(keep, y, 0)], 0.0), keep


LABELS = {
    "some-ignored": np.array([0, 2, 1, 3, 2, 1]),
    "one-kept": np.array([1, 1, 1, 3, 1, 1]),
    "all-ignored": np.array([1, 1, 1, 1, 1, 1]),
}


@pytest.mark.parametrize("labels", list(LABELS), ids=list(LABELS))
def test_mean_divides_by_the_labels_kept(labels):
    y = LABELS[labels].astype(np.int64)
    per, keep = _per(X, y, 1)
    want = per.sum() / max(keep.sum(), 1)
    check_layer(lambda: nn.CrossEntropyLoss(ignore_index=1), [X, y], want, rtol=1e-5)
    got = F.cross_entropy(core.to_tensor(X), core.to_tensor(y[:, None]), ignore_index=1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    assert np.isfinite(got.numpy()).all()


@pytest.mark.parametrize("labels", list(LABELS), ids=list(LABELS))
def test_weighted_mean_divides_by_the_kept_labels_weights(labels):
    y = LABELS[labels].astype(np.int64)
    per, keep = _per(X, y, 1)
    wy = np.where(keep, W[np.where(keep, y, 0)], 0.0)
    want = (per * wy).sum() / (wy.sum() if wy.sum() else 1.0)
    check_layer(lambda: nn.CrossEntropyLoss(weight=core.to_tensor(W), ignore_index=1), [X, y],
                want, rtol=1e-5)


def test_weighted_mean_with_the_default_ignore_index_skips_its_labels_weights():
    y = np.array([0, -100, 2, 3, -100, 1], np.int64)
    per, keep = _per(X, y, -100)
    wy = np.where(keep, W[np.where(keep, y, 0)], 0.0)
    check_layer(lambda: nn.CrossEntropyLoss(weight=core.to_tensor(W)), [X, y],
                (per * wy).sum() / wy.sum(), rtol=1e-5)


@pytest.mark.parametrize("ignore", [-100, -1])
def test_a_negative_ignore_index_takes_the_plain_mean(ignore):
    """PaddlePaddle divides by the kept labels only for ``ignore_index >= 0``: with a negative
    one a label equal to it adds 0 to the sum and 1 to the count."""
    y = np.array([0, ignore, 2, 3, ignore, 1], np.int64)
    per, _ = _per(X, y, ignore)
    check_layer(lambda: nn.CrossEntropyLoss(ignore_index=ignore), [X, y], per.mean(),
                rtol=1e-5)
    every = np.full(6, ignore, np.int64)
    got = F.cross_entropy(core.to_tensor(X), core.to_tensor(every), ignore_index=ignore)
    np.testing.assert_allclose(got.numpy(), 0.0)


def test_sum_and_none_are_unchanged_by_the_divisor():
    y = LABELS["some-ignored"].astype(np.int64)
    per, _ = _per(X, y, 1)
    check_layer(lambda: nn.CrossEntropyLoss(ignore_index=1, reduction="sum"), [X, y],
                per.sum(), rtol=1e-5)
    check_layer(lambda: nn.CrossEntropyLoss(ignore_index=1, reduction="none"), [X, y], per,
                rtol=1e-5)

"""Which statistics the batch norms use, as in PaddlePaddle 2.x: ``use_global_stats`` None
(batch statistics while training, running ones in eval), True (running ones always, never
updated) and False (batch statistics always, also in eval, running ones still folded in);
the fluid ``BatchNorm``'s ``use_global_stats`` / ``trainable_statistics``; ``F.batch_norm``.
Each in train and eval mode, eagerly and in a ``declarative`` forward."""
import numpy as np
import pytest

import core
import dy2static.nn as nn
import dy2static.nn.functional as F
from translator import declarative

R = np.random.default_rng(5)
MEAN = np.array([0.5, -1.0, 2.0], "float32")
VAR = np.array([2.0, 0.5, 1.5], "float32")
EPS, MOM = 1e-5, 0.9


def _input(rank):
    return R.standard_normal((4, 3) + (2,) * (rank - 2)).astype("float32") * 2 + 1


def _expected(x, batch):
    axes = tuple(a for a in range(x.ndim) if a != 1)
    shape = [1, 3] + [1] * (x.ndim - 2)
    if batch:
        mu, var = x.mean(axis=axes), x.var(axis=axes)
        new = (MOM * MEAN + (1 - MOM) * mu, MOM * VAR + (1 - MOM) * var)
    else:
        mu, var, new = MEAN, VAR, (MEAN, VAR)
    y = (x - mu.reshape(shape)) / np.sqrt(var.reshape(shape) + EPS)
    return y, new


def _run(layer, x, training, path):
    layer._mean.set_value(MEAN.copy())
    layer._variance.set_value(VAR.copy())
    layer.train() if training else layer.eval()
    fwd = layer if path == "eager" else declarative(layer.forward, full_graph=True)
    out = fwd(core.to_tensor(x)).numpy()
    return out, (layer._mean.numpy(), layer._variance.numpy())


def _check(layer, x, training, path, batch):
    out, stats = _run(layer, x, training, path)
    want, new = _expected(x, batch)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(stats[0], new[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[1], new[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("path", ["eager", "declarative"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("ugs", [None, True, False], ids=["None", "True", "False"])
@pytest.mark.parametrize("cls,rank", [(nn.BatchNorm1D, 2), (nn.BatchNorm1D, 3),
                                      (nn.BatchNorm2D, 4), (nn.BatchNorm3D, 5)])
def test_2x_batch_norm_use_global_stats(cls, rank, ugs, training, path):
    layer = cls(3, momentum=MOM, epsilon=EPS, use_global_stats=ugs)
    batch = ugs is False or (ugs is None and training)
    _check(layer, _input(rank), training, path, batch)


@pytest.mark.parametrize("path", ["eager", "declarative"])
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("ugs,trainable", [(False, False), (True, False), (False, True)])
def test_fluid_batch_norm_use_global_stats_and_trainable_statistics(ugs, trainable, training,
                                                                     path):
    layer = nn.BatchNorm(3, momentum=MOM, epsilon=EPS, use_global_stats=ugs,
                         trainable_statistics=trainable)
    batch = not ugs and (training or trainable)
    _check(layer, _input(4), training, path, batch)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("ugs", [None, True, False], ids=["None", "True", "False"])
def test_functional_batch_norm_use_global_stats(ugs, training):
    x = _input(4)
    mean, var = core.to_tensor(MEAN.copy()), core.to_tensor(VAR.copy())
    w, b = core.to_tensor(np.ones(3, "float32")), core.to_tensor(np.zeros(3, "float32"))
    out = F.batch_norm(core.to_tensor(x), mean, var, w, b, training=training, momentum=MOM,
                       epsilon=EPS, use_global_stats=ugs)
    want, new = _expected(x, ugs is False or (ugs is None and training))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(mean.numpy(), new[0], rtol=1e-5, atol=1e-6)


def test_use_global_stats_false_gets_the_batch_statistics_gradient():
    """In eval with use_global_stats=False the statistics depend on x: the gradient of
    sum(y * w) is that of training mode, not the constant-statistics one."""
    x = _input(4)
    wgt = R.standard_normal(x.shape).astype("float32")
    grads = []
    for ugs, training in ((False, False), (None, True)):
        layer = nn.BatchNorm2D(3, use_global_stats=ugs)
        layer.train() if training else layer.eval()
        t = core.to_tensor(x, stop_gradient=False)
        (layer(t) * core.to_tensor(wgt)).sum().backward()
        grads.append(t.gradient())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad", [0, "yes", 1.0])
def test_use_global_stats_must_be_none_or_bool(bad):
    with pytest.raises(TypeError, match="'use_global_stats'"):
        nn.BatchNorm2D(3, use_global_stats=bad)
    with pytest.raises(TypeError, match="'use_global_stats'"):
        F.batch_norm(core.to_tensor(_input(4)), core.to_tensor(MEAN), core.to_tensor(VAR),
                     None, None, use_global_stats=bad)

"""Model family: a GRU sentiment classifier (embedding, bidirectional GRU over padded batches
with lengths, a linear head) written once, run eagerly and as a ``declarative`` forward:
equal outputs on batches of different lengths, equal loss curves while training, and the saved
inference program equals the declarative model."""
import numpy as np
import pytest

import core
from core import nn
from translator import ProgramTranslator, declarative

from .model_checks import loss_curves, minimize_step, op_count, saved_model_run

VOCAB, EMB, HID = 40, 8, 12


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def _forward(self, ids, lens):
    x = self.emb(ids)
    out, h = self.gru(x, sequence_length=lens)
    # the mean of the valid steps (padded outputs are zero) next to both final states
    mean = core.layers.reduce_sum(out, dim=1) / core.layers.unsqueeze(
        core.layers.cast(lens, "float32"), [1])
    feat = core.layers.concat([mean, h[0], h[1]], axis=-1)
    return self.fc(feat)


class GRUClassifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding([VOCAB, EMB])
        self.gru = nn.GRU(EMB, HID, direction="bidirect")
        self.fc = nn.Linear(4 * HID, 2)

    forward = _forward


class DeclarativeGRUClassifier(GRUClassifier):
    forward = declarative(_forward)


def _batch(seed, batch, steps):
    r = np.random.default_rng(seed)
    lens = r.integers(1, steps + 1, batch).astype(np.int64)
    lens[0] = steps
    ids = r.integers(1, VOCAB, (batch, steps)).astype(np.int64)
    ids[np.arange(steps)[None, :] >= lens[:, None]] = 0  # padding id
    labels = (ids[:, :1] % 2).astype(np.int64)
    return ids, lens, labels


BATCHES = [_batch(1, 4, 6), _batch(2, 3, 9), _batch(3, 4, 6), _batch(4, 3, 9)]


def _train_step(model, opt, batch):
    ids, lens, labels = batch
    logits = model(core.to_tensor(ids), core.to_tensor(lens))
    loss = core.layers.mean(core.layers.softmax_with_cross_entropy(
        logits, core.to_tensor(labels)))
    return minimize_step(model, opt, loss)


def test_eager_and_declarative_outputs_and_loss_curves_match(tmp_path):
    core.seed(5)
    eager = GRUClassifier()
    core.seed(5)
    dec = DeclarativeGRUClassifier()
    for ids, lens, _ in BATCHES[:2]:  # two batches, different lengths and time dims
        a = eager(core.to_tensor(ids), core.to_tensor(lens)).numpy()
        b = dec(core.to_tensor(ids), core.to_tensor(lens)).numpy()
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    e_losses, d_losses = loss_curves(
        eager, dec, lambda m: core.optimizer.Adam(0.02, parameter_list=m.parameters()),
        BATCHES[:4], _train_step)
    np.testing.assert_allclose(d_losses, e_losses, rtol=1e-4, atol=1e-6)
    assert len(set(e_losses)) == 4
    for p, q in zip(eager.parameters(), dec.parameters()):
        np.testing.assert_allclose(q.numpy(), p.numpy(), rtol=1e-4, atol=1e-6)

    ids, lens, _ = BATCHES[1]
    with core.no_grad():
        want = dec(core.to_tensor(ids), core.to_tensor(lens)).numpy()
    saved = saved_model_run(tmp_path / "gru", [ids, lens], feed=[0, 1], fetch=[0])
    assert op_count(saved.program, "rnn") == 2
    np.testing.assert_allclose(saved.outputs[0], want, rtol=1e-5, atol=1e-6)

"""The BiGRU + CRF tagger family (LAC): embedding, a bidirectional GRU over a padded batch with
lengths, emissions and a linear-chain CRF. Eager vs declarative outputs on two batches of
different lengths, equal loss curves over several training steps, and the saved inference
model (Viterbi decoding) equal to the declarative call."""
import numpy as np

import core
from core import layers
from translator import declarative

from .model_checks import (assert_same_curves, eager_call, loss_curves, minimize_step,
                           saved_model_run)

VOCAB, TAGS = 20, 4


class BiGRUCRF(core.nn.Layer):
    def __init__(self, dim=8, hidden=8):
        super().__init__()
        self.emb = core.nn.Embedding([VOCAB, dim])
        self.gru = core.nn.GRU(dim, hidden, direction="bidirect")
        self.out = core.nn.Linear(2 * hidden, TAGS)
        self.trans = self.create_parameter([TAGS + 2, TAGS], None, "float32")

    @declarative
    def forward(self, words, length, label):
        h, _ = self.gru(self.emb(words), sequence_length=length)
        emission = self.out(h)
        cost = layers.linear_chain_crf(emission, label, self.trans, length=length)
        path = layers.crf_decoding(emission, self.trans, length=length)
        return layers.reduce_mean(cost), path


def _batch(rng, batch, time):
    words = rng.integers(1, VOCAB, (batch, time)).astype("int64")
    lens = rng.integers(1, time + 1, batch).astype("int64")
    lens[0] = time
    return words, lens, (words % TAGS).astype("int64")


def _tensors(*arrays):
    return [core.to_tensor(a) for a in arrays]


def _train_step(net, opt, batch):
    loss, _ = net(*_tensors(*batch))
    return minimize_step(net, opt, loss)


def test_outputs_loss_curves_and_saved_model(tmp_path):
    core.seed(8)
    a, b = BiGRUCRF(), BiGRUCRF()
    b.set_dict(a.state_dict())
    rng = np.random.default_rng(9)
    # outputs on two batches with different time lengths
    for time in (5, 9):
        args = _tensors(*_batch(rng, 3, time))
        eager_loss, eager_path = eager_call(a, *args)
        conv_loss, conv_path = a(*args)
        np.testing.assert_allclose(conv_loss.numpy(), eager_loss.numpy(), rtol=1e-5)
        np.testing.assert_array_equal(conv_path.numpy(), eager_path.numpy())
    batches = [_batch(rng, 6, t) for t in (7, 4) * 4]
    eager, converted = loss_curves(
        a, b, lambda net: core.optimizer.Adam(learning_rate=0.05, parameter_list=net.parameters()),
        batches, _train_step)
    assert_same_curves(eager, converted, rtol=1e-4, atol=1e-5, window=2)
    b.eval()
    words, lens, tags = _batch(rng, 4, 6)
    _, path = b(*_tensors(words, lens, tags))
    assert (path.numpy()[np.arange(6)[None, :] >= lens[:, None]] == 0).all()
    saved = saved_model_run(tmp_path / "lac", [words, lens, tags], fetch=[1])
    np.testing.assert_array_equal(saved.outputs[0], path.numpy())

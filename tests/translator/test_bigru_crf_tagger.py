"""The BiGRU + CRF tagger family (LAC): embedding, a bidirectional GRU over a padded batch with
lengths, emissions and a linear-chain CRF. Eager vs declarative outputs on two batches of
different lengths, equal loss curves over several training steps, and the saved inference
model (Viterbi decoding) equal to the declarative call."""
import numpy as np

import core
from core import layers
from translator import ProgramTranslator, declarative

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


def test_outputs_loss_curves_and_saved_model(tmp_path):
    core.seed(8)
    a, b = BiGRUCRF(), BiGRUCRF()
    b.set_dict(a.state_dict())
    rng = np.random.default_rng(9)
    # outputs on two batches with different time lengths
    for time in (5, 9):
        args = _tensors(*_batch(rng, 3, time))
        ProgramTranslator().enable(False)
        try:
            eager_loss, eager_path = a(*args)
        finally:
            ProgramTranslator().enable(True)
        conv_loss, conv_path = a(*args)
        np.testing.assert_allclose(conv_loss.numpy(), eager_loss.numpy(), rtol=1e-5)
        np.testing.assert_array_equal(conv_path.numpy(), eager_path.numpy())
    batches = [_batch(rng, 6, t) for t in (7, 4) * 4]
    curves = []
    for net, on in ((a, False), (b, True)):
        ProgramTranslator().enable(on)
        try:
            opt = core.optimizer.Adam(learning_rate=0.05, parameter_list=net.parameters())
            losses = []
            for batch in batches:
                loss, _ = net(*_tensors(*batch))
                loss.backward()
                opt.minimize(loss)
                net.clear_gradients()
                losses.append(float(loss.numpy()))
            curves.append(losses)
        finally:
            ProgramTranslator().enable(True)
    np.testing.assert_allclose(curves[1], curves[0], rtol=1e-4, atol=1e-5)
    assert np.mean(curves[0][-2:]) < np.mean(curves[0][:2])
    b.eval()
    words, lens, tags = _batch(rng, 4, 6)
    _, path = b(*_tensors(words, lens, tags))
    assert (path.numpy()[np.arange(6)[None, :] >= lens[:, None]] == 0).all()
    ProgramTranslator().save_inference_model(str(tmp_path / "lac"), fetch=[1])
    exe = core.Executor(core.CPUPlace())
    prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "lac"), exe)
    (saved,) = exe.run(prog, feed=dict(zip(feeds, [words, lens, tags])), fetch_list=fetches)
    np.testing.assert_array_equal(saved, path.numpy())

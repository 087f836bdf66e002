"""A tiny Transformer (core.nn.Transformer) on a generated sequence-reversal task, eager vs
declarative: outputs on two batches of different lengths with padding masks, equal loss
curves over several training steps, greedy decoding with a data-dependent tensor ``while``
inside ``declarative`` code, beam search decoding with ``BeamSearchDecoder`` +
``dynamic_decode`` (one ``while`` op in the converted program; eager, declarative and the
saved inference model agree, the beams' scores are the teacher-forced log-probabilities of
their sequences, and the trained model decodes the reversal), and an encoder layer exported to
ONNX runs in onnxruntime with the same values."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative

VOCAB, PAD, BOS, EOS, D = 9, 0, 1, 2, 16
BEAM, DEC_LEN = 3, 7  # beam size; the decode buffer's length (the longest target)


class TinyTransformer(core.nn.Layer):
    def __init__(self, max_len=8):
        super().__init__()
        self.embed = core.nn.Embedding([VOCAB, D])
        self.pos = core.nn.Embedding([max_len, D])
        self.model = core.nn.Transformer(D, 2, 1, 1, 32, dropout=0.0)
        self.out = core.nn.Linear(D, VOCAB)

    def _embed(self, ids, positions):
        return self.embed(ids) + self.pos(positions)

    def encode(self, src, src_pos):
        keep = core.layers.reshape(src != PAD, [0, 1, 1, -1])  # padding mask [B, 1, 1, S]
        memory = self.model.encoder(self._embed(src, src_pos), src_mask=keep)
        return memory, keep

    def decode_logits(self, tgt, tgt_pos, memory, keep, causal):
        h = self.model.decoder(self._embed(tgt, tgt_pos), memory, tgt_mask=causal,
                               memory_mask=keep)
        return self.out(h)

    @declarative
    def forward(self, src, src_pos, tgt, tgt_pos, causal):
        memory, keep = self.encode(src, src_pos)
        return self.decode_logits(tgt, tgt_pos, memory, keep, causal)


class GreedyDecoder(core.nn.Layer):
    """Greedy decoding into a fixed-size buffer: a tensor ``while`` whose trip count is the
    ``steps`` input, writing one token per trip."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    @declarative
    def forward(self, src, src_pos, tgt_pos, causal, steps):
        memory, keep = self.net.encode(src, src_pos)
        ys = core.layers.cast(tgt_pos == 0, "int64") * BOS             # [B, T]: BOS, PAD..
        i = core.layers.zeros([1], "int64")
        while i < steps:
            logits = self.net.decode_logits(ys, tgt_pos, memory, keep, causal)
            pred = core.layers.argmax(logits, axis=-1)                  # [B, T]
            at_next = core.layers.cast(tgt_pos == i + 1, "int64")        # [B, T]
            ys = ys * (1 - at_next) + pred * at_next
            i = i + 1
        return ys


class PrefixCell(core.nn.Layer):
    """A beam-search cell over the Transformer decoder with a fixed-size state: the tokens fed
    so far in a ``[batch * beam, DEC_LEN]`` buffer and the step index ``[batch * beam, 1]``.
    Each step writes the input token at the step's position and re-runs the decoder over the
    buffer under the causal mask (positions past the step cannot change the step's output);
    its logits at the step are the cell's output. The beam search gathers both by parent, so a
    kept hypothesis carries its own prefix; the decode loop's variables keep their shapes."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, ids, states, memory, keep, positions, causal):
        tokens, t = states
        here = core.layers.cast(positions == t, "int64")                  # [N, DEC_LEN]
        tokens = tokens * (1 - here) + core.layers.unsqueeze(ids, [1]) * here
        logits = self.net.decode_logits(tokens, positions, memory, keep, causal)
        at_t = core.layers.unsqueeze(core.layers.cast(here, logits.dtype), [2])
        return core.layers.reduce_sum(logits * at_t, dim=1), (tokens, t + 1)


class BeamDecoder(core.nn.Layer):
    """Beam search: ``BeamSearchDecoder`` over :class:`PrefixCell`, run by ``dynamic_decode``
    (one ``while`` op in the converted program). Returns the hypotheses ``[batch, steps,
    BEAM]`` (best first) and their log-probabilities ``[batch, BEAM]``."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.decoder = core.nn.BeamSearchDecoder(PrefixCell(net), BOS, EOS, BEAM)

    @declarative
    def forward(self, src, src_pos, tgt_pos, causal):
        memory, keep = self.net.encode(src, src_pos)
        tokens = tgt_pos * 0 + PAD                                        # [B, DEC_LEN]
        t = core.layers.slice(tgt_pos, axes=[1], starts=[0], ends=[1]) * 0  # [B, 1]
        tile = core.nn.BeamSearchDecoder.tile_beam_merge_with_batch
        ids, states = core.nn.dynamic_decode(
            self.decoder, (tokens, t), max_step_num=DEC_LEN - 1, memory=tile(memory, BEAM),
            keep=tile(keep, BEAM), positions=tile(tgt_pos, BEAM), causal=causal)
        return ids, states.log_probs


def _batch(rng, batch, length):
    """Sources of random lengths n in [2, length - 1] (tokens 3..VOCAB-1) padded with PAD; the
    target is the reversed source then EOS, fed behind BOS (teacher forcing)."""
    src = np.zeros((batch, length), "int64")
    dec_in = np.zeros((batch, length), "int64")
    label = np.zeros((batch, length), "int64")
    for b in range(batch):
        n = rng.integers(2, length)
        seq = rng.integers(EOS + 1, VOCAB, n)
        src[b, :n] = seq
        label[b, :n + 1] = list(seq[::-1]) + [EOS]
        dec_in[b, 0] = BOS
        dec_in[b, 1:n + 1] = seq[::-1]
    pos = np.tile(np.arange(length, dtype="int64"), (batch, 1))
    return src, pos, dec_in, _causal(length), label


def _causal(length):
    return np.triu(np.full((length, length), -1e9, "float32"), 1)


def _tensors(*arrays):
    return [core.to_tensor(a) for a in arrays]


def _eager(fn, *args):
    ProgramTranslator().enable(False)
    try:
        with core.no_grad():
            out = fn(*args)
    finally:
        ProgramTranslator().enable(True)
    return [o.numpy() for o in out] if isinstance(out, (tuple, list)) else out.numpy()


def _train(net, batches, use_translator):
    ProgramTranslator().enable(use_translator)
    try:
        opt = core.optimizer.Adam(learning_rate=0.01, parameter_list=net.parameters())
        losses = []
        for src, pos, dec_in, causal, label in batches:
            logits = net(*_tensors(src, pos, dec_in, pos, causal))
            loss = core.layers.reduce_mean(core.layers.softmax_with_cross_entropy(
                logits, core.to_tensor(label[..., None])))
            loss.backward()
            opt.minimize(loss)
            net.clear_gradients()
            losses.append(float(loss.numpy()))
        return losses
    finally:
        ProgramTranslator().enable(True)


def _twins():
    core.seed(7)
    a = TinyTransformer()
    b = TinyTransformer()
    b.set_dict(a.state_dict())
    return a, b


def test_outputs_on_two_batch_lengths_match_eager():
    a, _ = _twins()
    a.eval()
    rng = np.random.default_rng(1)
    for length in (5, 8):
        src, pos, dec_in, causal, _ = _batch(rng, 3, length)
        args = _tensors(src, pos, dec_in, pos, causal)
        eager = _eager(a, *args)
        converted = a(*args).numpy()
        assert converted.shape == (3, length, VOCAB)
        np.testing.assert_allclose(converted, eager, rtol=1e-4, atol=1e-5)


def test_loss_curves_are_equal_and_fall():
    a, b = _twins()
    rng = np.random.default_rng(2)
    batches = [_batch(rng, 8, 6) for _ in range(12)]
    eager = _train(a, batches, use_translator=False)
    converted = _train(b, batches, use_translator=True)
    np.testing.assert_allclose(converted, eager, rtol=1e-3, atol=1e-4)
    assert np.mean(eager[-3:]) < np.mean(eager[:3])


def test_greedy_decode_while_loop_and_saved_model(tmp_path):
    core.seed(5)
    net = TinyTransformer()
    net.eval()
    dec = GreedyDecoder(net)
    rng = np.random.default_rng(3)
    src, pos, _, causal, _ = _batch(rng, 4, 6)
    for n_steps in (0, 1, 5):
        steps = np.array([n_steps], "int64")
        args = _tensors(src, pos, pos, causal, steps)
        eager = _eager(dec, *args)
        converted = dec(*args).numpy()
        np.testing.assert_array_equal(converted, eager)
        assert (eager[:, 0] == BOS).all()
        assert (eager[:, n_steps + 1:] == PAD).all()
    program = ProgramTranslator().get_program(dec.forward, *args)[0]
    assert "while" in {op.type for op in program.global_block().ops}
    ProgramTranslator().save_inference_model(str(tmp_path / "greedy"))
    exe = core.Executor(core.CPUPlace())
    prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "greedy"), exe)
    (saved,) = exe.run(prog, feed=dict(zip(feeds, [src, pos, pos, causal, steps])),
                       fetch_list=fetches)
    np.testing.assert_array_equal(saved, converted)


def _decode_args(src):
    pos = np.tile(np.arange(DEC_LEN, dtype="int64"), (len(src), 1))
    return [src, np.tile(np.arange(src.shape[1], dtype="int64"), (len(src), 1)), pos,
            _causal(DEC_LEN)]


def _check_scores(net, src, ids, scores):
    """Each hypothesis's score is the sum of the model's log-probabilities of its tokens up to
    its first EOS, teacher-forced: true only if the beam search carried every kept
    hypothesis's own prefix (the cell state reordered by parent)."""
    batch, steps, beam = ids.shape
    seqs = ids.transpose(0, 2, 1).reshape(batch * beam, steps)
    ends = [list(q).index(EOS) + 1 if EOS in q else steps for q in seqs]
    dec_in = np.zeros((batch * beam, DEC_LEN), "int64")
    dec_in[:, 0] = BOS
    for r, (q, n) in enumerate(zip(seqs, ends)):
        dec_in[r, 1:n] = q[:n - 1]
    src_b, src_pos, pos, causal = _decode_args(np.repeat(src, beam, axis=0))
    logits = _eager(net, *_tensors(src_b, src_pos, dec_in, pos, causal)).astype("float64")
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    want = [sum(logp[r, j, q[j]] for j in range(n)) for r, (q, n) in enumerate(zip(seqs, ends))]
    np.testing.assert_allclose(scores.reshape(-1), want, rtol=1e-4, atol=1e-3)


def test_beam_decode_eager_declarative_and_saved_model_agree(tmp_path):
    core.seed(5)
    net = TinyTransformer()
    net.eval()
    dec = BeamDecoder(net)
    rng = np.random.default_rng(4)
    decoded = []
    for batch, length in ((3, 5), (4, 7)):  # two batches, different source lengths
        src = _batch(rng, batch, length)[0]
        args = _tensors(*_decode_args(src))
        want_ids, want_scores = _eager(dec, *args)
        ids, scores = (o.numpy() for o in dec(*args))
        assert ids.shape == (batch, DEC_LEN, BEAM)  # untrained: no beam ends, all steps run
        np.testing.assert_array_equal(ids, want_ids)
        np.testing.assert_allclose(scores, want_scores, rtol=1e-5, atol=1e-5)
        assert (np.diff(scores, axis=1) <= 0).all()  # best first
        assert len({tuple(ids[b, :, k]) for b in range(batch) for k in range(BEAM)}) > batch
        decoded.append((src, ids, scores))
    program = ProgramTranslator().get_program(dec.forward, *args)[0]
    assert [op.type for op in program.global_block().ops].count("while") == 1
    ProgramTranslator().save_inference_model(str(tmp_path / "beam"))
    exe = core.Executor(core.CPUPlace())
    prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "beam"), exe)
    saved_ids, saved_scores = exe.run(prog, feed=dict(zip(feeds, _decode_args(src))),
                                      fetch_list=fetches)
    np.testing.assert_array_equal(saved_ids, ids)
    np.testing.assert_allclose(saved_scores, scores, rtol=1e-5, atol=1e-5)
    for src, ids, scores in decoded:
        _check_scores(net, src, ids, scores)


def test_trained_transformer_beam_decodes_the_reversal():
    core.seed(7)
    net = TinyTransformer()
    rng = np.random.default_rng(0)
    losses = _train(net, [_batch(rng, 32, DEC_LEN) for _ in range(100)], use_translator=False)
    assert losses[-1] < 0.3 * losses[0]
    net.eval()
    src, _, _, _, label = _batch(np.random.default_rng(5), 16, DEC_LEN)
    args = _tensors(*_decode_args(src))
    want_ids, want_scores = _eager(BeamDecoder(net), *args)
    ids, scores = (o.numpy() for o in BeamDecoder(net)(*args))
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(scores, want_scores, rtol=1e-5, atol=1e-5)
    assert all(EOS in ids[b, :, 0] for b in range(len(src)))  # the best hypotheses end
    _check_scores(net, src, ids, scores)
    n = (src != PAD).sum(1) + 1  # the reversal and its EOS
    right = [list(ids[b, :n[b], 0]) == list(label[b, :n[b]]) for b in range(len(src))]
    assert sum(right) >= 12, (sum(right), ids[:, :, 0], label)


def test_encoder_layer_exports_to_onnx(tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import translator.onnx as tonnx
    from translator import InputSpec

    core.seed(9)
    layer = core.nn.TransformerEncoderLayer(D, 2, 32, dropout=0.0, normalize_before=True)
    layer.eval()

    class Wrapped(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.layer = layer

        @declarative
        def forward(self, x):
            return self.layer(x)

    model = Wrapped()
    path = tmp_path / "enc.onnx"
    tonnx.export(model, path, input_spec=[InputSpec([None, None, D], "float32", "x")])
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for shape in ((1, 3, D), (4, 7, D)):
        x = np.random.default_rng(0).standard_normal(shape).astype("float32")
        (got,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(got, layer(core.to_tensor(x)).numpy(), rtol=1e-4,
                                   atol=1e-5)

"""A tiny Transformer (core.nn.Transformer) on a generated sequence-reversal task, eager vs
declarative: outputs on two batches of different lengths with padding masks, equal loss
curves over several training steps, greedy decoding with a data-dependent tensor ``while``
inside ``declarative`` code, and the saved inference model equal to the declarative call; an
encoder layer exported to ONNX runs in onnxruntime with the same values."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative

VOCAB, PAD, BOS, D = 8, 0, 1, 16


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


def _batch(rng, batch, length):
    """Sources of random lengths in [2, length] padded with PAD; the target is the reversed
    source behind BOS (teacher forcing)."""
    src = np.zeros((batch, length), "int64")
    dec_in = np.zeros((batch, length), "int64")
    label = np.zeros((batch, length), "int64")
    for b in range(batch):
        n = rng.integers(2, length + 1)
        seq = rng.integers(2, VOCAB, n)
        src[b, :n] = seq
        label[b, :n] = seq[::-1]
        dec_in[b, 0] = BOS
        dec_in[b, 1:n] = seq[::-1][:-1]
    pos = np.tile(np.arange(length, dtype="int64"), (batch, 1))
    causal = np.triu(np.full((length, length), -1e9, "float32"), 1)
    return src, pos, dec_in, causal, label


def _tensors(*arrays):
    return [core.to_tensor(a) for a in arrays]


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
        ProgramTranslator().enable(False)
        try:
            eager = a(*args).numpy()
        finally:
            ProgramTranslator().enable(True)
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
        ProgramTranslator().enable(False)
        try:
            eager = dec(*args).numpy()
        finally:
            ProgramTranslator().enable(True)
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

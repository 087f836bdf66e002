"""BeamSearchDecoder / dynamic_decode (core/nn/decode.py) and the beam search layers
(core/layers/beam.py): eager, static Program and declarative agree; the loop stops when every
beam has finished or after max_step_num + 1 steps; beam size 1 is greedy decoding; bad input
names the argument."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative

L = core.layers
V, E, H = 7, 5, 8


class TanhCell(core.nn.Layer):
    """A small RNN cell: ``forward(inputs, states) -> (outputs, new_states)``."""

    def __init__(self, n_in=E, hidden=H):
        super().__init__()
        self.lin = core.nn.Linear(n_in + hidden, hidden, act="tanh")

    def forward(self, inputs, states):
        h = self.lin(L.concat([inputs, states], axis=1))
        return h, h


class Model(core.nn.Layer):
    def __init__(self, end_bias=0.0):
        super().__init__()
        self.cell = TanhCell()
        self.emb = core.nn.Embedding([V, E])
        self.out = core.nn.Linear(H, V)
        self.end_bias = np.zeros(V, np.float32)
        self.end_bias[0] = end_bias

    def logits(self, h):
        return self.out(h) + self.end_bias

    def decoder(self, beam_size=3):
        return core.nn.BeamSearchDecoder(self.cell, 1, 0, beam_size, embedding_fn=self.emb,
                                         output_fn=self.logits)

    def decode(self, h, beam_size=3, max_step_num=12):
        return core.nn.dynamic_decode(self.decoder(beam_size), h, max_step_num=max_step_num,
                                      return_length=True)


def _model(seed=5, end_bias=0.0):
    core.seed(seed)
    return Model(end_bias)


@pytest.fixture
def h0():
    return np.random.default_rng(2).standard_normal((3, H)).astype(np.float32)


def _eager(model, h, **kw):
    with core.no_grad():
        ids, states, lengths = model.decode(core.to_tensor(h), **kw)
    return ids.numpy(), states.log_probs.numpy(), lengths.numpy()


def test_eager_decode_shapes_and_sequences_follow_parents(h0):
    model = _model()
    ids, log_probs, lengths = _eager(model, h0)
    steps = ids.shape[1]
    assert ids.shape == (3, steps, 3) and ids.dtype == np.int64
    assert log_probs.shape == (3, 3) and lengths.shape == (3, 3)
    # beams sorted best first; a finished beam repeats the end token after its end
    assert (np.diff(log_probs, axis=1) <= 0).all()
    for b in range(3):
        for k in range(3):
            seq = list(ids[b, :, k])
            if 0 in seq:
                e = seq.index(0)
                assert all(t == 0 for t in seq[e:])
                assert lengths[b, k] == e + 1 or lengths[b, k] == e


def _score(model, h, seq):
    """Sum of log-probabilities of ``seq`` under the model, stepping the cell eagerly."""
    total, tok, state = 0.0, np.array([1]), core.to_tensor(h[None])
    with core.no_grad():
        for t in seq:
            out, state = model.cell(model.emb(core.to_tensor(tok)), state)
            lp = L.log_softmax(model.logits(out)).numpy()[0]
            total += lp[t]
            if t == 0:
                break
            tok = np.array([t])
    return total


def test_reported_scores_are_the_sequences_log_probabilities(h0):
    model = _model()
    ids, log_probs, _ = _eager(model, h0)
    for b in range(3):
        for k in range(3):
            np.testing.assert_allclose(_score(model, h0[b], ids[b, :, k]), log_probs[b, k],
                                       rtol=1e-4, atol=1e-4)


def test_declarative_equals_eager_with_one_while_op(h0):
    model = _model()
    want = _eager(model, h0)

    @declarative
    def decode(h):
        ids, states, lengths = model.decode(h)
        return ids, states.log_probs, lengths

    with core.no_grad():
        got = [v.numpy() for v in decode(core.to_tensor(h0))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    main = ProgramTranslator().get_program(decode, core.to_tensor(h0))[0]
    types = [op.type for op in main.global_block().ops]
    assert types.count("while") == 1
    # another batch (different values) through the same program
    h1 = np.random.default_rng(9).standard_normal((3, H)).astype(np.float32) * 3
    with core.no_grad():
        got = decode(core.to_tensor(h1))[0].numpy()
    np.testing.assert_array_equal(got, _eager(model, h1)[0])


def test_static_program_and_saved_model_equal_eager(h0, tmp_path):
    model = _model()
    want = _eager(model, h0)
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            h = core.static.data("h", [None, H], "float32")
            smodel = _model()
            ids, states, lengths = smodel.decode(h)
        exe = core.static.Executor(core.CPUPlace())
        exe.run(startup)
        scope = core.static.global_scope()
        for (name, value), (pname, param) in zip(sorted(state.items()),
                                                 sorted(smodel.state_dict().items())):
            assert name == pname
            scope.var(param.name).set_value(value)
        got = exe.run(main, feed={"h": h0}, fetch_list=[ids, states.log_probs, lengths])
        # the pruned inference program keeps the loop variables its body never reads
        core.io.save_inference_model(str(tmp_path / "m"), ["h"], [ids], exe, main)
        prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "m"), exe)
        (saved,) = exe.run(prog, feed={feeds[0]: h0}, fetch_list=fetches)
    finally:
        core.disable_static()
    assert [op.type for op in main.global_block().ops].count("while") == 1
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(saved, want[0])


def test_stops_early_when_every_beam_has_finished(h0):
    model = _model(end_bias=4.0)  # the end token is likely: every beam ends after few steps
    ids, _, lengths = _eager(model, h0, max_step_num=30)
    assert (lengths <= ids.shape[1]).all() and (lengths >= 1).all()
    assert ids.shape[1] < 10
    assert (ids[:, -1, :] == 0).all()

    @declarative
    def decode(h):
        return model.decode(h, max_step_num=30)[0]

    with core.no_grad():
        np.testing.assert_array_equal(decode(core.to_tensor(h0)).numpy(), ids)


def test_max_step_num_bounds_the_steps(h0):
    model = _model(end_bias=-50.0)  # never ends
    for max_steps in (0, 4):
        ids, _, lengths = _eager(model, h0, max_step_num=max_steps)
        assert ids.shape[1] == max_steps + 1  # PaddlePaddle's count
        assert (lengths == max_steps + 1).all()

    @declarative
    def decode(h):
        return model.decode(h, max_step_num=4)[0]

    with core.no_grad():
        got = decode(core.to_tensor(h0)).numpy()
    np.testing.assert_array_equal(got, _eager(model, h0, max_step_num=4)[0])


def test_beam_size_one_is_greedy(h0):
    model = _model()
    ids, _, _ = _eager(model, h0, beam_size=1, max_step_num=8)
    with core.no_grad():
        state = core.to_tensor(h0)
        tok = core.to_tensor(np.ones(3, np.int64))
        done = np.zeros(3, bool)
        greedy = []
        for _ in range(ids.shape[1]):
            out, state = model.cell(model.emb(tok), state)
            nxt = np.argmax(model.logits(out).numpy(), axis=1)
            nxt[done] = 0
            greedy.append(nxt)
            done |= nxt == 0
            tok = core.to_tensor(nxt.astype(np.int64))
    np.testing.assert_array_equal(ids[:, :, 0], np.stack(greedy, axis=1))


def test_tile_beam_merge_with_batch():
    x = core.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = core.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy()
    np.testing.assert_array_equal(y, np.repeat(x.numpy(), 2, axis=0))


def test_bad_input_names_the_argument(h0):
    model = _model()
    with pytest.raises(ValueError, match="beam_size"):
        core.nn.BeamSearchDecoder(model.cell, 1, 0, 0)
    with pytest.raises(TypeError, match="cell"):
        core.nn.BeamSearchDecoder(None, 1, 0, 2)
    with pytest.raises(ValueError, match="beam_size"):
        core.nn.BeamSearchDecoder.tile_beam_merge_with_batch(core.to_tensor(h0), 0)
    with pytest.raises(ValueError, match="max_step_num"):
        core.nn.dynamic_decode(model.decoder(), core.to_tensor(h0), max_step_num=-1)
    with pytest.raises(TypeError, match="decoder"):
        core.nn.dynamic_decode(model.cell, core.to_tensor(h0))

    class BadCell(core.nn.Layer):
        def forward(self, inputs, states):
            return states, states[:1]

    dec = core.nn.BeamSearchDecoder(BadCell(), 1, 0, 2, embedding_fn=model.emb,
                                    output_fn=model.logits)
    with pytest.raises(ValueError, match=r"new states have 1 rows .* 6 = batch \* beam_size"):
        core.nn.dynamic_decode(dec, core.to_tensor(h0))
    dec = core.nn.BeamSearchDecoder(model.cell, 1, 9, 2, embedding_fn=model.emb,
                                    output_fn=model.logits)
    with pytest.raises(ValueError, match="end_token=9"):
        core.nn.dynamic_decode(dec, core.to_tensor(h0))
    ids = core.to_tensor(np.zeros((2, 3, 2), np.int64))
    with pytest.raises(ValueError, match="same shape"):
        L.gather_tree(ids, core.to_tensor(np.zeros((2, 3, 3), np.int64)))
    with pytest.raises(core.errors.OpError, match="Parents holds 5"):
        L.gather_tree(ids, core.to_tensor(np.full((2, 3, 2), 5, np.int64)))
    s = core.to_tensor(np.zeros((5, 4), np.float32))
    p = core.to_tensor(np.zeros((5, 1), np.int64))
    with pytest.raises(ValueError, match="beam_size=2"):
        L.beam_search(p, core.to_tensor(np.zeros((5, 1), np.float32)), None, s, 2, 0)
    with pytest.raises(ValueError, match="beam_size"):
        L.beam_search(p, p, None, s, 0, 0)
    with pytest.raises(ValueError, match="parent_idx"):
        L.beam_search_decode([p], [s], 1, 0)


def test_fluid_beam_search_loop_finds_what_the_decoder_finds(h0):
    """fluid's step-by-step beam_search + beam_search_decode over the padded layout gives the
    sequences and scores BeamSearchDecoder gives."""
    model = _model()
    beam = 3
    ids, log_probs, _ = _eager(model, h0, beam_size=beam)
    steps = ids.shape[1]
    with core.no_grad():
        state = core.nn.BeamSearchDecoder.tile_beam_merge_with_batch(core.to_tensor(h0), beam)
        pre_ids = core.to_tensor(np.ones((3 * beam, 1), np.int64))
        first = np.tile(np.array([0.0] + [-1e9] * (beam - 1), np.float32), 3)
        pre_scores = core.to_tensor(first[:, None])
        all_ids, all_scores, all_parents = [], [], []
        for _ in range(steps):
            out, state = model.cell(model.emb(L.reshape(pre_ids, [-1])), state)
            acc = L.log_softmax(model.logits(out)) + pre_scores
            topv, topi = L.topk(acc, beam)
            pre_ids, pre_scores, parent = L.beam_search(pre_ids, pre_scores, topi, topv, beam,
                                                        0, return_parent_idx=True)
            state = L.gather(state, parent)
            all_ids.append(pre_ids)
            all_scores.append(pre_scores)
            all_parents.append(parent)
        sent, scores = L.beam_search_decode(all_ids, all_scores, beam, 0,
                                            parent_idx=all_parents)
    np.testing.assert_array_equal(sent.numpy(), ids.transpose(0, 2, 1))
    np.testing.assert_allclose(scores.numpy()[:, :, -1], log_probs, rtol=1e-5, atol=1e-4)


def test_fluid_layers_names():
    assert core.layers.dynamic_decode is core.nn.dynamic_decode
    assert core.layers.BeamSearchDecoder is core.nn.BeamSearchDecoder
    assert issubclass(core.layers.BeamSearchDecoder, core.layers.Decoder)


class GreedyDecoder(core.nn.Decoder):
    """A decoder that does not track its own finished flags: dynamic_decode keeps finished
    sequences finished, counts lengths and (impute_finished) freezes their states."""

    def __init__(self, model):
        self.model = model

    def initialize(self, h):
        tokens = L.cast(L.zeros_like(h[:, 0]), "int64") + 1
        return self.model.emb(tokens), h, L.cast(L.zeros_like(tokens), "bool")

    def step(self, time, inputs, states):
        out, new = self.model.cell(inputs, states)
        ids = L.argmax(self.model.logits(out), axis=1)
        return ids, new, self.model.emb(ids), L.equal(ids, np.int64(0))


def test_decoder_without_own_finished_flags_impute_finished(h0):
    model = _model(end_bias=-0.5)
    h = np.concatenate([h0, h0 * -2.0], axis=0)

    def run(x):
        return core.nn.dynamic_decode(GreedyDecoder(model), x, max_step_num=9,
                                      impute_finished=True, return_length=True)

    with core.no_grad():
        ids, final, lengths = (v.numpy() for v in run(core.to_tensor(h)))
        # reference: the plain greedy loop, remembering every step's state
        state, tok, seen = core.to_tensor(h), core.to_tensor(np.ones(6, np.int64)), []
        for _ in range(ids.shape[1]):
            out, state = model.cell(model.emb(tok), state)
            tok = L.argmax(model.logits(out), axis=1)
            seen.append((tok.numpy(), state.numpy()))
    greedy = np.stack([s[0] for s in seen], axis=1)
    for b in range(6):
        row = list(ids[b])
        end = row.index(0) if 0 in row else len(row) - 1
        # up to its end a sequence is the greedy one; after it, its state stays frozen
        np.testing.assert_array_equal(ids[b, :end + 1], greedy[b, :end + 1])
        assert lengths[b] == (end + 1 if 0 in row else len(row))
        np.testing.assert_allclose(final[b], seen[end][1][b], rtol=1e-6)
    assert ids.shape[1] <= 10 and (lengths < ids.shape[1]).any()

    @declarative
    def decode(x):
        return run(x)

    with core.no_grad():
        got = [v.numpy() for v in decode(core.to_tensor(h))]
    for g, w in zip(got, (ids, final, lengths)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_initial_states_with_different_batches_are_an_error(h0):
    model = _model()
    with pytest.raises(ValueError, match="different batch sizes"):
        core.nn.dynamic_decode(model.decoder(), [core.to_tensor(h0), core.to_tensor(h0[:2])])


def test_output_time_major_and_is_test(h0):
    model = _model()
    with core.no_grad():
        batch_major = model.decode(core.to_tensor(h0))[0].numpy()
        time_major, _ = core.nn.dynamic_decode(model.decoder(), core.to_tensor(h0),
                                               max_step_num=12, output_time_major=True)
    np.testing.assert_array_equal(time_major.numpy(), batch_major.transpose(1, 0, 2))

    @declarative
    def decode(h):
        return core.nn.dynamic_decode(model.decoder(), h, max_step_num=12, is_test=True)[0]

    with core.no_grad():
        np.testing.assert_array_equal(decode(core.to_tensor(h0)).numpy(), batch_major)
    main = ProgramTranslator().get_program(decode, core.to_tensor(h0))[0]
    (loop,) = [op for op in main.global_block().ops if op.type == "while"]
    assert loop.attrs["is_test"] is True


def test_beam_search_with_lstm_cell_eager_equals_declarative():
    core.seed(12)
    cell = core.nn.LSTMCell(E, H)
    emb = core.nn.Embedding([V, E])
    out = core.nn.Linear(H, V)
    h = np.random.default_rng(5).standard_normal((2, H)).astype(np.float32)
    c = np.random.default_rng(6).standard_normal((2, H)).astype(np.float32)

    def decode(h, c):
        dec = core.nn.BeamSearchDecoder(cell, 1, 0, 4, embedding_fn=emb, output_fn=out)
        ids, states = core.nn.dynamic_decode(dec, [h, c], max_step_num=7)
        return ids, states.log_probs

    with core.no_grad():
        want = [v.numpy() for v in decode(core.to_tensor(h), core.to_tensor(c))]
        got = [v.numpy() for v in declarative(decode)(core.to_tensor(h), core.to_tensor(c))]
    assert want[0].shape[0] == 2 and want[0].shape[2] == 4
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-5)


class CacheCell(core.nn.Layer):
    """Self-attention over the tokens decoded so far: its state, a ``MultiHeadAttention.Cache``,
    grows by one position each step."""

    def __init__(self):
        super().__init__()
        self.emb = core.nn.Embedding([V, H])
        self.attn = core.nn.MultiHeadAttention(H, 2)
        self.out = core.nn.Linear(H, V)

    def forward(self, ids, states):
        x = L.unsqueeze(self.emb(ids), [1])
        y, cache = self.attn(x, x, x, None, core.nn.MultiHeadAttention.Cache(*states))
        return self.out(L.squeeze(y, [1])), tuple(cache)


def test_cell_state_that_grows_each_step_declarative_equals_eager():
    """The state's length dim is unknown inside the while op: the decoder reshapes between
    [batch, beam, ...] and [batch * beam, ...] with its run-time size."""
    core.seed(13)
    dec = core.nn.BeamSearchDecoder(CacheCell(), 1, 0, 3)
    k = np.random.default_rng(7).standard_normal((2, 2, 1, H // 2)).astype(np.float32)

    def decode(k):
        ids, states = core.nn.dynamic_decode(dec, (k, k), max_step_num=5)
        return ids, states.log_probs, states.cell_states[0]

    with core.no_grad():
        want = [v.numpy() for v in decode(core.to_tensor(k))]
        got = [v.numpy() for v in declarative(decode)(core.to_tensor(k))]
    steps = want[0].shape[1]
    assert want[2].shape == (2, 3, 2, 1 + steps, H // 2)
    np.testing.assert_array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    main = ProgramTranslator().get_program(declarative(decode), core.to_tensor(k))[0]
    assert [op.type for op in main.global_block().ops].count("while") == 1


def test_beam_decode_program_exports_to_onnx(h0, tmp_path):
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from core.onnx import export_program

    model = _model()

    @declarative
    def decode(h):
        return model.decode(h)[0]

    with core.no_grad():
        ids = decode(core.to_tensor(h0)).numpy()
    ProgramTranslator().save_inference_model(str(tmp_path / "dec"))
    path = export_program(str(tmp_path / "dec"), str(tmp_path / "dec.onnx"))
    sess = ort.InferenceSession(path)
    (got,) = sess.run(None, {sess.get_inputs()[0].name: h0})
    np.testing.assert_array_equal(got, ids)

"""Variable-length batches (LoD tensors as padded batches plus lengths), the sequence
functions and the CRF functions: eager, static programs fed LoD tensors, declarative code,
and clear errors for bad lengths and labels."""
import numpy as np
import pytest

import core
from core import layers
from translator import ProgramTranslator, declarative


def test_create_lod_tensor_and_its_methods():
    t = core.create_lod_tensor(np.arange(12, dtype="float32").reshape(6, 2), [[2, 0, 4]],
                               core.CPUPlace())
    assert t.recursive_sequence_lengths() == [[2, 0, 4]]
    assert t.lod() == [[0, 2, 2, 6]]
    assert t.shape() == [6, 2]
    assert t.has_valid_recursive_sequence_lengths()
    np.testing.assert_array_equal(t.numpy()[3], [6, 7])
    t.set_lod([[0, 3, 6]])
    assert t.recursive_sequence_lengths() == [[3, 3]]
    t.set_recursive_sequence_lengths([[1, 5]])
    assert t.lod() == [[0, 1, 6]]
    words = core.create_lod_tensor([[1, 2, 3], [4]], [[3, 1]], core.CPUPlace())
    assert words.shape() == [4, 1] and words.numpy().dtype == np.int64
    copy = core.create_lod_tensor(words, [[2, 2]], core.CPUPlace())
    assert copy.recursive_sequence_lengths() == [[2, 2]]
    assert words.recursive_sequence_lengths() == [[3, 1]]


def test_lod_errors_name_the_problem():
    with pytest.raises(ValueError, match=r"add up to 5, but the data has 6 rows"):
        core.create_lod_tensor(np.zeros((6, 2)), [[2, 3]], core.CPUPlace())
    with pytest.raises(ValueError, match="one level of lengths"):
        core.create_lod_tensor(np.zeros((2, 1)), [[1], [1, 1]], core.CPUPlace())
    with pytest.raises(ValueError, match="must be >= 0"):
        core.create_lod_tensor(np.zeros((2, 1)), [[3, -1]], core.CPUPlace())
    with pytest.raises(ValueError, match="does not match the lengths"):
        core.create_lod_tensor([[1, 2], [3]], [[1, 2]], core.CPUPlace())
    t = core.create_lod_tensor(np.zeros((2, 1)), [[1, 1]], core.CPUPlace())
    with pytest.raises(ValueError, match="offsets must not decrease"):
        t.set_lod([[0, 2, 1]])


def _x():
    return np.random.default_rng(0).standard_normal((3, 4, 2)).astype("float32")


def test_eager_functions_with_lengths_and_lod_tensors():
    x = _x()
    lens = np.array([2, 4, 0], np.int64)
    xt = core.to_tensor(x)
    got = layers.sequence_pool(xt, "average", length=lens).numpy()
    np.testing.assert_allclose(got[0], x[0, :2].mean(0), rtol=1e-6)
    np.testing.assert_allclose(got[2], 0)
    rev = layers.sequence_reverse(xt, length=lens)
    np.testing.assert_array_equal(rev.numpy()[0, :2], x[0, 1::-1])
    # the reversed batch remembers its lengths
    np.testing.assert_allclose(layers.sequence_pool(rev, "last").numpy()[0], x[0, 0])
    # an eager LoD tensor is its padded batch
    lod = core.create_lod_tensor(np.concatenate([x[0, :2], x[1]]), [[2, 4]], core.CPUPlace())
    np.testing.assert_allclose(layers.sequence_pool(lod, "sum").numpy(),
                               [x[0, :2].sum(0), x[1].sum(0)], rtol=1e-6)
    mask = layers.sequence_mask(core.to_tensor(lens), maxlen=5, dtype="float32").numpy()
    np.testing.assert_array_equal(mask.sum(1), [2, 4, 0])
    out, out_len = layers.sequence_pad(xt, 9.0, maxlen=5, length=lens)
    assert out.shape == [3, 5, 2] and (out.numpy()[2] == 9).all()
    np.testing.assert_array_equal(out_len.numpy(), lens)
    packed = layers.sequence_unpad(xt, lens)
    assert packed.shape == [6, 2]
    sm = layers.sequence_softmax(core.to_tensor(x[..., 0]), length=lens).numpy()
    np.testing.assert_allclose(sm.sum(1), [1, 1, 0], rtol=1e-6)
    ex = layers.sequence_expand(core.to_tensor(x[:, 0]), xt, length=lens)
    np.testing.assert_array_equal(ex.numpy()[1, 3], x[1, 0])


def test_bad_lengths_are_clear_errors():
    xt = core.to_tensor(_x())
    with pytest.raises(ValueError, match=r"'length' must lie in \[0, 4\]"):
        layers.sequence_pool(xt, "sum", length=[2, 5, 0])
    with pytest.raises(ValueError, match=r"'length' must lie in \[0, 4\]"):
        layers.sequence_reverse(xt, length=[2, -1, 0])
    with pytest.raises(ValueError, match="one entry per sequence"):
        layers.sequence_pool(xt, "sum", length=[2, 1])
    with pytest.raises(ValueError, match="carries no sequence lengths"):
        layers.sequence_pool(xt, "sum")
    with pytest.raises(ValueError, match="'pool_type' must be one of"):
        layers.sequence_pool(xt, "median", length=[1, 1, 1])


def test_static_program_fed_a_lod_tensor():
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            words = core.static.data("words", [None, 1], "int64", lod_level=1)
            assert words.shape == [-1, -1, 1]
            emb = layers.embedding(words, size=[10, 3], param_attr="emb_w")
            pooled = layers.sequence_pool(emb, "sum")
            first = layers.sequence_pool(emb, "first")
        exe = core.Executor(core.CPUPlace())
        exe.run(startup)
        w = np.asarray(core.global_scope().find_var("emb_w").get_tensor())
        data = core.create_lod_tensor([[1, 2, 3], [4], [5, 6]], [[3, 1, 2]], core.CPUPlace())
        got, got_first = exe.run(main, feed={"words": data}, fetch_list=[pooled, first])
        np.testing.assert_allclose(got, [w[[1, 2, 3]].sum(0), w[4], w[[5, 6]].sum(0)],
                                   rtol=1e-6)
        np.testing.assert_allclose(got_first, w[[1, 4, 5]], rtol=1e-6)
        # the same batch as a (padded, lengths) pair
        padded = np.array([[1, 2, 3], [4, 0, 0], [5, 6, 0]], np.int64)[..., None]
        (again,) = exe.run(main, feed={"words": (padded, np.array([3, 1, 2]))},
                           fetch_list=[pooled])
        np.testing.assert_allclose(again, got, rtol=1e-6)
        with pytest.raises(ValueError, match="needs sequence lengths"):
            exe.run(main, feed={"words": core.static.LoDTensor(value=padded)},
                    fetch_list=[pooled])
    finally:
        core.disable_static()


def _crf_batch(rng, batch=4, time=5, tags=3):
    em = rng.standard_normal((batch, time, tags)).astype("float32")
    lab = rng.integers(0, tags, (batch, time)).astype("int64")
    lens = np.array([5, 2, 0, 3][:batch], np.int64)
    return em, lab, lens


def test_crf_trains_and_decodes_eager_static_declarative():
    rng = np.random.default_rng(1)
    em, lab, lens = _crf_batch(rng)
    core.seed(2)
    trans = core.create_parameter([5, 3], "float32", attr=core.ParamAttr(name="crf_w"))
    emt = core.to_tensor(em, stop_gradient=False)
    nll = layers.linear_chain_crf(emt, core.to_tensor(lab), trans, length=lens)
    assert nll.shape == [4, 1] and float(nll.numpy()[2, 0]) == 0.0
    assert (nll.numpy()[[0, 1, 3]] > 0).all()
    layers.reduce_mean(nll).backward()
    assert np.abs(trans.gradient()).sum() > 0
    np.testing.assert_array_equal(emt.gradient()[2], 0)
    path = layers.crf_decoding(core.to_tensor(em), trans, length=lens).numpy()
    assert (path[2] == 0).all() and (path[1, 2:] == 0).all()
    hit = layers.crf_decoding(core.to_tensor(em), trans, label=core.to_tensor(path),
                              length=lens).numpy()
    np.testing.assert_array_equal(hit.sum(1), lens)

    @declarative
    def decode(e, length):
        return layers.crf_decoding(e, trans, length=length)

    np.testing.assert_array_equal(decode(core.to_tensor(em), core.to_tensor(lens)).numpy(),
                                  path)
    # static
    w = trans.numpy()
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            e = core.static.data("e", [None, None, 3], "float32")
            y = core.static.data("y", [None, None], "int64")
            n = core.static.data("n", [None], "int64")
            cost = layers.linear_chain_crf(e, y, core.ParamAttr(name="crf_static"), length=n)
            best = layers.crf_decoding(e, core.ParamAttr(name="crf_static"), length=n)
        exe = core.Executor(core.CPUPlace())
        exe.run(startup)
        core.global_scope().var("crf_static").set_value(w)
        got_cost, got_path = exe.run(main, feed={"e": em, "y": lab, "n": lens},
                                     fetch_list=[cost, best])
    finally:
        core.disable_static()
    np.testing.assert_allclose(got_cost, nll.numpy(), rtol=1e-5)
    np.testing.assert_array_equal(got_path, path)


def test_crf_bad_input():
    rng = np.random.default_rng(3)
    em, lab, lens = _crf_batch(rng)
    trans = core.to_tensor(np.zeros((5, 3), "float32"))
    bad = lab.copy()
    bad[0, 1] = 7
    with pytest.raises(core.errors.OpError, match=r"Label must lie in \[0, 3\)"):
        layers.linear_chain_crf(core.to_tensor(em), core.to_tensor(bad), trans, length=lens)
    with pytest.raises(ValueError, match=r"must have shape \[5, 3\]"):
        layers.linear_chain_crf(core.to_tensor(em), core.to_tensor(lab),
                                core.to_tensor(np.zeros((3, 3), "float32")), length=lens)
    with pytest.raises(ValueError, match=r"'label' must be \[batch, time\]"):
        layers.linear_chain_crf(core.to_tensor(em), core.to_tensor(lab[:, :2]), trans,
                                length=lens)


def test_chunk_eval_function():
    inf = core.to_tensor(np.array([[0, 1, 4, 2, 3]], np.int64))
    lab = core.to_tensor(np.array([[0, 1, 4, 2, 3]], np.int64))
    _, _, f1, n_inf, _, n_ok = layers.chunk_eval(inf, lab, "IOB", 2,
                                                     seq_length=np.array([5]))
    assert float(f1.numpy()[0]) == 1.0 and int(n_ok.numpy()[0]) == 2
    assert int(n_inf.numpy()[0]) == 2
    _, _, _, n_inf, _, _ = layers.chunk_eval(inf, lab, "IOB", 2, excluded_chunk_types=[1],
                                             seq_length=np.array([5]))
    assert int(n_inf.numpy()[0]) == 1
    with pytest.raises(ValueError, match="'chunk_scheme' must be one of"):
        layers.chunk_eval(inf, lab, "BIO", 2, seq_length=np.array([5]))


class Tagger(core.nn.Layer):
    """Embedding, a bidirectional context from sequence_reverse, emissions and a CRF."""

    def __init__(self, vocab=12, dim=8, tags=3):
        super().__init__()
        self.emb = core.nn.Embedding([vocab, dim])
        self.fw = core.nn.Linear(dim, dim)
        self.bw = core.nn.Linear(dim, dim)
        self.out = core.nn.Linear(2 * dim, tags)
        self.trans = self.create_parameter([tags + 2, tags], None, "float32")

    @declarative
    def forward(self, words, length, label):
        h = self.emb(words)
        back = layers.sequence_reverse(h, length=length)
        ctx = layers.concat([layers.tanh(self.fw(h)),
                             layers.sequence_reverse(layers.tanh(self.bw(back)),
                                                     length=length)], axis=2)
        emission = self.out(ctx)
        cost = layers.linear_chain_crf(emission, label, self.trans, length=length)
        path = layers.crf_decoding(emission, self.trans, length=length)
        return layers.reduce_mean(cost), path


def _tagger_batch(rng, batch, time):
    words = rng.integers(1, 12, (batch, time)).astype("int64")
    lens = rng.integers(1, time + 1, batch).astype("int64")
    return words, lens, (words % 3).astype("int64")


def test_tagger_eager_vs_declarative_and_saved_model(tmp_path):
    core.seed(4)
    a = Tagger()
    b = Tagger()
    b.set_dict(a.state_dict())
    rng = np.random.default_rng(5)
    batches = [_tagger_batch(rng, 4, t) for t in (6, 4) * 4]
    curves = []
    for net, on in ((a, False), (b, True)):
        ProgramTranslator().enable(on)
        try:
            opt = core.optimizer.Adam(learning_rate=0.05, parameter_list=net.parameters())
            losses = []
            for words, lens, tags in batches:
                loss, _ = net(*[core.to_tensor(v) for v in (words, lens, tags)])
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
    words, lens, tags = _tagger_batch(rng, 3, 5)
    args = [core.to_tensor(v) for v in (words, lens, tags)]
    _, path = b(*args)
    ProgramTranslator().save_inference_model(str(tmp_path / "tagger"), fetch=[1])
    exe = core.Executor(core.CPUPlace())
    prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "tagger"), exe)
    (saved,) = exe.run(prog, feed=dict(zip(feeds, [words, lens, tags])), fetch_list=fetches)
    np.testing.assert_array_equal(saved, path.numpy())

"""The seq2seq model family (examples/seq2seq.py: LSTM encoder-decoder with attention, beam
search decoding): eager and declarative agree on batches of different lengths, training
curves match, and the saved inference model decodes what the declarative function decodes."""
import numpy as np
import pytest

import core
from examples import seq2seq
from translator import ProgramTranslator


def _model(seed=3):
    core.seed(seed)
    return seq2seq.Seq2Seq(hidden=16, beam_size=3, max_len=8)


def _eager(fn, *args):
    ProgramTranslator().enable(False)
    try:
        return fn(*args)
    finally:
        ProgramTranslator().enable(True)


@pytest.fixture
def batches():
    rng = np.random.default_rng(4)
    return [seq2seq.make_batch(rng, 4, 3), seq2seq.make_batch(rng, 5, 5)]


def test_eager_equals_declarative_on_batches_of_different_lengths(batches):
    model = _model()
    for batch in batches:
        src, tgt_in, tgt_out = (core.to_tensor(a) for a in batch)
        with core.no_grad():
            loss = model.loss(src, tgt_in, tgt_out).numpy()
            eager_loss = _eager(model.loss, src, tgt_in, tgt_out).numpy()
            ids = model.beam_decode(src).numpy()
            eager_ids = _eager(model.beam_decode, src).numpy()
        np.testing.assert_allclose(loss, eager_loss, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(ids, eager_ids)
        assert ids.shape[0] == len(batch[0]) and ids.shape[2] == 3
    program = ProgramTranslator().get_program(model.beam_decode, core.to_tensor(batches[1][0]))[0]
    assert [op.type for op in program.global_block().ops].count("while") == 1


def test_equal_loss_curves(batches):
    curves = []
    for declarative_on in (False, True):
        model = _model(seed=8)
        opt = core.optimizer.AdamOptimizer(learning_rate=0.01,
                                           parameter_list=model.parameters())
        ProgramTranslator().enable(declarative_on)
        try:
            curves.append([seq2seq.train_step(model, opt, batches[k % 2]) for k in range(6)])
        finally:
            ProgramTranslator().enable(True)
    np.testing.assert_allclose(curves[1], curves[0], rtol=1e-4, atol=1e-5)
    assert curves[0][-1] < curves[0][0]


def test_saved_model_equals_declarative_beam_decode(batches, tmp_path):
    model = _model()
    src = batches[1][0]
    with core.no_grad():
        ids = model.beam_decode(core.to_tensor(src)).numpy()
    ProgramTranslator().save_inference_model(str(tmp_path / "s2s"))
    exe = core.Executor(core.CPUPlace())
    prog, feeds, fetches = core.io.load_inference_model(str(tmp_path / "s2s"), exe)
    assert [op.type for op in prog.global_block().ops].count("while") == 1
    (saved,) = exe.run(prog, feed={feeds[0]: src}, fetch_list=fetches)
    np.testing.assert_array_equal(saved, ids)


def test_example_quick_mode(capsys):
    assert seq2seq.main(["--steps", "4", "--target", "2"])
    out = capsys.readouterr().out
    assert "step 2: loss" in out and "step 4: loss" in out
    assert "1 while op" in out
    assert "reloaded inference model vs declarative: 100% of sequences identical" in out


"""The seq2seq model family (examples/seq2seq.py: LSTM encoder-decoder with attention, beam
search decoding): eager and declarative agree on batches of different lengths, training
curves match, and the saved inference model decodes what the declarative function decodes."""
import numpy as np
import pytest

import core
from examples import seq2seq
from translator import ProgramTranslator

from .model_checks import assert_same_curves, eager_call, loss_curves, op_count, saved_model_run


def _model(seed=3):
    core.seed(seed)
    return seq2seq.Seq2Seq(hidden=16, beam_size=3, max_len=8)


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
            eager_loss = eager_call(model.loss, src, tgt_in, tgt_out).numpy()
            ids = model.beam_decode(src).numpy()
            eager_ids = eager_call(model.beam_decode, src).numpy()
        np.testing.assert_allclose(loss, eager_loss, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(ids, eager_ids)
        assert ids.shape[0] == len(batch[0]) and ids.shape[2] == 3
    program = ProgramTranslator().get_program(model.beam_decode, core.to_tensor(batches[1][0]))[0]
    assert op_count(program, "while") == 1


def test_equal_loss_curves(batches):
    eager, converted = loss_curves(
        _model(seed=8), _model(seed=8),
        lambda m: core.optimizer.AdamOptimizer(learning_rate=0.01, parameter_list=m.parameters()),
        [batches[k % 2] for k in range(6)], seq2seq.train_step)
    assert_same_curves(eager, converted, rtol=1e-4, atol=1e-5)


def test_saved_model_equals_declarative_beam_decode(batches, tmp_path):
    model = _model()
    src = batches[1][0]
    with core.no_grad():
        ids = model.beam_decode(core.to_tensor(src)).numpy()
    saved = saved_model_run(tmp_path / "s2s", [src])
    assert op_count(saved.program, "while") == 1
    np.testing.assert_array_equal(saved.outputs[0], ids)


def test_example_quick_mode(capsys):
    assert seq2seq.main(["--steps", "4", "--target", "2"])
    out = capsys.readouterr().out
    assert "step 2: loss" in out and "step 4: loss" in out
    assert "1 while op" in out
    assert "reloaded inference model vs declarative: 100% of sequences identical" in out


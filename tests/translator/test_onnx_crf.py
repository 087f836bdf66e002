"""A declarative tagger (embedding, linear emissions, Viterbi decoding with lengths) exported
to ONNX and run in onnxruntime at two batch sizes and time lengths against the same Layer run
eagerly: the decoded paths must be equal, 0 past each length (empty sequences included)."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import translator.onnx as tonnx  # noqa: E402
from core import layers  # noqa: E402
from translator import InputSpec, ProgramTranslator, declarative  # noqa: E402

VOCAB, TAGS = 30, 5


class Tagger(core.nn.Layer):
    def __init__(self, dim=6):
        super().__init__()
        self.emb = core.nn.Embedding([VOCAB, dim])
        self.out = core.nn.Linear(dim, TAGS)
        self.trans = self.create_parameter([TAGS + 2, TAGS], None, "float32")

    @declarative
    def forward(self, words, length):
        return layers.crf_decoding(self.out(self.emb(words)), self.trans, length=length)


def test_tagger_paths_in_onnxruntime_equal_eager(tmp_path):
    core.seed(3)
    model = Tagger()
    rng = np.random.default_rng(4)
    model.trans.set_value(rng.standard_normal((TAGS + 2, TAGS)).astype(np.float32))
    model.eval()
    path = tmp_path / "tagger.onnx"
    tonnx.export(model, path, input_spec=[InputSpec([None, None], "int64", "words"),
                                          InputSpec([None], "int64", "length")])
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["words", "length"]
    for batch, time in ((2, 5), (6, 11)):
        words = rng.integers(0, VOCAB, (batch, time)).astype(np.int64)
        length = rng.integers(0, time + 1, batch).astype(np.int64)
        length[0], length[-1] = time, 0
        (got,) = sess.run(None, {"words": words, "length": length})
        ProgramTranslator().enable(False)
        try:
            with core.no_grad():
                want = model(core.to_tensor(words), core.to_tensor(length)).numpy()
        finally:
            ProgramTranslator().enable(True)
        assert got.dtype == np.int64 and got.shape == (batch, time)
        np.testing.assert_array_equal(got, want)
        assert (got[np.arange(time)[None, :] >= length[:, None]] == 0).all()
        assert got[0].any()  # the full-length sequence decodes to real tags, not padding

"""Recurrent models (core.nn.LSTM / GRU / SimpleRNN, whose layers run the fused ``rnn`` op)
exported with ``translator.onnx.export`` and run in onnxruntime at two batch sizes against the
same Layer run eagerly, with padded sequences (``sequence_length``) and reverse directions; and
fluid's dynamic_gru / dynamic_lstm static programs against the executor."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import core.onnx as conx  # noqa: E402
import translator.onnx as tonnx  # noqa: E402
from core import static  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402
from translator import InputSpec, ProgramTranslator  # noqa: E402


class Tagger(core.nn.Layer):
    """A recurrent encoder and a linear head over every step, plus the final states."""

    def __init__(self, rnn, hidden_out):
        super().__init__()
        self.rnn = rnn
        self.head = core.nn.Linear(hidden_out, 3)

    def forward(self, x, lengths):
        out, final = self.rnn(x, sequence_length=lengths)
        states = final if isinstance(final, (tuple, list)) else (final,)
        return (self.head(out),) + tuple(states)


def _eager(layer, x, lengths):
    ProgramTranslator().enable(False)
    layer.eval()
    try:
        with core.no_grad():
            outs = layer(core.to_tensor(x), core.to_tensor(lengths))
    finally:
        layer.train()
        ProgramTranslator().enable(True)
    return [o.numpy() for o in outs]


def _check(model, isz, path, time_major=False):
    specs = [InputSpec([None, None, isz], "float32", "x"), InputSpec([None], "int64", "lengths")]
    tonnx.export(model, path, input_spec=specs)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3)
    for batch, steps in ((1, 4), (5, 6)):
        shape = (steps, batch, isz) if time_major else (batch, steps, isz)
        x = rng.standard_normal(shape).astype(np.float32)
        lengths = rng.integers(1, steps + 1, batch).astype(np.int64)
        lengths[0] = steps
        got = sess.run(None, {"x": x, "lengths": lengths})
        want = _eager(model, x, lengths)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_bidirectional_two_layer_lstm_with_lengths(tmp_path):
    core.seed(7)
    model = Tagger(core.nn.LSTM(4, 5, num_layers=2, direction="bidirect"), 10)
    _check(model, 4, tmp_path / "lstm.onnx")
    ops = {n.op_type for n in onnx.load(str(tmp_path / "lstm.onnx")).graph.node}
    assert "LSTM" in ops


def test_gru_with_lengths(tmp_path):
    core.seed(8)
    model = Tagger(core.nn.GRU(3, 6, num_layers=2), 6)
    _check(model, 3, tmp_path / "gru.onnx")


def test_time_major_bidirectional_simple_rnn(tmp_path):
    core.seed(9)
    model = Tagger(core.nn.SimpleRNN(3, 4, direction="bidirect", time_major=True,
                                     activation="relu"), 8)
    _check(model, 3, tmp_path / "rnn.onnx", time_major=True)


def _fluid_program(cell):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [-1, -1, 12], "float32")
        lengths = static.data("lengths", [-1], "int64")
        if cell:
            # fluid's defaults: peepholes (the bias's last 3 * hidden values, ONNX's P)
            bias = core.ParamAttr(initializer=core.initializer.Uniform(-1.0, 1.0))
            hidden, cell_seq = core.layers.dynamic_lstm(x, 12, bias_attr=bias,
                                                        is_reverse=True, length=lengths)
            fetch = [hidden, cell_seq]
        else:
            fetch = [core.layers.dynamic_gru(x, 4, length=lengths)]
    return main, startup, fetch


def test_fluid_dynamic_gru_and_lstm_programs(tmp_path):
    """fluid's dynamic_gru (the fluid GRU mode) and dynamic_lstm (projected-gates input) in
    static programs; dynamic_lstm's cell sequence reads the kernel's workspace, which has no
    ONNX form: an ExportError naming the op."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 5, 12)).astype(np.float32)
    lengths = np.array([5, 2, 4], np.int64)
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = static.Executor(core.CPUPlace())
        main, startup, fetch = _fluid_program(cell=False)
        exe.run(startup)
        (want,) = exe.run(main, feed={"x": x, "lengths": lengths}, fetch_list=fetch)
        path = conx.export_program(main, tmp_path / "gru.onnx", ["x", "lengths"], fetch)
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = sess.run(None, {"x": x, "lengths": lengths})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

        main, startup, (hidden, cell_seq) = _fluid_program(cell=True)
        exe.run(startup)
        (want,) = exe.run(main, feed={"x": x, "lengths": lengths}, fetch_list=[hidden])
        path = conx.export_program(main, tmp_path / "lstm.onnx", ["x", "lengths"], [hidden])
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = sess.run(None, {"x": x, "lengths": lengths})
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        with pytest.raises(conx.ExportError, match=r"rnn.*Reserve.*dynamic_lstm"):
            conx.export_program(main, tmp_path / "cell.onnx", ["x", "lengths"],
                                [hidden, cell_seq])
        assert not (tmp_path / "cell.onnx").exists()

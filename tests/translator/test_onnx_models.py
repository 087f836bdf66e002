"""The example models exported to ONNX end to end and run in onnxruntime at two batch sizes
against the same Layer run eagerly: MNIST (convolutions, pooling, softmax), the greedy RNN
decoder (a data-dependent ``while`` with ``break`` and a tensor array), and a transformer
block built from primitives (matmul, softmax, layer_norm, gelu). Also ``dy2static onnx`` on a
saved inference model."""
import os
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import translator.onnx as tonnx  # noqa: E402
from translator import InputSpec, ProgramTranslator, declarative  # noqa: E402
from translator.__main__ import main as cli_main  # noqa: E402

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                                "examples")))
import dynamic_decode  # noqa: E402
import export_onnx  # noqa: E402
import mnist_declarative  # noqa: E402
import mnist_model  # noqa: E402


def _session(path):
    return ort.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])


def _eager(layer, *args):
    ProgramTranslator().enable(False)
    try:
        with core.no_grad():
            out = layer(*[core.to_tensor(a) for a in args])
    finally:
        ProgramTranslator().enable(True)
    return out.numpy()


def test_mnist_at_two_batch_sizes(tmp_path):
    core.seed(5)
    model = mnist_model.MNIST()
    path = tmp_path / "mnist.onnx"
    tonnx.export(model, path, input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
    assert model.training  # put back in training mode
    sess = _session(path)
    assert [i.name for i in sess.get_inputs()] == ["image"]
    rng = np.random.default_rng(0)
    for batch in (1, 7):
        x = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
        (got,) = sess.run(None, {"image": x})
        model.eval()
        want = _eager(model, x)
        model.train()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


class Block(core.nn.Layer):
    """Pre-norm self-attention and a GELU feed-forward, from primitives."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.d, self.heads = d, heads
        self.qkv = core.nn.Linear(d, 3 * d)
        self.proj = core.nn.Linear(d, d)
        self.ln1 = core.nn.LayerNorm(d)
        self.ln2 = core.nn.LayerNorm(d)
        self.ff1 = core.nn.Linear(d, 2 * d)
        self.ff2 = core.nn.Linear(2 * d, d)

    @declarative
    def forward(self, x):
        b, t = core.layers.shape(x)[0], core.layers.shape(x)[1]
        h = self.ln1(x)
        q, k, v = core.layers.split(self.qkv(h), 3, dim=-1)
        dh = self.d // self.heads

        def heads(z):
            z = core.layers.reshape(z, [0, 0, self.heads, dh])
            return core.layers.transpose(z, [0, 2, 1, 3])

        att = core.layers.matmul(heads(q), heads(k), transpose_y=True, alpha=dh ** -0.5)
        att = core.layers.softmax(att, axis=-1)
        ctx = core.layers.transpose(core.layers.matmul(att, heads(v)), [0, 2, 1, 3])
        ctx = core.layers.reshape(ctx, [0, 0, self.d])
        x = x + self.proj(ctx)
        x = x + self.ff2(core.nn.functional.gelu(self.ff1(self.ln2(x))))
        return x * core.layers.cast(b * t > 0, "float32")


def test_transformer_block_at_two_batch_sizes(tmp_path):
    core.seed(6)
    block = Block()
    block.eval()
    path = tmp_path / "block.onnx"
    tonnx.export(block, path, input_spec=[InputSpec([None, None, 16], "float32", "x")])
    sess = _session(path)
    ops = {n.op_type for n in onnx.load(path).graph.node}
    assert {"MatMul", "Softmax", "LayerNormalization"} <= ops
    rng = np.random.default_rng(1)
    for batch, steps in ((2, 5), (3, 1)):
        x = rng.standard_normal((batch, steps, 16)).astype(np.float32)
        (got,) = sess.run(None, {"x": x})
        np.testing.assert_allclose(got, _eager(block, x), rtol=1e-4, atol=1e-5)


def test_rnn_decoder_with_data_dependent_while(tmp_path):
    core.seed(4)
    decoder = dynamic_decode.GreedyDecoder()
    path = tmp_path / "decoder.onnx"
    tonnx.export(decoder, path, input_spec=[InputSpec([None, 16], "float32", "state"),
                                            InputSpec([None], "int64", "tokens")])
    model = onnx.load(path)
    assert "Loop" in {n.op_type for n in model.graph.node}
    sess = _session(path)
    rng = np.random.default_rng(1)
    lengths = set()
    for batch in (3, 3, 1, 5, 2):
        state = (rng.standard_normal((batch, 16)) * 2.0).astype(np.float32)
        start = rng.integers(1, 8, size=batch).astype(np.int64)
        (got,) = sess.run(None, {"state": state, "tokens": start})
        want = _eager(decoder, state, start)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        lengths.add(got.shape[1])
    assert len(lengths) > 1  # the loop ran for different numbers of steps


def test_cli_exports_a_saved_inference_model(tmp_path, capsys):
    core.seed(7)
    model = mnist_declarative.MNIST()
    model.eval()
    x = np.random.default_rng(3).standard_normal((4, 1, 28, 28)).astype(np.float32)
    with core.no_grad():
        want = model(core.to_tensor(x)).numpy()
    ProgramTranslator().save_inference_model(os.fspath(tmp_path / "infer"), fetch=[0])
    out = tmp_path / "model.onnx"
    assert cli_main(["onnx", os.fspath(tmp_path / "infer"), "-o", os.fspath(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    sess = _session(out)
    (got,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    assert cli_main(["onnx", os.fspath(tmp_path / "missing"), "-o", os.fspath(out)]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_export_needs_an_input_spec(tmp_path):
    def f(x):
        return x * 2.0

    with pytest.raises(ValueError, match="input_spec"):
        tonnx.export(f, tmp_path / "f.onnx")
    tonnx.export(f, tmp_path / "f.onnx", input_spec=[np.ones((2, 3), np.float32)])
    (got,) = _session(tmp_path / "f.onnx").run(None, {"x": np.ones((2, 3), np.float32)})
    assert got.tolist() == [[2.0] * 3] * 2


def test_export_example_runs(capsys):
    assert export_onnx.main(["--steps", "2", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "same digit for 100.0%" in out and "batch    1: executor" in out


def noisy(x):
    y = x * 2.0
    return y + core.layers.gaussian_random([3], dtype="float32")


def test_unexportable_op_names_the_users_line(tmp_path):
    line = noisy.__code__.co_firstlineno + 2
    with pytest.raises(core.onnx.ExportError,
                       match=rf"gaussian_random.*test_onnx_models.py:{line}: return y \+ "):
        tonnx.export(noisy, tmp_path / "n.onnx", input_spec=[InputSpec([None, 3])])
    assert not os.listdir(tmp_path)


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_export_of_a_model_on_the_gpu(tmp_path):
    core.seed(8)
    with core.dygraph.guard(core.CUDAPlace(0)):
        model = mnist_model.MNIST()
        model.eval()
        x = np.random.default_rng(4).standard_normal((3, 1, 28, 28)).astype(np.float32)
        with core.no_grad():
            ProgramTranslator().enable(False)
            want = model(core.to_tensor(x)).numpy()
            ProgramTranslator().enable(True)
        tonnx.export(model, tmp_path / "gpu.onnx",
                     input_spec=[InputSpec([None, 1, 28, 28], "float32", "image")])
    (got,) = _session(tmp_path / "gpu.onnx").run(None, {"image": x})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def branchy(x, n):
    total = core.layers.zeros_like(x)
    if core.layers.reduce_mean(x) > 0:
        y = core.layers.relu(x)
    else:
        y = -x * 2.0
    i = 0
    while i < n:
        total = total + y * 2.0 + 1.0
        if core.layers.reduce_sum(total) > 50.0:
            break
        i += 1
    return total, i


def test_translated_if_and_while_take_every_path(tmp_path):
    path = tmp_path / "branchy.onnx"
    tonnx.export(branchy, path, input_spec=[InputSpec([None, 4], "float32", "x"),
                                            InputSpec([1], "int64", "n")])
    types = set()
    stack = [onnx.load(path).graph]
    while stack:
        g = stack.pop()
        for node in g.node:
            types.add(node.op_type)
            stack.extend(a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH)
    assert {"If", "Loop"} <= types
    sess = _session(path)
    rng = np.random.default_rng(5)
    for batch, sign, n in ((2, 1, 0), (3, -1, 1), (1, 1, 6), (5, -1, 40)):
        x = (np.abs(rng.standard_normal((batch, 4))) * sign).astype(np.float32)
        got = sess.run(None, {"x": x, "n": np.array([n], np.int64)})
        ProgramTranslator().enable(False)
        want = branchy(core.to_tensor(x), core.to_tensor(np.array([n], np.int64)))
        ProgramTranslator().enable(True)
        np.testing.assert_allclose(got[0], want[0].numpy(), rtol=1e-5, atol=1e-6)
        assert int(np.asarray(got[1]).reshape(-1)[0]) == int(np.asarray(want[1]).reshape(-1)[0])

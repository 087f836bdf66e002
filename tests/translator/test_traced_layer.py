"""TracedLayer: records a Layer's forward as a static Program without converting source."""
import numpy as np
import pytest

import core
from translator import TracedLayer


class Small(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(4, 3, act="relu")

    def forward(self, x, y):
        return self.fc(x) + y, core.layers.reduce_sum(x, dim=[1])


class Branchy(core.nn.Layer):
    def forward(self, x):
        if core.layers.reduce_sum(x) > 0:
            return x * 2.0
        return x


def _inputs(rows=2):
    rng = np.random.default_rng(0)
    return [core.to_tensor(rng.standard_normal((rows, 4)).astype(np.float32)),
            core.to_tensor(rng.standard_normal((rows, 3)).astype(np.float32))]


def test_trace_returns_eager_outputs_and_a_program_that_reproduces_them():
    core.seed(1)
    layer = Small()
    inputs = _inputs()
    outs, traced = TracedLayer.trace(layer, inputs)
    assert isinstance(outs[0], core.Tensor)
    assert isinstance(traced.program, core.static.Program)
    assert "elementwise_add" in {op.type for op in traced.program.global_block().ops}
    got = traced(inputs)
    np.testing.assert_allclose(got[0], outs[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1], outs[1].numpy(), rtol=1e-6)
    fresh = _inputs(rows=2)
    fresh = [core.to_tensor(t.numpy() + 1.0) for t in fresh]
    want = layer(*fresh)
    np.testing.assert_allclose(traced(fresh)[0], want[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(traced([t.numpy() for t in fresh])[0], want[0].numpy(),
                               rtol=1e-6)  # ndarrays are accepted too


def test_traced_program_reads_the_current_parameters():
    layer = Small()
    inputs = _inputs()
    _, traced = TracedLayer.trace(layer, inputs)
    layer.fc.weight.set_value(np.zeros((4, 3), np.float32))
    layer.fc.bias.set_value(np.ones(3, np.float32))
    np.testing.assert_allclose(traced(inputs)[0], 1.0 + inputs[1].numpy(), rtol=1e-6)


def test_save_inference_model_of_a_traced_layer(tmp_path):
    layer = Small()
    inputs = _inputs()
    outs, traced = TracedLayer.trace(layer, inputs)
    traced.save_inference_model(str(tmp_path / "traced"), feed=[0], fetch=[1])
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path / "traced"), exe)
    assert feeds == ["x_0"]
    (got,) = exe.run(program, feed={"x_0": inputs[0].numpy()}, fetch_list=fetches)
    np.testing.assert_allclose(got, outs[1].numpy(), rtol=1e-6)
    traced.save_inference_model(str(tmp_path / "all"))
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path / "all"), exe)
    assert feeds == ["x_0", "x_1"] and len(fetches) == 2


def test_value_dependent_control_flow_cannot_be_traced():
    with pytest.raises(TypeError, match=r"cannot be traced.*declarative"):
        TracedLayer.trace(Branchy(), [core.to_tensor(np.ones((2, 2), np.float32))])


def test_call_errors_name_the_problem():
    _, traced = TracedLayer.trace(Small(), _inputs())
    with pytest.raises(ValueError, match="traced with 2 input"):
        traced(_inputs()[:1])
    with pytest.raises(TypeError, match="traced as float32"):
        traced([np.ones((2, 4), np.float64), np.ones((2, 3), np.float32)])
    with pytest.raises(TypeError, match="expects a Layer"):
        TracedLayer.trace(42, _inputs())
    with pytest.raises(IndexError, match="fetch index 5"):
        traced.save_inference_model("unused", fetch=[5])

"""``paddle.jit.save(layer, path, input_spec=..., output_spec=...)`` as PaddlePaddle 2.x:
``output_spec`` (Tensors a call of the translated forward returned) picks the saved outputs;
an ``input_spec`` shorter than the forward's declared one saves the declared program fed by
only the inputs it selects (by name, or the declared InputSpec objects themselves); an
unknown keyword raises."""
import os

import numpy as np
import pytest

import core
import dy2static as paddle
from dy2static.static import InputSpec

SPECS = [InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")]


class TwoHeads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 2)

    @paddle.jit.to_static(input_spec=SPECS)
    def forward(self, x, target):
        pred = self.fc(x)
        loss = paddle.mean((pred - self.fc(target)) ** 2)
        return loss, pred


def _net_and_outputs():
    paddle.seed(1)
    net = TwoHeads()
    x = np.random.RandomState(0).rand(4, 3).astype("float32")
    loss, pred = net(paddle.to_tensor(x), paddle.to_tensor(x + 1))
    return net, x, loss, pred


def test_output_spec_and_pruned_input_spec(tmp_path):
    net, x, _, pred = _net_and_outputs()
    path = os.path.join(tmp_path, "m")
    paddle.jit.save(net, path, input_spec=[SPECS[0]], output_spec=[pred])
    loaded = paddle.jit.load(path)
    loaded.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), pred.numpy(), rtol=1e-6)
    exe = core.Executor(core.CPUPlace())
    with core.scope_guard(core.Scope()):
        program, feeds, fetches = core.io.load_inference_model(
            str(tmp_path), exe, model_filename="m.pdmodel", params_filename="m.pdiparams")
        assert len(feeds) == 1 and len(fetches) == 1
        got, = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    np.testing.assert_allclose(got, pred.numpy(), rtol=1e-6)


def test_output_spec_of_the_first_output(tmp_path):
    net, x, loss, _ = _net_and_outputs()
    path = os.path.join(tmp_path, "m")
    paddle.jit.save(net, path, output_spec=[loss])
    loaded = paddle.jit.load(path)
    loaded.eval()
    got = loaded(paddle.to_tensor(x), paddle.to_tensor(x + 1))
    np.testing.assert_allclose(got.numpy(), loss.numpy(), rtol=1e-6)


def test_bad_specs_raise(tmp_path):
    net, x, _, pred = _net_and_outputs()
    path = os.path.join(tmp_path, "m")
    with pytest.raises(ValueError, match=r"output_spec\[0\] is not an output"):
        paddle.jit.save(net, path, output_spec=[paddle.to_tensor(x)])
    with pytest.raises(ValueError, match=r"input_spec\[0\].*selects no input"):
        paddle.jit.save(net, path, input_spec=[InputSpec([None, 3], "float32")])
    with pytest.raises(TypeError, match=r"unexpected argument.*outputs"):
        paddle.jit.save(net, path, outputs=[pred])


def test_to_static_takes_a_build_strategy():
    paddle.seed(1)
    net = paddle.jit.to_static(paddle.nn.Linear(3, 2),
                               build_strategy=paddle.static.BuildStrategy())
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    with paddle.no_grad():
        expected = paddle.matmul(x, net.weight) + net.bias
    np.testing.assert_allclose(net(x).numpy(), expected.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="build_strategy must be a BuildStrategy"):
        paddle.jit.to_static(paddle.nn.Linear(3, 2), build_strategy={"fuse": True})

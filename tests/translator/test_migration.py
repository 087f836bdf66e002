"""The migration table (docs/migration.md) and the "any batch size" recipe (docs/deploy.md)
hold."""
import numpy as np

import core
import translator
from translator import ProgramTranslator, declarative


def test_paddle_names_map_to_ours():
    assert translator.to_static is translator.declarative          # paddle.jit.to_static
    assert translator.TracedLayer.trace                             # fluid.dygraph.jit.TracedLayer
    assert translator.InputSpec is core.static.InputSpec            # paddle.static.InputSpec
    assert core.dygraph.base.to_variable is core.dygraph.to_variable
    for name in ("matmul", "mean", "reshape", "concat", "Executor", "program_guard",
                 "CPUPlace", "to_tensor", "enable_static", "disable_static"):
        assert callable(getattr(core, name)), name
    assert callable(core.dygraph.save_dygraph) and callable(core.dygraph.load_dygraph)


class Net(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(8, 3)

    @declarative(input_spec=[core.static.InputSpec([None, 8], "float32", "img")])
    def forward(self, img):
        return core.layers.softmax(self.fc(img))


def test_saved_model_accepts_any_batch_size(tmp_path):
    net = Net()
    net.eval()
    net(core.to_tensor(np.zeros((1, 8), "float32")))
    ProgramTranslator().save_inference_model(str(tmp_path / "model"))
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path / "model"), exe)
    assert feeds == ["img"]
    for batch in (1, 5, 17):
        x = np.random.rand(batch, 8).astype("float32")
        out, = exe.run(program, feed={"img": x}, fetch_list=fetches)
        expected = net(core.to_tensor(x)).numpy()
        assert out.shape == (batch, 3)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)

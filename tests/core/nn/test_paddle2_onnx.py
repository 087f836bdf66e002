"""Models built from the 2.x layers export to ONNX (``translator.onnx.export``) and run in
onnxruntime with the eager values: a classifier (``Conv2D`` with ``'SAME'`` padding,
``BatchNorm2D``, ``Hardswish``, pools, ``Flatten``, ``Linear``, ``Softmax``) and a generator
block (reflect ``Pad2D``, ``InstanceNorm2D``, ``LeakyReLU``, ``Conv2DTranspose``,
``Upsample``), each at two batch sizes."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import translator.onnx as tonnx  # noqa: E402
from core import nn  # noqa: E402
from translator import InputSpec  # noqa: E402


class Classifier(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2D(in_channels=3, out_channels=8, kernel_size=3, stride=2, padding="SAME"),
            nn.BatchNorm2D(8), nn.Hardswish(), nn.MaxPool2D(2, 2),
            nn.Identity(),
            nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(in_features=8, out_features=4),
            nn.Softmax())

    def forward(self, x):
        return self.body(x)


class Generator(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Pad2D([1, 1, 1, 1], mode="reflect"), nn.Conv2D(3, 4, 3), nn.InstanceNorm2D(4),
            nn.LeakyReLU(0.2), nn.Conv2DTranspose(4, 2, 3, stride=2, padding=1,
                                                  output_padding=1),
            nn.Upsample(scale_factor=2, mode="nearest"), nn.Tanh())

    def forward(self, x):
        return self.body(x)


@pytest.mark.parametrize("cls", [Classifier, Generator])
def test_2x_models_export_and_match_eager(cls, tmp_path):
    core.seed(9)
    model = cls()
    x0 = np.random.default_rng(1).standard_normal((4, 3, 8, 8)).astype(np.float32)
    model(core.to_tensor(x0))  # one training step of the running statistics
    path = tmp_path / "model.onnx"
    tonnx.export(model, path, input_spec=[InputSpec([None, 3, 8, 8], "float32", "image")])
    onnx.checker.check_model(onnx.load(str(path)))
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    model.eval()
    for batch in (1, 3):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 8, 8)).astype(np.float32)
        (got,) = sess.run(None, {"image": x})
        with core.no_grad():
            want = model(core.to_tensor(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

"""Tiny models of the three families the vision ops serve, trained a few steps on synthetic
data eagerly and converted (``translator.declarative``) from the same initial parameters, and
exported to ONNX:

* a CycleGAN / pix2pix-style generator: reflect padding, strided convolution, instance norm,
  a transposed convolution back up, tanh;
* a TSM video classifier: a per-frame convolution, ``temporal_shift`` across the clip's
  frames, pooling and a consensus over frames;
* a 3-D convolution net: ``conv3d``, group norm, ``pool3d``, a ``conv3d_transpose`` skip and
  a trilinear resize;
* a YOLOv3 head: two strided convolutions, ``yolov3_loss`` for training and ``yolo_box`` for
  inference.

Each model's loss decreases, the converted run gives the eager losses step by step, and the
exported inference graph gives in onnxruntime what the model gives eagerly.
"""
import numpy as np
import pytest

import core
from core import layers as L
from core.dispatch import apply
from core.initializer import Constant, Normal
from translator import InputSpec, ProgramTranslator, declarative

r = np.random.default_rng(2024)


def f32(*shape):
    return r.uniform(-1, 1, shape).astype(np.float32)


class _Net(core.nn.Layer):
    """Parameters created once; the ops called directly, as a 2.x functional would."""

    def weight(self, *shape):
        fan_in = int(np.prod(shape[1:]))
        return self.create_parameter(list(shape), default_initializer=Normal(
            0.0, float(np.sqrt(2.0 / fan_in))))

    def bias(self, n):
        return self.create_parameter([n], is_bias=True)

    def ones(self, n):
        return self.create_parameter([n], default_initializer=Constant(1.0))

    @staticmethod
    def conv(x, w, b, stride=1, padding=0):
        y = apply("conv2d", [x, w], {"strides": [stride, stride],
                                     "paddings": [padding, padding]})
        return apply("elementwise_add", [y, b], {"axis": 1})


class Generator(_Net):
    """c7s1-like stem, one down-sampling and one up-sampling stage (CycleGAN's layout). The
    convolutions before an instance norm have no bias: the norm removes it (its gradient is
    rounding noise, which Adam would amplify into different updates per run)."""

    def __init__(self):
        super().__init__()
        self.w_in = self.weight(4, 3, 3, 3)
        self.w_down = self.weight(8, 4, 3, 3)
        self.w_up = self.weight(8, 4, 3, 3)
        self.w_out, self.b_out = self.weight(3, 4, 3, 3), self.bias(3)
        self.norms = [(self.ones(c), self.bias(c)) for c in (4, 8, 4)]
        for k, (s, b) in enumerate(self.norms):
            setattr(self, f"in_scale{k}", s)
            setattr(self, f"in_bias{k}", b)

    def norm(self, x, k):
        return apply("instance_norm", [x, getattr(self, f"in_scale{k}"),
                                       getattr(self, f"in_bias{k}")], {})[0]

    def generate(self, x):
        h = L.pad2d(x, [1, 1, 1, 1], mode="reflect")
        h = L.relu(self.norm(apply("conv2d", [h, self.w_in], {}), 0))
        h = apply("conv2d", [h, self.w_down], {"strides": [2, 2], "paddings": [1, 1]})
        h = L.relu(self.norm(h, 1))
        h = apply("conv2d_transpose", [h, self.w_up],
                  {"strides": [2, 2], "paddings": [1, 1], "output_padding": [1, 1]})
        h = L.relu(self.norm(h, 2))
        h = L.pad2d(h, [1, 1, 1, 1], mode="reflect")
        return L.tanh(self.conv(h, self.w_out, self.b_out))

    @declarative
    def forward(self, x):
        return self.generate(x)

    @declarative
    def loss(self, x, target):
        return L.reduce_mean(L.abs(self.generate(x) - target))


class TSM(_Net):
    """Per-frame convolutions with a temporal shift between them, average consensus."""

    seg = 4

    def __init__(self, classes=3):
        super().__init__()
        self.w1, self.b1 = self.weight(8, 3, 3, 3), self.bias(8)
        self.w2, self.b2 = self.weight(8, 8, 3, 3), self.bias(8)
        self.fc = self.weight(8, classes)
        self.fc_b = self.bias(classes)

    def logits(self, frames):
        h = L.relu(self.conv(frames, self.w1, self.b1, padding=1))
        h = L.temporal_shift(h, self.seg, 0.25)
        h = L.relu(self.conv(h, self.w2, self.b2, padding=1))
        h = L.pool2d(h, pool_type="avg", global_pooling=True)
        h = L.reduce_mean(L.reshape(h, [-1, self.seg, 8]), dim=1)
        return L.elementwise_add(L.matmul(h, self.fc), self.fc_b)

    @declarative
    def forward(self, frames):
        return L.softmax(self.logits(frames))

    @declarative
    def loss(self, frames, label):
        return L.mean(L.softmax_with_cross_entropy(self.logits(frames), label))


class Conv3DNet(_Net):
    """conv3d -> group norm -> max pool3d, a transposed-conv3d and a trilinear skip."""

    def __init__(self, classes=2):
        super().__init__()
        self.w1, self.b1 = self.weight(4, 2, 3, 3, 3), self.bias(4)
        self.gn_s, self.gn_b = self.ones(4), self.bias(4)
        self.w_up = self.weight(4, 4, 2, 2, 2)
        self.fc = self.weight(8, classes)
        self.fc_b = self.bias(classes)

    def logits(self, v):
        h = apply("conv3d", [v, self.w1], {"paddings": [1, 1, 1]})
        h = apply("elementwise_add", [h, self.b1], {"axis": 1})
        h = L.relu(apply("group_norm", [h, self.gn_s, self.gn_b], {"groups": 2})[0])
        p = L.pool3d(h, 2, "max", 2)
        up = apply("conv3d_transpose", [p, self.w_up], {"strides": [2, 2, 2]})
        skip = L.resize_trilinear(p, out_shape=[4, 6, 6], align_corners=False, align_mode=0)
        h = L.concat([L.relu(up), skip], axis=1)
        h = L.reshape(L.pool3d(h, pool_type="avg", global_pooling=True), [-1, 8])
        return L.elementwise_add(L.matmul(h, self.fc), self.fc_b)

    @declarative
    def forward(self, v):
        return L.softmax(self.logits(v))

    @declarative
    def loss(self, v, label):
        return L.mean(L.softmax_with_cross_entropy(self.logits(v), label))


ANCHORS = [4, 5, 8, 6, 12, 14]
MASK = [0, 1, 2]
CLASSES = 2


class YoloHead(_Net):
    """A two-convolution backbone ending in a YOLOv3 head (downsample 4)."""

    def __init__(self):
        super().__init__()
        self.w1, self.b1 = self.weight(8, 3, 3, 3), self.bias(8)
        self.w2, self.b2 = self.weight(len(MASK) * (5 + CLASSES), 8, 3, 3), \
            self.bias(len(MASK) * (5 + CLASSES))

    def head(self, img):
        h = L.leaky_relu(self.conv(img, self.w1, self.b1, stride=2, padding=1), 0.1)
        return self.conv(h, self.w2, self.b2, stride=2, padding=1)

    @declarative
    def forward(self, img, img_size):
        return L.yolo_box(self.head(img), img_size, ANCHORS, CLASSES, 0.01, 4)

    @declarative
    def loss(self, img, gt_box, gt_label):
        loss = L.yolov3_loss(self.head(img), gt_box, gt_label, ANCHORS, MASK, CLASSES, 0.7, 4)
        return L.reduce_mean(loss)


def _gan_data():
    x = f32(4, 3, 8, 8)
    return [(x, np.tanh(x[:, ::-1] * 0.8).astype(np.float32))]


def _tsm_data():
    frames = f32(2 * TSM.seg, 3, 6, 6)
    return [(frames, np.array([[0], [2]], np.int64))]


def _c3d_data():
    return [(f32(3, 2, 4, 6, 6), np.array([[0], [1], [1]], np.int64))]


def _yolo_data():
    boxes = np.array([[[0.3, 0.3, 0.4, 0.5], [0.7, 0.6, 0.8, 0.7], [0, 0, 0, 0]],
                      [[0.5, 0.4, 0.3, 0.3], [0.2, 0.8, 0.3, 0.2], [0.8, 0.2, 0.5, 0.4]]],
                     np.float32)
    labels = np.array([[0, 1, 0], [1, 0, 1]], np.int32)
    return [(f32(2, 3, 16, 16), boxes, labels)]


FAMILIES = {"gan": (Generator, _gan_data, 1e-2), "tsm": (TSM, _tsm_data, 1e-2),
            "conv3d": (Conv3DNet, _c3d_data, 1e-2), "yolo": (YoloHead, _yolo_data, 3e-3)}
STEPS = 6


def _train(cls, data, lr, converted):
    core.seed(11)
    model = cls()
    opt = core.optimizer.AdamOptimizer(learning_rate=lr, parameter_list=model.parameters())
    ProgramTranslator().enable(converted)
    losses = []
    try:
        for step in range(STEPS):
            batch = [core.to_tensor(a) for a in data[step % len(data)]]
            loss = model.loss(*batch)
            loss.backward()
            opt.minimize(loss)
            model.clear_gradients()
            losses.append(float(loss.numpy()))
    finally:
        ProgramTranslator().enable(True)
    return model, losses


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_trains_eagerly_and_converted_alike(family):
    cls, make_data, lr = FAMILIES[family]
    data = make_data()
    eager_model, eager = _train(cls, data, lr, converted=False)
    static_model, static = _train(cls, data, lr, converted=True)
    assert static_model.loss.translations >= 1  # the converted run did use a Program
    assert eager[-1] < eager[0], f"{family}: the loss does not decrease: {eager}"
    np.testing.assert_allclose(static, eager, rtol=2e-4, atol=1e-5)
    for a, b in zip(eager_model.parameters(), static_model.parameters()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-3, atol=1e-5)


def _eager_forward(model, *arrays):
    ProgramTranslator().enable(False)
    try:
        with core.no_grad():
            out = model(*[core.to_tensor(a) for a in arrays])
    finally:
        ProgramTranslator().enable(True)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [o.numpy() for o in outs]


EXPORTS = {
    "gan": (Generator, lambda: [f32(2, 3, 8, 8)],
            [InputSpec([None, 3, 8, 8], "float32", "image")]),
    "tsm": (TSM, lambda: [f32(2 * TSM.seg, 3, 6, 6)],
            [InputSpec([None, 3, 6, 6], "float32", "frames")]),
    "conv3d": (Conv3DNet, lambda: [f32(2, 2, 4, 6, 6)],
               [InputSpec([None, 2, 4, 6, 6], "float32", "volume")]),
    "yolo": (YoloHead, lambda: [f32(2, 3, 16, 16), np.array([[16, 16], [32, 24]], np.int32)],
             [InputSpec([None, 3, 16, 16], "float32", "image"),
              InputSpec([None, 2], "int32", "img_size")]),
}


@pytest.mark.parametrize("family", sorted(EXPORTS))
def test_exports_to_onnx(family, tmp_path):
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    import translator.onnx as tonnx

    cls, make_inputs, specs = EXPORTS[family]
    core.seed(3)
    model = cls()
    path = tonnx.export(model, tmp_path / f"{family}.onnx", input_spec=specs)
    inputs = make_inputs()
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    got = sess.run(None, {s.name: a for s, a in zip(specs, inputs)})
    model.eval()
    want = _eager_forward(model, *inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)

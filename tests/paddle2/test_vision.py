"""paddle.vision: transforms (numpy oracles), MNIST read from local files, LeNet."""
import numpy as np
import pytest

import core
import dy2static as paddle
import dy2static.vision.transforms as T
from core.dataset import mnist as fluid_mnist

IMG = np.random.RandomState(0).randint(0, 256, (6, 8, 3)).astype("uint8")


def test_to_tensor_scales_uint8_and_moves_channels_first():
    out = T.ToTensor()(IMG)
    assert isinstance(out, core.Tensor) and out.shape == [3, 6, 8]
    np.testing.assert_allclose(out.numpy(), IMG.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    hwc = T.ToTensor(data_format="HWC")(IMG[:, :, 0])
    assert hwc.shape == [6, 8, 1]
    floats = T.to_tensor(IMG.astype("float32"))
    np.testing.assert_array_equal(floats.numpy(), IMG.transpose(2, 0, 1))  # no scaling
    with pytest.raises(ValueError, match="HWC"):
        T.to_tensor(np.zeros((2, 2, 2, 2)))


def test_normalize_chw_hwc_and_gray():
    chw = IMG.transpose(2, 0, 1).astype("float32")
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    out = T.Normalize(mean, std)(chw)
    want = (chw - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(out, want, rtol=1e-6)
    out = T.Normalize(mean, std, data_format="HWC")(IMG)
    np.testing.assert_allclose(out, (IMG - np.array(mean)) / np.array(std), rtol=1e-6)
    gray = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(IMG[:, :, 0])
    assert gray.shape == (1, 6, 8) and gray.min() >= -1 and gray.max() <= 1
    tensor = T.Normalize(0.5, 0.5)(T.ToTensor()(IMG))
    assert isinstance(tensor, core.Tensor)
    with pytest.raises(ValueError, match="std"):
        T.Normalize(0.0, 0.0)(chw)


def test_resize_bilinear_matches_half_pixel_interpolation():
    img = np.arange(16, dtype="float32").reshape(4, 4)
    up = T.Resize((8, 8))(img)
    # half-pixel centres: output pixel j samples input position (j + 0.5) / 2 - 0.5
    pos = np.clip((np.arange(8) + 0.5) / 2 - 0.5, 0, 3)
    row = np.interp(pos, np.arange(4), img[0])
    np.testing.assert_allclose(up[0], row, rtol=1e-6)
    np.testing.assert_allclose(up[:, 0], np.interp(pos, np.arange(4), img[:, 0]), rtol=1e-6)
    down = T.Resize((2, 2))(img)
    np.testing.assert_allclose(down, [[2.5, 4.5], [10.5, 12.5]], rtol=1e-6)
    assert T.Resize(3)(IMG).shape == (3, 4, 3)  # shorter side to 3, aspect kept
    assert T.Resize((5, 7))(IMG).dtype == np.uint8
    np.testing.assert_array_equal(T.Resize((2, 2), interpolation="nearest")(img),
                                  img[::2, ::2])
    with pytest.raises(ValueError, match="interpolation"):
        T.Resize(4, interpolation="area")(img)


def test_compose_crop_flip_transpose():
    paddle.seed(0)
    pipeline = T.Compose([T.CenterCrop(4), T.RandomHorizontalFlip(prob=1.0), T.Transpose()])
    out = pipeline(IMG)
    np.testing.assert_array_equal(out, IMG[1:5, 2:6][:, ::-1].transpose(2, 0, 1))
    assert T.RandomHorizontalFlip(prob=0.0)(IMG) is not None
    with pytest.raises(ValueError, match="larger"):
        T.CenterCrop(10)(IMG)
    with pytest.raises(TypeError, match="callables"):
        T.Compose([1])


def test_mnist_reads_the_bundled_subset_without_downloading(monkeypatch):
    monkeypatch.delenv("MNIST_DIR", raising=False)
    train = paddle.vision.datasets.MNIST(mode="train")
    test = paddle.vision.datasets.MNIST(mode="test", download=True)
    assert len(train) == 5000 and len(test) == 1000
    image, label = test[0]
    assert image.shape == (28, 28) and image.dtype == np.float32 and image.max() > 200
    assert label.shape == (1,) and label.dtype == np.int64
    # the same pixels as the fluid reader (scaled to [-1, 1] there)
    fluid_image, fluid_label = next(fluid_mnist.test()())
    np.testing.assert_allclose(image.reshape(-1) / 127.5 - 1, fluid_image, atol=1e-6)
    assert label[0] == fluid_label
    normalized = paddle.vision.datasets.MNIST(
        mode="test", transform=T.Normalize(mean=[127.5], std=[127.5]))
    assert normalized[0][0].shape == (1, 28, 28)
    with pytest.raises(ValueError, match="mode"):
        paddle.vision.datasets.MNIST(mode="valid")
    with pytest.raises(FileNotFoundError, match="nothing is downloaded"):
        paddle.vision.datasets.MNIST(image_path="/nonexistent/a", label_path="/nonexistent/b")


def test_lenet_shapes_and_headless():
    x = paddle.rand([2, 1, 28, 28])
    assert paddle.vision.LeNet()(x).shape == [2, 10]
    assert paddle.vision.models.LeNet(num_classes=0)(x).shape == [2, 16, 5, 5]

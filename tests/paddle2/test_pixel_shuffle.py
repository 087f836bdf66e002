"""paddle.nn.functional.pixel_shuffle / paddle.nn.PixelShuffle (ESPCN's sub-pixel layer): values
from the definition, NHWC, gradients, converted code with unknown spatial sizes, and errors
that name the argument."""
import numpy as np
import pytest

import dy2static as paddle
import dy2static.nn.functional as F
from dy2static.static import InputSpec


def ref(x, r, nhwc=False):
    """``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]``."""
    if nhwc:
        return ref(x.transpose(0, 3, 1, 2), r).transpose(0, 2, 3, 1)
    n, cin, h, w = x.shape
    out = np.empty((n, cin // (r * r), h * r, w * r), x.dtype)
    for c in range(cin // (r * r)):
        for i in range(r):
            for j in range(r):
                out[:, c, i::r, j::r] = x[:, c * r * r + i * r + j]
    return out


X = np.random.default_rng(3).standard_normal((2, 18, 3, 4)).astype("float32")


def test_functional_and_layer_match_the_definition():
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(F.pixel_shuffle(x, 3).numpy(), ref(X, 3))
    layer = paddle.nn.PixelShuffle(3)
    assert layer(x).shape == [2, 2, 9, 12]
    np.testing.assert_array_equal(layer(x).numpy(), ref(X, 3))
    assert "upscale_factor=3" in repr(layer)


def test_nhwc():
    xh = X.transpose(0, 2, 3, 1).copy()
    got = paddle.nn.PixelShuffle(3, data_format="NHWC")(paddle.to_tensor(xh)).numpy()
    np.testing.assert_array_equal(got, ref(xh, 3, nhwc=True))


def test_gradient_is_the_inverse_rearrangement():
    x = paddle.to_tensor(X, stop_gradient=False)
    w = np.random.default_rng(4).standard_normal((2, 2, 9, 12)).astype("float32")
    (F.pixel_shuffle(x, 3) * paddle.to_tensor(w)).sum().backward()
    # d/dx sum(shuffle(x) * w) = unshuffle(w): shuffling the gradient gives w back
    np.testing.assert_allclose(ref(x.grad.numpy(), 3), w, rtol=1e-6)


def test_converted_with_unknown_spatial_sizes_equals_eager():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(1, 4, 3, padding=1)

        def forward(self, x):
            return paddle.nn.functional.pixel_shuffle(self.conv(x), 2)

    net = Net()
    x = paddle.rand([2, 1, 5, 3])
    eager = net(x).numpy()
    static = paddle.jit.to_static(net, input_spec=[InputSpec([None, 1, None, None], "float32")])
    np.testing.assert_allclose(static(x).numpy(), eager, rtol=1e-6)
    assert static(paddle.rand([1, 1, 4, 6])).shape == [1, 1, 8, 12]


@pytest.mark.parametrize("call,match", [
    (lambda x: F.pixel_shuffle(x, 4), r"pixel_shuffle\(\).*'x' \(18\).*upscale_factor \*\* 2"),
    (lambda x: F.pixel_shuffle(x, 0), r"pixel_shuffle\(\).*'upscale_factor'"),
    (lambda x: F.pixel_shuffle(x, 3, data_format="NCW"), r"'data_format'"),
    (lambda x: F.pixel_shuffle(x[0], 3), r"pixel_shuffle\(\).*'x'.*4-D"),
    (lambda x: paddle.nn.PixelShuffle(1.5), r"PixelShuffle\(\).*'upscale_factor'"),
])
def test_errors_name_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(paddle.to_tensor(X))

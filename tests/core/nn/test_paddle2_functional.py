"""``core.nn.functional`` with the weights passed in (2.x spellings): each function inside a
small Layer that owns the weights, checked against numpy eagerly, in a static Program and in
a ``declarative`` forward, with numerically checked gradients (``layer_harness``); and the
argument errors."""
import numpy as np
import pytest

import core
from core import nn, unique_name
from core.nn import functional as F
from tests.core.nn.layer_harness import check_layer
from tests.core.nn.test_paddle2_vision_layers import conv_nd_ref, conv_transpose_ref

rng = np.random.default_rng(3)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(6)
        yield


class Fn(nn.Layer):
    """``fn(x, *weights, **kwargs)`` with the weights as this layer's parameters."""

    def __init__(self, fn, arrays, **kwargs):
        super().__init__()
        self._fn, self._kwargs = fn, kwargs
        self.ws = nn.ParameterList()
        for a in arrays:
            p = self.create_parameter(list(a.shape))
            if core.in_dynamic_mode():  # a static layer gets the eager one's state dict
                p.set_value(a)
            self.ws.append(p)

    def forward(self, x):
        return self._fn(x, *self.ws, **self._kwargs)


W2, B2 = rand(4, 2, 3, 3), rand(4)
W1, B1 = rand(3, 2, 2), rand(3)
W3, B3 = rand(2, 2, 2, 2, 2), rand(2)
WT, BT = rand(2, 3, 3, 3), rand(3)

CASES = [  # (id, function, weights, kwargs, input, numpy reference of the input)
    ("conv2d", F.conv2d, [W2, B2], dict(stride=2, padding=[1, 0, 0, 1]), rand(2, 2, 5, 5),
     lambda x: conv_nd_ref(x, W2, B2, (2, 2), [(1, 0), (0, 1)])),
    ("conv2d_groups", F.conv2d, [rand(4, 1, 3, 3), B2], dict(groups=2, padding=1),
     rand(1, 2, 4, 4), None),
    ("conv1d", F.conv1d, [W1, B1], dict(padding=1, dilation=2), rand(2, 2, 7),
     lambda x: conv_nd_ref(x, W1, B1, (1,), [(1, 1)], [2])),
    ("conv3d", F.conv3d, [W3, B3], dict(stride=1, padding="VALID"), rand(1, 2, 3, 3, 4),
     lambda x: conv_nd_ref(x, W3, B3, (1, 1, 1), [(0, 0)] * 3)),
    ("conv2d_transpose", F.conv2d_transpose, [WT, BT], dict(stride=2, padding=1),
     rand(1, 2, 3, 3), lambda x: conv_transpose_ref(x, WT, BT, (2, 2), [(1, 1), (1, 1)])),
    ("linear", F.linear, [rand(3, 2), rand(2)], {}, rand(4, 3), None),
    ("prelu", F.prelu, [np.array([0.1, 0.3], np.float32)], {}, rand(2, 2, 3) + 0.01,
     lambda x: np.where(x > 0, x, np.array([0.1, 0.3])[None, :, None] * x)),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, [3], w, b), [rand(3), rand(3)], {},
     rand(2, 4, 3), None),
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, weight=w, bias=b), [rand(4), rand(4)],
     {}, rand(2, 4, 3), None),
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
     [rand(2), rand(2)], {}, rand(2, 2, 5), None),
]


@pytest.mark.parametrize("fn,weights,kwargs,x,ref", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_functions_with_weights_in_all_modes(fn, weights, kwargs, x, ref):
    want = None if ref is None else ref(x.astype(np.float64))
    check_layer(lambda: Fn(fn, weights, **kwargs), [x], want, rtol=1e-4, atol=1e-5,
                grad_tol={"rtol": 5e-2, "atol": 1e-2, "max_points": 8})


def test_functions_without_weights_in_all_modes():
    x = rand(2, 3, 4)
    check_layer(lambda: Fn(F.normalize, [], axis=-1), [x],
                x / np.linalg.norm(x, axis=-1, keepdims=True), rtol=1e-5)
    check_layer(lambda: Fn(F.dropout, [], p=0.3, training=False), [x], x)
    check_layer(lambda: Fn(F.pad, [], pad=[1, 2], mode="replicate", data_format="NCL"), [x],
                np.pad(x, ((0, 0), (0, 0), (1, 2)), mode="edge"))


def test_dropout_function_in_training():
    x = core.to_tensor(np.ones((50, 40), np.float32))
    out = F.dropout(x, p=0.5).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0.35 < (out == 0).mean() < 0.65
    down = F.dropout(x, p=0.5, mode="downscale_in_infer").numpy()
    assert set(np.unique(down)) <= {0.0, 1.0}
    np.testing.assert_array_equal(F.dropout(x, 0.5, training=False,
                                            mode="downscale_in_infer").numpy(),
                                  np.full((50, 40), 0.5))


def test_embedding_and_linear_functions_match_the_layers():
    emb = nn.Embedding(6, 3, padding_idx=2)
    ids = core.to_tensor(np.array([[1, 2], [5, 0]], np.int64))
    np.testing.assert_array_equal(F.embedding(ids, emb.weight, padding_idx=2).numpy(),
                                  emb(ids).numpy())
    fc = nn.Linear(in_features=3, out_features=2)
    x = core.to_tensor(rand(4, 3))
    np.testing.assert_allclose(F.linear(x, fc.weight, fc.bias).numpy(), fc(x).numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("call,words", [
    (lambda x: F.conv2d(x, core.to_tensor(W2), padding="FULL"),
     ["conv2d", "'padding'", "'FULL'"]),
    (lambda x: F.conv2d(x, core.to_tensor(W2), padding=[[1, 1], [0, 0], [1, 1], [1, 1]]),
     ["conv2d", "'padding'", "batch nor the channel"]),
    (lambda x: F.conv1d(x, core.to_tensor(W1)), ["conv1d", "3-D", "[2, 2, 5, 5]"]),
    (lambda x: F.conv2d_transpose(x, core.to_tensor(WT), output_padding=1, output_size=[9, 9]),
     ["conv2d_transpose", "'output_size' or 'output_padding'"]),
    (lambda x: F.max_pool2d(x, 2, return_mask=True), ["max_pool2d", "return_mask"]),
    (lambda x: F.avg_pool2d(x, 2, divisor_override=0), ["avg_pool2d", "'divisor_override'"]),
    (lambda x: F.adaptive_avg_pool2d(x, [2, 2, 2]), ["adaptive_avg_pool2d", "'output_size'"]),
    (lambda x: F.normalize(x, p=0), ["normalize", "'p'", "> 0"]),
    (lambda x: F.interpolate(x, scale_factor=2, mode="nearest", align_corners=True),
     ["interpolate", "align_corners"]),
    (lambda x: F.temporal_shift(x, 2, shift_ratio=0.7), ["temporal_shift", "'shift_ratio'"]),
    (lambda x: F.instance_norm(x, use_input_stats=False), ["instance_norm", "running"]),
    (lambda x: F.hardtanh(x, 1.0, -1.0), ["hardtanh", "'min'"]),
])
def test_function_errors_name_the_argument(call, words):
    x = core.to_tensor(rand(2, 2, 5, 5))
    with pytest.raises((TypeError, ValueError)) as e:
        call(x)
    for w in words:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"


def test_same_padding_needs_known_sizes_in_static_mode(static_mode):
    from core import static

    with static.program_guard(static.Program(), static.Program()):
        x = static.data("x", [None, 2, None, None], "float32")
        with pytest.raises(ValueError, match=r"conv2d\(\): padding='SAME' needs the input's "
                                             r"spatial sizes"):
            F.conv2d(x, static.data("w", [4, 2, 3, 3], "float32"), padding="SAME")
        y = F.conv2d(x, static.data("w2", [4, 2, 3, 3], "float32"), padding=1)
        assert y.shape[1] == 4

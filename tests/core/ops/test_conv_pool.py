"""``conv2d_pool2d_fusion`` against the two ops it replaces (``conv2d_fusion`` then ``pool2d``)
where the registry's random cases cannot reach: exact ties inside a pooling window (the
gradient goes to the first maximum in row-major order), windows wholly at or below ReLU's
kink, NaN inputs, batch 1, and its argument errors."""
import numpy as np
import pytest

import core
from core.ops._shapes import ShapeError
from core.ops._windows import memory_order
from core.ops.registry import KernelContext, get_op

FUSED, CONV, POOL = (get_op(t) for t in ("conv2d_pool2d_fusion", "conv2d_fusion", "pool2d"))
r = np.random.default_rng(21)


def _ctx():
    ctx = KernelContext(np, core.CPUPlace())
    ctx.needs_grad = (True, True, True)
    return ctx


def _both(x, w, b, dout_seed=0, activation="relu", ksize=(2, 2), data_format="NCHW",
          **conv):
    """Forward outputs and (dInput, dFilter, dBias) of the fused op and of the unfused pair."""
    conv = dict(conv, activation=activation, data_format=data_format)
    pool = dict(pooling_type="max", ksize=list(ksize), strides=list(ksize),
                data_format=data_format)
    fused = FUSED.full_attrs(dict(conv, ksize=list(ksize), pool_strides=list(ksize)))
    out, cols, pre = FUSED.forward(_ctx(), x, w, b, **fused)
    y, ycols = CONV.forward(_ctx(), x, w, b, **CONV.full_attrs(conv))
    ref = POOL.forward(_ctx(), y, **POOL.full_attrs(pool))
    d = np.random.default_rng(dout_seed).uniform(-1, 1, ref.shape).astype(np.float32)
    dy, = POOL.backward(_ctx(), [y], [ref], [d], **POOL.full_attrs(pool))
    want = CONV.backward(_ctx(), [x, w, b], [y, ycols], [dy, None], **CONV.full_attrs(conv))
    got = FUSED.backward(_ctx(), [x, w, b], [out, cols, pre], [d, None, None], **fused)
    return (out, got), (ref, want)


def _check(got, want, exact=False):
    (out, grads), (ref, ref_grads) = got, want
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    for g, rg in zip(grads, ref_grads):
        if exact:
            np.testing.assert_array_equal(g, rg)
        else:
            np.testing.assert_allclose(g, rg, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("activation", ["relu", "identity"])
@pytest.mark.parametrize("channels", [1, 3])  # tap-major columns, channels-last rows
def test_ties_go_to_the_first_maximum_and_dead_windows_pass_nothing(activation, channels):
    # a zero filter: every output of a channel equals its bias, so every window is one tie;
    # a negative and a zero bias leave their channels wholly at or below ReLU's kink
    x = r.uniform(-1, 1, (3, channels, 6, 6)).astype(np.float32)
    w = np.zeros((4, channels, 3, 3), np.float32)
    b = np.array([0.5, -0.25, 0.0, 1.0], np.float32)
    got, want = _both(x, w, b, activation=activation)
    _check(got, want, exact=True)
    db = got[1][2]
    assert np.count_nonzero(db) == (2 if activation == "relu" else 4)


def test_partial_ties_and_batch_one():
    # integer-valued data: many (not all) window elements tie
    x = r.integers(-2, 3, (1, 2, 7, 7)).astype(np.float32)
    w = r.integers(-1, 2, (3, 2, 2, 2)).astype(np.float32)
    b = np.zeros(3, np.float32)
    for ksize in ((2, 2), (3, 3), (2, 1)):
        _check(*_both(x, w, b, ksize=ksize, dout_seed=sum(ksize)))


def test_nan_input_behaves_as_the_unfused_ops():
    x = r.uniform(-1, 1, (2, 2, 6, 6)).astype(np.float32)
    x[0, 1, 2, 3] = np.nan
    w = r.uniform(-1, 1, (3, 2, 3, 3)).astype(np.float32)
    b = r.uniform(-1, 1, 3).astype(np.float32)
    for activation in ("relu", "identity"):
        got, want = _both(x, w, b, activation=activation)
        assert np.isnan(got[0]).any()
        _check(got, want)


def test_output_is_channels_last_and_nhwc_works():
    x = r.uniform(-1, 1, (2, 6, 6, 3)).astype(np.float32)
    w = r.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    b = r.uniform(-1, 1, 4).astype(np.float32)
    got, want = _both(x, w, b, data_format="NHWC", paddings=[1, 1])
    _check(got, want)
    assert got[0].shape == (2, 3, 3, 4)
    nchw = x.transpose(0, 3, 1, 2).copy()
    got, _ = _both(nchw, w, b, paddings=[1, 1])
    assert memory_order(got[0]) == (0, 2, 3, 1)  # NCHW-shaped, channels-last memory


@pytest.mark.parametrize("attrs, match", [
    ({"ksize": [2, 2], "pool_strides": [1, 1]}, "must tile"),
    ({"ksize": [3, 3], "pool_strides": [3, 3]}, "must tile"),  # 4x4 map
    ({"pool_paddings": [1, 1]}, "must tile"),
    ({"pooling_type": "avg"}, "pooling_type must be 'max'"),
    ({"groups": 2}, "groups must be 1"),
    ({"activation": "tanh"}, "activation must be one of"),
])
def test_bad_attributes_are_named(attrs, match):
    x = np.zeros((1, 2, 6, 6), np.float32)
    w, b = np.zeros((2, 2 // attrs.get("groups", 1), 3, 3), np.float32), np.zeros(2, np.float32)
    with pytest.raises(ShapeError, match=f"conv2d_pool2d_fusion: .*{match}"):
        FUSED.forward(_ctx(), x, w, b, **FUSED.full_attrs(attrs))

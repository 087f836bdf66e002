"""Eager ``Conv2D`` runs ``conv2d_fusion`` (bias in the GEMM, ReLU in place); static programs
keep Paddle's ``conv2d``, ``elementwise_add``, activation sequence. Both must give the same
values and gradients. Also: kernels that keep a channels-last memory layout (the fused op's
output, pooling's output and gradient) give the same values as on contiguous NCHW arrays.
(The op's own forward, numeric gradients and static run are registry cases in
tests/core/ops/op_cases/nn.py.)"""
import numpy as np
import pytest

import core
from core import layers, static
from core.dispatch import apply
from core.dygraph import Conv2D
from core.initializer import NumpyArrayInitializer
from core.ops._shapes import ShapeError
from core.ops._windows import memory_order
from core.ops.registry import KernelContext, get_op
from core.param_attr import ParamAttr

r = np.random.default_rng(5)

GEOMETRIES = {
    # one input channel: tap-major columns, one GEMM
    "taps": dict(shape=(2, 1, 9, 8), filters=3, size=3, kw={}),
    # many channels: channels-last rows, one GEMM
    "rows": dict(shape=(2, 6, 7, 7), filters=4, size=3, kw={"stride": 2, "padding": 1}),
    # rows with batch >= channels: the input gradient on a batch-last image
    "rows-batch-last": dict(shape=(8, 4, 6, 6), filters=5, size=3, kw={"padding": 1}),
    # grouped: per-sample columns, a matmul per group
    "groups": dict(shape=(2, 4, 6, 6), filters=6, size=2, kw={"groups": 2, "dilation": 2}),
}


def _layer(geo, act, w, b):
    return Conv2D(geo["shape"][1], geo["filters"], geo["size"], act=act,
                  param_attr=ParamAttr(initializer=NumpyArrayInitializer(w)),
                  bias_attr=ParamAttr(initializer=NumpyArrayInitializer(b)), **geo["kw"])


def _weights(geo):
    groups = geo["kw"].get("groups", 1)
    k = geo["size"]
    w = r.uniform(-1, 1, (geo["filters"], geo["shape"][1] // groups, k, k)).astype(np.float32)
    return w, r.uniform(-1, 1, geo["filters"]).astype(np.float32)


@pytest.mark.parametrize("act", [None, "relu"])
@pytest.mark.parametrize("name", sorted(GEOMETRIES))
def test_eager_conv2d_layer_fuses_and_matches_the_unfused_ops(name, act):
    geo = GEOMETRIES[name]
    w, b = _weights(geo)
    x = r.uniform(-1, 1, geo["shape"]).astype(np.float32)
    conv = _layer(geo, act, w, b)
    xt = core.to_tensor(x, stop_gradient=False)
    out = conv(xt)
    assert out._node.op.type == "conv2d_fusion"
    seed = r.standard_normal(out.shape).astype(np.float32)
    (out * core.to_tensor(seed)).sum().backward()

    # the same arithmetic as Paddle's op sequence, on separate tensors
    x2 = core.to_tensor(x, stop_gradient=False)
    w2 = core.to_tensor(w, stop_gradient=False)
    b2 = core.to_tensor(b, stop_gradient=False)
    attrs = {"strides": conv._stride, "paddings": conv._padding, "dilations": conv._dilation,
             "groups": conv._groups}
    ref = apply("elementwise_add", [apply("conv2d", [x2, w2], attrs), b2], {"axis": 1})
    ref = apply("relu", [ref]) if act else ref
    (ref * core.to_tensor(seed)).sum().backward()

    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    for got, want in ((xt, x2), (conv.weight, w2), (conv.bias, b2)):
        np.testing.assert_allclose(got.gradient(), want.gradient(), rtol=1e-4, atol=1e-4)


def test_other_activations_and_no_bias_take_the_op_sequence():
    x = core.to_tensor(r.uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32), stop_gradient=False)
    assert Conv2D(2, 3, 3, act="sigmoid")(x)._node.op.type == "sigmoid"
    assert Conv2D(2, 3, 3, bias_attr=False, act="relu")(x)._node.op.type == "relu"


def test_static_conv2d_layer_keeps_paddles_op_sequence(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        img = layers.data("img", [1, 8, 8], "float32")
        Conv2D(1, 3, 3, act="relu")(img)
    types = [op.type for op in main.global_block().ops]
    assert types == ["conv2d", "elementwise_add", "relu"]


def test_fused_output_is_channels_last_in_memory():
    """The single GEMM gives rows [N*OH*OW, M]; the NCHW result is a view of them (no
    transposing copy), which the pooling that follows keeps (see below)."""
    op = get_op("conv2d_fusion")
    x, w, b = r.uniform(-1, 1, (2, 5, 6, 6)).astype(np.float32), \
        r.uniform(-1, 1, (4, 5, 3, 3)).astype(np.float32), np.zeros(4, np.float32)
    out, _ = op.forward(KernelContext(np, core.CPUPlace()), x, w, b,
                        **op.full_attrs({"activation": "relu"}))
    assert out.shape == (2, 4, 4, 4) and memory_order(out) == (0, 2, 3, 1)


@pytest.mark.parametrize("attrs, match", [
    ({}, r"Bias must have shape \[4\]"),
    ({"activation": "sigmoid"}, "activation must be one of"),
])
def test_fusion_rejects_a_wrong_bias_or_activation(attrs, match):
    op = get_op("conv2d_fusion")
    x, w = np.zeros((1, 2, 4, 4), np.float32), np.zeros((4, 2, 3, 3), np.float32)
    bias = np.zeros(3 if not attrs else 4, np.float32)
    with pytest.raises(ShapeError, match=match):
        op.forward(KernelContext(np, core.CPUPlace()), x, w, bias, **op.full_attrs(attrs))


def _channels_last(a):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


@pytest.mark.parametrize("attrs", [
    {"ksize": [2, 2], "strides": [2, 2]},  # tiles
    {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},  # windows, padded
    {"ksize": [3, 3], "strides": [2, 2], "pooling_type": "avg", "ceil_mode": True},
])
def test_pool2d_keeps_a_channels_last_layout_and_its_values(attrs):
    op = get_op("pool2d")
    full = op.full_attrs(attrs)
    ctx = KernelContext(np, core.CPUPlace())
    x = np.maximum(r.uniform(-1, 1, (2, 5, 8, 8)).astype(np.float32), 0)  # ReLU ties
    xl = _channels_last(x)
    out, out_l = op.forward(ctx, x, **full), op.forward(ctx, xl, **full)
    np.testing.assert_array_equal(out_l, out)
    assert memory_order(out_l) == (0, 2, 3, 1)
    dout = r.uniform(-1, 1, out.shape).astype(np.float32)
    for d in (dout, _channels_last(dout)):  # the gradient may come in either layout
        (dx,), (dx_l,) = op.backward(ctx, [x], [out], [dout], **full), \
            op.backward(ctx, [xl], [out_l], [d], **full)
        np.testing.assert_array_equal(dx_l, dx)
        assert memory_order(dx_l) == (0, 2, 3, 1)


@pytest.mark.parametrize("op_type", ["conv2d", "conv2d_fusion"])
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_input_gradient_of_a_batch_matches_its_samples_one_by_one(op_type, data_format):
    """A batch of 8 images of 4 channels takes the batch-last input gradient, each image alone
    (batch 1 < 4 channels) the per-tap one: the two agree, and each is a fresh array."""
    x = r.uniform(-1, 1, (8, 4, 7, 6)).astype(np.float32)
    w = r.uniform(-1, 1, (5, 4, 3, 2)).astype(np.float32)
    b = r.uniform(-1, 1, 5).astype(np.float32)
    if data_format == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    opdef = get_op(op_type)
    attrs = opdef.full_attrs({"paddings": [1, 0], "dilations": [2, 1],
                              "data_format": data_format})
    ins = [x, w, b] if op_type == "conv2d_fusion" else [x, w]
    needs = (True, False, False) if op_type == "conv2d_fusion" else (True, False)

    def input_grad(ins, seed=None):
        ctx = KernelContext(np, None, needs_grad=needs)
        outs = opdef.forward(ctx, *ins, **attrs)
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        if seed is None:
            seed = r.uniform(-1, 1, outs[0].shape).astype(np.float32)
        grads = opdef.backward(ctx, ins, outs, [seed] + [None] * (len(outs) - 1), **attrs)
        return grads[0], seed

    whole, seed = input_grad(ins)
    one_by_one = np.concatenate([input_grad([x[k:k + 1]] + ins[1:], seed[k:k + 1])[0]
                                 for k in range(8)])
    np.testing.assert_allclose(whole, one_by_one, rtol=1e-5, atol=1e-5)
    assert whole.shape == x.shape and not np.shares_memory(whole, x)

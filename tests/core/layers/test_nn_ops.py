"""The neural-network and loss functional API (core/layers/nn.py, core/layers/loss.py) and
the behaviour of their ops beyond the registry cases: values against the naive references,
argument errors, running statistics, dropout statistics, shape inference with unknown dims."""
import numpy as np
import pytest

import core
from core import layers
from core.dispatch import apply
from core.initializer import NumpyArrayInitializer
from core.ops.registry import KernelContext, Meta, get_op
from core.param_attr import ParamAttr

from ..ops.op_cases.loss import acc_ref, ce_ref, sce_ref, swce_ref
from ..ops.op_cases.nn import conv_ref, pool_ref

r = np.random.default_rng(11)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def T(a, stop_gradient=True):
    return core.to_tensor(a, stop_gradient=stop_gradient)


def init(a):
    return ParamAttr(initializer=NumpyArrayInitializer(a))


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol,
                               atol=tol)


# -- conv2d / pool2d -----------------------------------------------------------------------------
def test_conv2d_values_bias_and_act():
    x, w, b = f32(2, 3, 6, 5), f32(4, 3, 3, 3), f32(4)
    out = layers.conv2d(T(x), 4, 3, stride=2, padding=1, param_attr=init(w), bias_attr=init(b),
                        act="relu")
    want = conv_ref(x, w, (2, 2), (1, 1)) + b[None, :, None, None]
    assert out.shape == [2, 4, 3, 3]
    close(out.numpy(), np.maximum(want, 0))


def test_conv2d_groups_no_bias_and_gradients():
    x, w = f32(1, 4, 5, 5), f32(6, 2, 2, 2)
    xt = T(x, stop_gradient=False)
    out = layers.conv2d(xt, 6, 2, groups=2, dilation=2, param_attr=init(w), bias_attr=False)
    close(out.numpy(), conv_ref(x, w, dilations=(2, 2), groups=2))
    out.backward(T(np.ones(out.shape, np.float32)))
    assert xt.gradient().shape == (1, 4, 5, 5)
    # each input pixel's gradient is the sum of the filter taps that read it
    assert np.abs(xt.gradient()).sum() > 0


def test_conv2d_same_padding_keeps_size_over_stride():
    out = layers.conv2d(T(f32(1, 2, 7, 6)), 3, [3, 2], stride=2, padding="SAME")
    assert out.shape == [1, 3, 4, 3]


def test_conv2d_nhwc_matches_nchw():
    x, w = f32(1, 5, 4, 2), f32(3, 2, 2, 2)
    out = layers.conv2d(T(x), 3, 2, param_attr=init(w), bias_attr=False, data_format="NHWC")
    close(out.numpy(), conv_ref(x.transpose(0, 3, 1, 2), w).transpose(0, 2, 3, 1))


def test_conv2d_first_layer_skips_input_gradient():
    op = get_op("conv2d")
    x, w = f32(2, 1, 6, 6), f32(3, 1, 3, 3)
    out = op.forward(KernelContext(np, core.CPUPlace()), x, w, **op.full_attrs({}))
    ctx = KernelContext(np, core.CPUPlace(), needs_grad=(False, True))
    dx, dw = op.backward(ctx, [x, w], [out], [np.ones_like(out)], **op.full_attrs({}))
    assert dx is None and dw.shape == w.shape


@pytest.mark.parametrize("op_type, shapes, attrs", [
    ("conv2d", [(2, 1, 8, 8), (3, 1, 3, 3)], {}),  # per-sample columns
    ("conv2d", [(2, 4, 5, 5), (3, 4, 3, 3)], {"paddings": [1, 1], "strides": [2, 2]}),  # rows
    ("conv2d", [(2, 5, 5, 4), (3, 4, 3, 3)], {"data_format": "NHWC"}),
    ("pool2d", [(2, 3, 6, 7)], {"ksize": [2, 2], "strides": [2, 2]}),
    ("pool2d", [(2, 3, 6, 6)], {"pooling_type": "avg", "ksize": [3, 3], "strides": [3, 3]}),
])
def test_fast_kernels_match_forward_and_check_the_declared_shape(op_type, shapes, attrs):
    op = get_op(op_type)
    attrs = op.full_attrs(attrs)
    arrays = [f32(*s) for s in shapes]
    metas = [Meta((-1,) + shapes[0][1:], np.dtype(np.float32))]  # batch unknown, as in a feed
    metas += [Meta(s, np.dtype(np.float32)) for s in shapes[1:]]
    kernel = op.fast_kernel(np, metas, **attrs)
    assert kernel is not None
    ctx = KernelContext(np, core.CPUPlace())
    close(kernel(*arrays), op.forward(ctx, *arrays, **attrs))
    bigger = [f32(1, *[d + 1 if i == 1 else d for i, d in enumerate(arrays[0].shape[1:])])]
    bigger += arrays[1:]
    close(kernel(*bigger), op.forward(ctx, *bigger, **attrs))  # not as declared: checked path


@pytest.mark.parametrize("kw", [
    {"pool_size": 2, "pool_stride": 2},
    {"pool_size": 3, "pool_stride": 2, "pool_padding": 1, "pool_type": "avg"},
    {"pool_size": 3, "pool_stride": 2, "pool_padding": 1, "pool_type": "avg",
     "exclusive": False},
    {"pool_size": 2, "pool_stride": 2, "ceil_mode": True},
    {"pool_type": "avg", "global_pooling": True},
])
def test_pool2d_values(kw):
    x = f32(2, 3, 5, 5)
    out = layers.pool2d(T(x), **kw)
    pad = kw.get("pool_padding", 0)
    want = pool_ref(x, kw.get("pool_type", "max"), [kw.get("pool_size", 1)] * 2,
                    [kw.get("pool_stride", 1)] * 2, [pad, pad],
                    kw.get("global_pooling", False), kw.get("ceil_mode", False),
                    kw.get("exclusive", True))
    close(out.numpy(), want)


def test_max_pool_gradient_goes_to_the_first_of_tied_maxima():
    x = np.zeros((1, 1, 2, 4), np.float32)  # e.g. after a ReLU: whole windows of zeros
    x[0, 0, 1, 3] = 1.0
    xt = T(x, stop_gradient=False)
    out = layers.pool2d(xt, 2, pool_stride=2)
    out.backward(T(np.ones(out.shape, np.float32)))
    want = np.zeros_like(x)
    want[0, 0, 0, 0] = 1.0  # first element of the all-zero window
    want[0, 0, 1, 3] = 1.0
    close(xt.gradient(), want)



@pytest.mark.parametrize("ceil_mode,size", [(False, 8), (True, 7)])
def test_tiled_max_pool_gradient_writes_every_pixel(ceil_mode, size):
    """Windows that tile the (ceil-padded) image leave the gradient array uninitialised and
    write each pixel once: pixels off the maxima must still come out exactly 0, even when
    the memory the kernel gets held NaNs just before."""
    x = f32(4, 3, size, size)
    want = None
    for _ in range(3):
        junk = np.full((4, 3, 8, 8), np.nan, np.float32)  # freed right away: reused memory
        del junk
        xt = T(x, stop_gradient=False)
        out = layers.pool2d(xt, 2, pool_stride=2, ceil_mode=ceil_mode)
        out.backward(T(np.ones(out.shape, np.float32)))
        g = xt.gradient()
        assert np.isfinite(g).all()
        assert int((g != 0).sum()) == out.size  # one maximum per window, nothing else
        want = g if want is None else want
        np.testing.assert_array_equal(g, want)

# -- normalisation -------------------------------------------------------------------------------
def test_batch_norm_training_normalises_per_channel():
    x = f32(8, 3, 4, 4, lo=-2.0, hi=5.0)
    out = layers.batch_norm(T(x)).numpy()
    close(out.mean(axis=(0, 2, 3)), np.zeros(3), 1e-4)
    close(out.var(axis=(0, 2, 3)), np.ones(3), 1e-3)


def test_batch_norm_test_mode_uses_fresh_running_stats():
    x = f32(2, 3, 2, 2)
    out = layers.batch_norm(T(x), is_test=True, epsilon=1e-3)
    close(out.numpy(), x / np.sqrt(1 + 1e-3))


def test_batch_norm_running_statistics_written_back():
    x = f32(6, 2, lo=0.0, hi=4.0)
    s, b = T(np.ones(2, np.float32)), T(np.zeros(2, np.float32))
    m, v = T(np.zeros(2, np.float32)), T(np.ones(2, np.float32))
    outs = apply("batch_norm", [T(x), s, b, m, v], {"momentum": 0.8}, outputs={1: m, 2: v})
    assert outs[1] is m and outs[2] is v
    close(m.numpy(), 0.2 * x.mean(axis=0))
    close(v.numpy(), 0.8 + 0.2 * x.var(axis=0))


def test_layer_norm_with_and_without_affine():
    x = f32(3, 2, 4, lo=-3.0, hi=3.0)
    out = layers.layer_norm(T(x), begin_norm_axis=2).numpy()
    close(out.mean(axis=2), np.zeros((3, 2)), 1e-5)
    bare = layers.layer_norm(T(x), scale=False, shift=False).numpy()
    flat = x.reshape(3, -1)
    close(bare.reshape(3, -1), (flat - flat.mean(1, keepdims=True)) /
          np.sqrt(flat.var(1, keepdims=True) + 1e-5), 1e-4)


# -- dropout / embedding / fc --------------------------------------------------------------------
def test_dropout_rate_and_implementations():
    x = np.ones((200, 100), np.float32)
    down = layers.dropout(T(x), 0.3, seed=7).numpy()
    assert set(np.unique(down)) <= {0.0, 1.0}
    assert abs((down == 0).mean() - 0.3) < 0.02
    up = layers.dropout(T(x), 0.3, seed=7, dropout_implementation="upscale_in_train").numpy()
    close(up[up != 0], 1 / 0.7)
    assert abs(up.mean() - 1.0) < 0.03
    close(layers.dropout(T(x), 0.3, is_test=True).numpy(), 0.7 * x)
    close(layers.dropout(T(x), 0.3, is_test=True,
                         dropout_implementation="upscale_in_train").numpy(), x)


def test_dropout_seed_reproducible_and_global_seed():
    x = T(np.ones((50, 40), np.float32))
    a, b = layers.dropout(x, 0.5, seed=3).numpy(), layers.dropout(x, 0.5, seed=3).numpy()
    c = layers.dropout(x, 0.5, seed=4).numpy()
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    core.seed(99)
    d = layers.dropout(x, 0.5).numpy()
    core.seed(99)
    assert np.array_equal(d, layers.dropout(x, 0.5).numpy())


def test_dropout_gradient_uses_the_mask():
    xt = T(f32(10, 10), stop_gradient=False)
    out = layers.dropout(xt, 0.5, seed=1, dropout_implementation="upscale_in_train")
    out.backward(T(np.ones((10, 10), np.float32)))
    kept = out.numpy() != 0
    close(xt.gradient(), np.where(kept, 2.0, 0.0))


def test_embedding_trailing_one_padding_idx_and_gradient():
    w = f32(5, 3)
    ids = np.array([[4], [1], [4], [0]], np.int64)
    out = layers.embedding(T(ids), [5, 3], padding_idx=-1, param_attr=init(w))
    want = w[ids[:, 0]]
    want[ids[:, 0] == 4] = 0
    assert out.shape == [4, 3]
    close(out.numpy(), want)
    grid = layers.embedding(T(np.array([[1, 2], [3, 1]], np.int64)), [5, 3],
                            param_attr=init(w))
    assert grid.shape == [2, 2, 3]


def test_lookup_table_weight_gradient_accumulates_and_skips_padding():
    w = T(f32(4, 2), stop_gradient=False)
    ids = T(np.array([2, 0, 2, 3, 3], np.int64))
    out = apply("lookup_table", [w, ids], {"padding_idx": 3})
    out.backward(T(np.ones((5, 2), np.float32)))
    close(w.gradient(), [[1, 1], [0, 0], [2, 2], [0, 0]])


def test_fc_single_list_and_flatten_dims():
    x, w, b = f32(2, 3, 4), f32(12, 5), f32(5)
    out = layers.fc(T(x), 5, param_attr=init(w), bias_attr=init(b), act="tanh")
    close(out.numpy(), np.tanh(x.reshape(2, 12) @ w + b))
    w2 = f32(4, 6)
    out2 = layers.fc(T(x), 6, num_flatten_dims=2, param_attr=init(w2), bias_attr=False)
    assert out2.shape == [2, 3, 6]
    close(out2.numpy(), x @ w2)
    y, wy = f32(2, 7), f32(7, 5)
    both = layers.fc([T(x), T(y)], 5, param_attr=[init(w), init(wy)], bias_attr=False)
    close(both.numpy(), x.reshape(2, 12) @ w + y @ wy)


def test_parameter_names_follow_paddle():
    with core.unique_name.guard():
        x = T(f32(1, 2, 4, 4))
        layers.conv2d(x, 2, 3)  # creates conv2d_0.w_0 and conv2d_0.b_0
        out = layers.conv2d(x, 2, 3, bias_attr=False)
    assert out.shape == [1, 2, 2, 2]


# -- losses --------------------------------------------------------------------------------------
def test_loss_functions_against_references():
    p = f32(4, 3, lo=0.1, hi=1.0)
    p /= p.sum(1, keepdims=True)
    lab = np.array([[0], [2], [-100], [1]], np.int64)
    close(layers.cross_entropy(T(p), T(lab)).numpy(), ce_ref(p, lab))
    logits = f32(4, 3)
    loss, sm = layers.softmax_with_cross_entropy(T(logits), T(lab), return_softmax=True)
    want_sm, want_loss = swce_ref(logits, lab)
    close(loss.numpy(), want_loss)
    close(sm.numpy(), want_sm)
    a, b = f32(3, 2), f32(3, 2)
    close(layers.square_error_cost(T(a), T(b)).numpy(), (a - b) ** 2)
    z = r.integers(0, 2, (3, 2)).astype(np.float32)
    close(layers.sigmoid_cross_entropy_with_logits(T(a), T(z), normalize=True).numpy(),
          sce_ref(a, z, normalize=True))


def test_softmax_with_cross_entropy_gradient_is_softmax_minus_onehot():
    logits = T(f32(3, 4), stop_gradient=False)
    lab = np.array([[1], [3], [0]], np.int64)
    loss = layers.softmax_with_cross_entropy(logits, T(lab))
    loss.backward(T(np.ones((3, 1), np.float32)))
    sm = np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(1, keepdims=True)
    close(logits.gradient(), sm - np.eye(4)[lab[:, 0]])


def test_accuracy_topk_and_counters():
    pred = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]],
                    np.float32)
    lab = np.array([[1], [2], [0], [0]], np.int64)
    close(layers.accuracy(T(pred), T(lab)).numpy(), [0.5])
    correct, total = T(np.zeros(1, np.int32)), T(np.zeros(1, np.int32))
    acc = layers.accuracy(T(pred), T(lab), k=2, correct=correct, total=total)
    idx = np.argsort(-pred, axis=1, kind="stable")[:, :2]
    want = acc_ref(None, idx, lab)
    close(acc.numpy(), want[0])
    assert int(correct.numpy()[0]) == int(want[1][0]) and int(total.numpy()[0]) == 4


# -- argument errors -----------------------------------------------------------------------------
@pytest.mark.parametrize("call,words", [
    (lambda: layers.conv2d(T(f32(2, 3, 4)), 2, 3), ["conv2d", "'input'", "4-D", "[2, 3, 4]"]),
    (lambda: layers.conv2d(T(f32(1, 3, 4, 4)), 2, 3, groups=2),
     ["conv2d", "3 channels", "groups=2", "[1, 3, 4, 4]"]),
    (lambda: layers.conv2d(T(f32(1, 4, 4, 4)), 3, 3, groups=2), ["num_filters", "groups=2"]),
    (lambda: layers.conv2d(T(f32(1, 2, 4, 4)), 2, 0), ["filter_size", ">= 1"]),
    (lambda: layers.pool2d(T(f32(1, 2, 4, 4))), ["pool2d", "pool_size"]),
    (lambda: layers.pool2d(T(f32(1, 2, 4, 4)), 2, pool_type="min"), ["pool_type", "'min'"]),
    (lambda: layers.batch_norm(T(f32(4))), ["batch_norm", "rank >= 2", "[4]"]),
    (lambda: layers.layer_norm(T(f32(2, 3)), begin_norm_axis=2), ["begin_norm_axis", "[2, 3]"]),
    (lambda: layers.dropout(T(f32(2, 3)), 1.5), ["dropout_prob", "[0, 1]", "1.5"]),
    (lambda: layers.dropout(T(f32(2)), 0.5, dropout_implementation="x"),
     ["dropout_implementation", "'x'"]),
    (lambda: layers.embedding(T(f32(3, 1)), [4, 2]), ["embedding", "'input'", "float32"]),
    (lambda: layers.embedding(T(np.zeros((3, 1), np.int64)), [4, 2], padding_idx=4),
     ["padding_idx", "4"]),
    (lambda: layers.fc(T(f32(2, 3)), 4, num_flatten_dims=2), ["num_flatten_dims", "[2, 3]"]),
    (lambda: layers.cross_entropy(T(f32(3, 4)), T(f32(3, 1))),
     ["cross_entropy", "'label'", "float32", "int64"]),
    (lambda: layers.cross_entropy(T(f32(3, 4)), T(np.zeros((3, 2), np.int64))),
     ["'label'", "[3, 1]", "[3, 2]", "[3, 4]"]),
    (lambda: layers.cross_entropy(T(f32(3, 4)), T(f32(3, 4).astype(np.float64)),
                                  soft_label=True), ["soft", "float32", "float64"]),
    (lambda: layers.softmax_with_cross_entropy(T(f32(3, 4)), T(np.zeros(3, np.int64))),
     ["softmax_with_cross_entropy", "'label'", "[3, 1]", "[3]"]),
    (lambda: layers.sigmoid_cross_entropy_with_logits(T(f32(3, 4)), T(f32(4, 3))),
     ["'label'", "[3, 4]", "[4, 3]"]),
    (lambda: layers.accuracy(T(f32(3, 4)), T(np.zeros((3, 1), np.int64)), k=5),
     ["accuracy", "'k'", "5"]),
])
def test_argument_errors_name_function_argument_and_values(call, words):
    with pytest.raises((TypeError, ValueError)) as e:
        call()
    for w in words:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"


def test_kernel_errors_name_the_bad_values():
    with pytest.raises(core.errors.OpError, match=r"lookup_table.*\[0, 3\).*\[0, 5\]"):
        apply("lookup_table", [T(f32(3, 2)), T(np.array([0, 5], np.int64))])
    with pytest.raises(core.errors.OpError, match=r"labels must lie in \[0, 4\)"):
        apply("cross_entropy", [T(f32(2, 4, lo=0.1)), T(np.array([[1], [9]], np.int64))])
    with pytest.raises(core.errors.OpError, match=r"Input has 3 channels.*groups=2"):
        apply("conv2d", [T(f32(1, 3, 4, 4)), T(f32(2, 1, 2, 2))], {"groups": 2})


# -- shape inference -----------------------------------------------------------------------------
def _metas(*arrays):
    return [None if a is None else Meta(a.shape, a.dtype) for a in arrays]


@pytest.mark.parametrize("op_type,inputs,attrs", [
    ("conv2d", [f32(2, 2, 5, 5), f32(4, 1, 3, 3)],
     {"groups": 2, "strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [1, 2]}),
    ("pool2d", [f32(2, 3, 5, 7)], {"ksize": [2, 3], "strides": [2, 2], "ceil_mode": True}),
    ("pool2d", [f32(2, 3, 5, 7)], {"ksize": [2, 3], "adaptive": True}),
    ("batch_norm", [f32(4, 3, 2), f32(3), f32(3), f32(3), f32(3)], {}),
    ("layer_norm", [f32(2, 3, 4), None, f32(12)], {}),
    ("dropout", [f32(3, 4)], {}),
    ("lookup_table", [f32(5, 2), np.array([[1, 2, 3]], np.int64)], {}),
    ("softmax_with_cross_entropy", [f32(2, 3, 4), np.zeros((2, 1, 4), np.int64)], {"axis": 1}),
    ("accuracy", [f32(3, 2), np.zeros((3, 2), np.int64), np.zeros((3, 1), np.int64)], {}),
])
def test_infer_matches_forward_and_keeps_unknown_batch(op_type, inputs, attrs):
    op = get_op(op_type)
    full = op.full_attrs(attrs)
    outs = op.forward(KernelContext(np, core.CPUPlace()), *inputs, **full)
    metas = op.infer(*_metas(*inputs), **full)
    outs, metas = ((outs,), (metas,)) if isinstance(metas, Meta) else (outs, metas)
    for o, m in zip(outs, metas):
        assert tuple(m.shape) == o.shape and np.dtype(m.dtype) == o.dtype
    unknown = [None if a is None else Meta((-1,) + a.shape[1:], a.dtype) if k == 0 else
               Meta(a.shape, a.dtype) for k, a in enumerate(inputs)]
    if op_type in ("lookup_table", "accuracy"):
        return  # the first input there is a table / scores, not a batch
    first = op.infer(*unknown, **full)
    first = first if isinstance(first, Meta) else first[0]
    assert first.shape[0] == -1 and tuple(first.shape[1:]) == outs[0].shape[1:]


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_conv_pool_batch_norm_on_gpu_match_cpu():
    import cupy

    ctx_c, ctx_g = KernelContext(np, core.CPUPlace()), KernelContext(cupy, core.CUDAPlace(0))
    x, w = f32(2, 4, 9, 9), f32(6, 2, 3, 3)
    for op_type, ins, attrs in [
            ("conv2d", [x, w], {"groups": 2, "paddings": [1, 1], "strides": [2, 2]}),
            ("pool2d", [x], {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]}),
            ("pool2d", [x], {"ksize": [3, 3], "pooling_type": "avg", "ceil_mode": True}),
            ("batch_norm", [x, f32(4), f32(4), f32(4), f32(4, lo=0.5)], {})]:
        op = get_op(op_type)
        full = op.full_attrs(attrs)
        oc = op.forward(ctx_c, *ins, **full)
        og = op.forward(ctx_g, *[cupy.asarray(a) for a in ins], **full)
        oc, og = (oc, og) if isinstance(oc, tuple) else ((oc,), (og,))
        close(cupy.asnumpy(og[0]), oc[0], 1e-4)
        dout = f32(*oc[0].shape)
        needs = tuple(True for _ in ins)
        gc = op.backward(KernelContext(np, core.CPUPlace(), needs_grad=needs), ins, list(oc),
                         [dout] + [None] * (len(oc) - 1), **full)
        gg = op.backward(KernelContext(cupy, core.CUDAPlace(0), needs_grad=needs),
                         [cupy.asarray(a) for a in ins], list(og),
                         [cupy.asarray(dout)] + [None] * (len(og) - 1), **full)
        for a, b in zip(gc, gg):
            if a is not None:
                close(cupy.asnumpy(b), a, 1e-4)


# -- static mode ---------------------------------------------------------------------------------
@pytest.fixture
def static_programs():
    core.enable_static()
    main, startup = core.Program(), core.Program()
    try:
        with core.program_guard(main, startup):
            yield main, startup
    finally:
        core.disable_static()


def test_static_program_matches_references_and_updates_running_stats(static_programs):
    main, startup = static_programs
    x, w, lab = f32(4, 2, 6, 6), f32(3, 2, 3, 3), np.array([[0], [2], [1], [2]], np.int64)
    img = core.static.data("img", [-1, 2, 6, 6])
    label = core.static.data("label", [-1, 1], dtype="int64")
    conv = layers.conv2d(img, 3, 3, param_attr=init(w), bias_attr=False)
    pool = layers.pool2d(conv, 2, pool_stride=2, pool_type="avg")
    bn = layers.batch_norm(pool, momentum=0.5, moving_mean_name="bn_mean")
    drop = layers.dropout(bn, 0.5, is_test=True)
    logits = layers.reduce_sum(drop, dim=[2, 3])
    loss = layers.softmax_with_cross_entropy(logits, label)
    assert conv.shape == [-1, 3, 4, 4] and pool.shape == [-1, 3, 2, 2]
    assert loss.shape == [-1, 1]
    exe = core.Executor(core.CPUPlace())
    exe.run(startup)
    got_pool, got_loss = exe.run(main, feed={"img": x, "label": lab},
                                 fetch_list=[pool, loss])
    want_pool = pool_ref(conv_ref(x, w), "avg", (2, 2), (2, 2))
    close(got_pool, want_pool, 1e-4)
    norm = (want_pool - want_pool.mean((0, 2, 3), keepdims=True)) / \
        np.sqrt(want_pool.var((0, 2, 3), keepdims=True) + 1e-5)
    close(got_loss, swce_ref((0.5 * norm).sum((2, 3)), lab)[1], 1e-4)
    mean = np.asarray(core.global_scope().find_var("bn_mean").get_tensor())
    close(mean, 0.5 * want_pool.mean((0, 2, 3)), 1e-4)

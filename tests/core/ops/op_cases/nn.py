"""Cases for the neural-network ops (core/ops/nn.py, conv.py, pool.py, norm.py).

The references are deliberately naive (explicit loops over output positions, Paddle's window
rules spelled out), independent of the vectorised kernels they check.
"""
import numpy as np

from . import Case

r = np.random.default_rng(3)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def distinct(*shape):
    """float32 values that are pairwise far apart (no near-ties for max pooling)."""
    n = int(np.prod(shape))
    return (r.permutation(n).astype(np.float32) / n - 0.5).reshape(shape)


# -- conv2d --------------------------------------------------------------------------------------
def _four(p):
    return list(p) if len(p) == 4 else [p[0], p[0], p[1], p[1]]


def conv_ref(x, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
             data_format="NCHW"):
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    t, b, lft, rgt = _four(paddings)
    xp_ = np.pad(x, [(0, 0), (0, 0), (t, b), (lft, rgt)])
    n, _, hp, wp = xp_.shape
    m, cg, kh, kw = w.shape
    sh, sw = strides
    dh, dw = dilations
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, m, oh, ow), dtype=np.result_type(x, w))
    mg = m // groups
    for i in range(n):
        for f in range(m):
            grp = f // mg
            for p in range(oh):
                for q in range(ow):
                    acc = 0.0
                    for ch in range(cg):
                        for u in range(kh):
                            for v in range(kw):
                                acc += xp_[i, grp * cg + ch, p * sh + u * dh, q * sw + v * dw] * \
                                    w[f, ch, u, v]
                    out[i, f, p, q] = acc
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


def fusion_ref(x, w, b, activation="identity", data_format="NCHW", **conv_attrs):
    """``act(conv2d + bias)``; only ``Output`` is compared (``Columns`` is the kernel's own
    work layout, checked through the gradients it feeds)."""
    out = conv_ref(x, w, data_format=data_format, **conv_attrs)
    out = out + (b if data_format == "NHWC" else b[:, None, None])
    return (np.maximum(out, 0) if activation == "relu" else out).astype(out.dtype)


# -- pool2d --------------------------------------------------------------------------------------
def pool_ref(x, pooling_type="max", ksize=(1, 1), strides=(1, 1), paddings=(0, 0),
             global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
             data_format="NCHW"):
    """Paddle's CPU pooling loop: window [start, start + k) clipped to the image."""
    if data_format == "NHWC":
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    if global_pooling:
        ksize, strides, paddings = (h, w), (1, 1), (0, 0)
    kh, kw = ksize
    sh, sw = strides
    t, _, lft, _ = _four(paddings)
    if adaptive:
        oh, ow = kh, kw
    elif ceil_mode:
        oh = (h - kh + 2 * t + sh - 1) // sh + 1
        ow = (w - kw + 2 * lft + sw - 1) // sw + 1
    else:
        oh = (h - kh + 2 * t) // sh + 1
        ow = (w - kw + 2 * lft) // sw + 1
    out = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for p in range(oh):
        for q in range(ow):
            if adaptive:
                h0, h1 = int(np.floor(p * h / oh)), int(np.ceil((p + 1) * h / oh))
                w0, w1 = int(np.floor(q * w / ow)), int(np.ceil((q + 1) * w / ow))
            else:
                h0, w0 = p * sh - t, q * sw - lft
                h1, w1 = min(h0 + kh, h + t), min(w0 + kw, w + lft)
                h0, w0 = max(h0, 0), max(w0, 0)
                h1, w1 = min(h1, h), min(w1, w)
            win = x[:, :, h0:h1, w0:w1]
            if pooling_type == "max":
                out[:, :, p, q] = win.max(axis=(2, 3))
            else:
                div = (h1 - h0) * (w1 - w0) if (exclusive or adaptive) else kh * kw
                out[:, :, p, q] = win.sum(axis=(2, 3)) / div
    return out.transpose(0, 2, 3, 1) if data_format == "NHWC" else out


# -- batch_norm / layer_norm ---------------------------------------------------------------------
def bn_ref(x, scale, bias, mean, var, momentum=0.9, epsilon=1e-5, is_test=False,
           data_layout="NCHW", use_global_stats=False):
    ch = 1 if data_layout == "NCHW" else x.ndim - 1
    axes = tuple(a for a in range(x.ndim) if a != ch)
    shape = [1] * x.ndim
    shape[ch] = -1
    x64 = x.astype(np.float64)
    if is_test or use_global_stats:
        mu, v = mean.astype(np.float64), var.astype(np.float64)
        mo, vo = mean, var
    else:
        mu = x64.mean(axis=axes)
        v = x64.var(axis=axes)
        mo = (momentum * mean + (1 - momentum) * mu).astype(mean.dtype)
        vo = (momentum * var + (1 - momentum) * v).astype(var.dtype)
    y = (x64 - mu.reshape(shape)) / np.sqrt(v.reshape(shape) + epsilon)
    y = y * scale.reshape(shape) + bias.reshape(shape)
    return (y.astype(x.dtype), mo, vo, mu.astype(mean.dtype),
            (1 / np.sqrt(v + epsilon)).astype(mean.dtype))


def ln_ref(x, scale, bias, begin_norm_axis=1, epsilon=1e-5):
    left = int(np.prod(x.shape[:begin_norm_axis]))
    x2 = x.reshape(left, -1).astype(np.float64)
    mu, v = x2.mean(axis=1), x2.var(axis=1)
    y = (x2 - mu[:, None]) / np.sqrt(v[:, None] + epsilon)
    if scale is not None:
        y = y * scale
    if bias is not None:
        y = y + bias
    return y.reshape(x.shape).astype(x.dtype), mu.astype(x.dtype), v.astype(x.dtype)


# -- dropout / lookup_table ----------------------------------------------------------------------
def dropout_ref(draw_seed):
    """Reference for a run whose generator is seeded with ``draw_seed``."""
    def ref(x, dropout_prob=0.5, is_test=False, seed=0,
            dropout_implementation="downgrade_in_infer"):
        up = dropout_implementation == "upscale_in_train"
        if is_test:
            out = x if up else x * (1 - dropout_prob)
            return out.astype(x.dtype), np.ones(x.shape, np.uint8)
        keep = np.random.default_rng(draw_seed).random(x.shape, dtype=np.float32) >= \
            dropout_prob
        factor = 1 / (1 - dropout_prob) if up and dropout_prob < 1 else 1
        out = np.where(keep, x * factor, 0).astype(x.dtype)
        return out, keep.astype(np.uint8)
    return ref


def lookup_ref(w, ids, padding_idx=-1):
    out = np.zeros(ids.shape + (w.shape[1],), dtype=w.dtype)
    for pos in np.ndindex(*ids.shape):
        if ids[pos] != padding_idx:
            out[pos] = w[ids[pos]]
    return out


_bn = [f32(3, lo=0.5, hi=1.5), f32(3), f32(3), f32(3, lo=0.5, hi=1.5)]

CASES = {
    "conv2d": [
        Case([f32(1, 2, 4, 4), f32(3, 2, 2, 2)], ref=conv_ref, name="basic"),
        Case([f32(2, 2, 5, 5), f32(2, 2, 3, 3)], {"strides": [2, 2], "paddings": [1, 1]},
             ref=conv_ref, name="stride-pad"),
        Case([f32(1, 2, 5, 6), f32(2, 2, 2, 2)], {"dilations": [2, 1], "paddings": [0, 1, 1, 0]},
             ref=conv_ref, name="dilation-asym-pad"),
        Case([f32(1, 4, 4, 4), f32(6, 2, 2, 2)], {"groups": 2}, ref=conv_ref, name="groups"),
        Case([f32(1, 3, 3, 3), f32(3, 1, 2, 2)], {"groups": 3, "strides": [1, 2]},
             ref=conv_ref, name="depthwise"),
        Case([f32(1, 4, 3, 2), f32(2, 2, 2, 2)], {"data_format": "NHWC", "paddings": [1, 0]},
             ref=conv_ref, name="nhwc"),
        # one input channel, long rows: the per-sample column layout (MNIST's first layer)
        Case([f32(3, 1, 6, 7), f32(2, 1, 3, 3)], ref=conv_ref, name="per-sample"),
        Case([f32(2, 6, 7, 1), f32(2, 1, 3, 2)], {"data_format": "NHWC", "paddings": [1, 0]},
             ref=conv_ref, name="per-sample-nhwc"),
        # many channels, short rows: the channels-last rows layout, with every geometry attr
        Case([f32(2, 3, 5, 5), f32(2, 3, 2, 2)], {"strides": [2, 1], "dilations": [1, 2],
                                                 "paddings": [1, 0, 0, 1]},
             ref=conv_ref, name="rows-stride-dilation"),
        Case([f32(2, 4, 4, 3), f32(2, 3, 2, 2)], {"data_format": "NHWC", "paddings": [1, 1]},
             ref=conv_ref, name="rows-nhwc"),
        # N >= C with unit column stride: the input gradient's batch-last image
        Case([f32(3, 3, 6, 5), f32(2, 3, 3, 3)], {"strides": [2, 1], "dilations": [2, 1],
                                                 "paddings": [1, 0, 1, 1]},
             ref=conv_ref, name="rows-batch-last"),
        Case([f32(4, 5, 5, 3), f32(3, 3, 2, 3)], {"data_format": "NHWC", "paddings": [0, 1]},
             ref=conv_ref, name="rows-batch-last-nhwc"),
    ],
    # tap-major columns (few channels), grouped per-sample columns, channels-last rows
    "conv2d_fusion": [
        Case([f32(3, 1, 6, 7), f32(2, 1, 3, 3), f32(2)], {"activation": "relu"},
             ref=fusion_ref, name="taps-relu"),
        Case([f32(2, 4, 5, 5), f32(6, 2, 2, 2), f32(6)], {"groups": 2, "paddings": [1, 0]},
             ref=fusion_ref, name="grouped"),
        Case([f32(2, 6, 7, 1), f32(2, 1, 3, 2), f32(2)],
             {"data_format": "NHWC", "paddings": [1, 0], "activation": "relu"},
             ref=fusion_ref, name="taps-nhwc"),
        Case([f32(2, 3, 5, 5), f32(2, 3, 2, 2), f32(2)],
             {"strides": [2, 1], "dilations": [1, 2], "paddings": [1, 0, 0, 1],
              "activation": "relu"}, ref=fusion_ref, name="rows-relu"),
        Case([f32(2, 4, 4, 3), f32(2, 3, 2, 2), f32(2)],
             {"data_format": "NHWC", "paddings": [1, 1]}, ref=fusion_ref, name="rows-nhwc"),
        Case([f32(3, 3, 6, 5), f32(2, 3, 3, 3), f32(2)],
             {"paddings": [1, 0, 1, 1], "activation": "relu"}, ref=fusion_ref,
             name="rows-batch-last-relu"),
    ],
    "pool2d": [
        Case([distinct(1, 2, 4, 4)], {"ksize": [2, 2], "strides": [2, 2]}, ref=pool_ref,
             name="max-2x2"),
        Case([f32(2, 2, 4, 6)], {"pooling_type": "avg", "ksize": [2, 3], "strides": [2, 3]},
             ref=pool_ref, name="avg-nonoverlap"),
        Case([distinct(1, 2, 5, 5)], {"ksize": [2, 2], "strides": [2, 2]}, ref=pool_ref,
             name="max-2x2-crop"),
        Case([distinct(1, 2, 5, 5)], {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
             ref=pool_ref, name="max-overlap-pad"),
        Case([f32(1, 2, 5, 5)], {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                                 "paddings": [1, 1]}, ref=pool_ref, name="avg-exclusive"),
        Case([f32(1, 2, 5, 5)], {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                                 "paddings": [1, 1], "exclusive": False}, ref=pool_ref,
             name="avg-inclusive"),
        Case([distinct(1, 2, 5, 5)], {"ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
             ref=pool_ref, name="max-ceil"),
        Case([f32(1, 2, 6, 5)], {"pooling_type": "avg", "ksize": [3, 2], "strides": [2, 2],
                                 "ceil_mode": True}, ref=pool_ref, name="avg-ceil"),
        Case([distinct(2, 3, 3, 4)], {"global_pooling": True}, ref=pool_ref, name="global-max"),
        Case([f32(2, 3, 3, 4)], {"pooling_type": "avg", "global_pooling": True}, ref=pool_ref,
             name="global-avg"),
        Case([distinct(1, 2, 5, 7)], {"ksize": [2, 3], "adaptive": True}, ref=pool_ref,
             name="adaptive-max"),
        Case([f32(1, 2, 5, 7)], {"pooling_type": "avg", "ksize": [3, 3], "adaptive": True},
             ref=pool_ref, name="adaptive-avg"),
        Case([distinct(1, 4, 4, 2)], {"ksize": [2, 2], "strides": [1, 1],
                                      "data_format": "NHWC"}, ref=pool_ref, name="nhwc"),
        Case([distinct(2, 4, 6, 3)], {"ksize": [2, 3], "strides": [2, 3],
                                      "data_format": "NHWC"}, ref=pool_ref, name="tiles-nhwc"),
        Case([f32(1, 2, 7, 6)], {"pooling_type": "avg", "ksize": [3, 2], "strides": [3, 2]},
             ref=pool_ref, name="avg-tiles-crop"),
    ],
    "batch_norm": [
        Case([f32(4, 3, 2, 2)] + _bn, ref=bn_ref, name="train-nchw"),
        Case([f32(5, 3)] + _bn, {"momentum": 0.5, "epsilon": 1e-3}, ref=bn_ref, name="train-2d"),
        Case([f32(2, 3, 2, 3)] + _bn, {"is_test": True}, ref=bn_ref, name="test"),
        Case([f32(2, 2, 2, 3)] + _bn, {"data_layout": "NHWC"}, ref=bn_ref, name="nhwc"),
        Case([f32(3, 3, 2)] + _bn, {"use_global_stats": True}, ref=bn_ref, name="global-stats"),
    ],
    "layer_norm": [
        Case([f32(2, 3, 4), f32(12), f32(12)], ref=ln_ref, name="axis1"),
        Case([f32(2, 3, 4), f32(4), f32(4)], {"begin_norm_axis": 2, "epsilon": 1e-3},
             ref=ln_ref, name="axis2"),
        Case([f32(3, 5), None, None], ref=ln_ref, name="no-affine"),
        Case([f32(3, 5), f32(5), None], ref=ln_ref, name="scale-only"),
    ],
    "dropout": [
        Case([f32(4, 5)], {"dropout_prob": 0.4}, ref=dropout_ref(11), seed=11,
             name="downgrade-train"),
        Case([f32(4, 5)], {"dropout_prob": 0.3, "seed": 5,
                           "dropout_implementation": "upscale_in_train"},
             ref=dropout_ref(5), name="upscale-train-attr-seed"),
        Case([f32(3, 4)], {"dropout_prob": 0.25, "is_test": True}, ref=dropout_ref(0),
             name="downgrade-test"),
        Case([f32(3, 4)], {"dropout_prob": 0.25, "is_test": True,
                           "dropout_implementation": "upscale_in_train"},
             ref=dropout_ref(0), name="upscale-test"),
        Case([f32(3, 4)], {"dropout_prob": 0.0}, ref=dropout_ref(2), seed=2, name="p0"),
        Case([f32(3, 4)], {"dropout_prob": 1.0, "dropout_implementation": "upscale_in_train"},
             ref=dropout_ref(4), seed=4, name="p1"),
    ],
    "lookup_table": [
        Case([f32(5, 3), np.array([[0, 2], [4, 2]], dtype=np.int64)], ref=lookup_ref,
             name="repeat"),
        Case([f32(6, 2), np.array([1, 3, 3, 5, 0], dtype=np.int64)], {"padding_idx": 3},
             ref=lookup_ref, name="padding-idx"),
        Case([f32(4, 3), np.array([[2], [0], [2]], dtype=np.int64)], ref=lookup_ref,
             name="trailing-1"),
    ],
}

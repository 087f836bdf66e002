"""Cases for core/ops/conv_pool.py: ``conv2d_pool2d_fusion`` against ``conv2d_fusion``'s reference
followed by ``pool2d``'s, over every column layout and input-gradient path of the kernel."""
import numpy as np

from . import Case
from .nn import fusion_ref, pool_ref

r = np.random.default_rng(11)


def f32(*shape):
    return r.uniform(-1, 1, shape).astype(np.float32)


def conv_pool_ref(x, w, b, activation="relu", data_format="NCHW", pooling_type="max",
                  ksize=(2, 2), pool_strides=(2, 2), pool_paddings=(0, 0), **conv_attrs):
    """``max_pool(act(conv2d + bias))``; only ``Output`` is compared (``Columns`` and
    ``ConvOut`` are the kernel's work layouts, checked through the gradients they feed)."""
    y = fusion_ref(x, w, b, activation=activation, data_format=data_format, **conv_attrs)
    return pool_ref(y, pooling_type=pooling_type, ksize=tuple(ksize),
                    strides=tuple(pool_strides), paddings=tuple(pool_paddings),
                    data_format=data_format)


CASES = {
    "conv2d_pool2d_fusion": [
        # tap-major columns (one channel): the input gradient through per-sample columns
        Case([f32(2, 1, 6, 6), f32(3, 1, 3, 3), f32(3)], {"paddings": [1, 1]},
             ref=conv_pool_ref, name="taps-relu"),
        # channels-last rows, batch-last input gradient (N >= C, unit column stride)
        Case([f32(3, 2, 5, 5), f32(4, 2, 2, 2), f32(4)], {"activation": "identity"},
             ref=conv_pool_ref, name="rows-batch-last"),
        # rows with a column stride: the input gradient by taps from position-ordered rows
        Case([f32(2, 3, 9, 7), f32(2, 3, 3, 3), f32(2)],
             {"strides": [1, 2], "paddings": [1, 1], "ksize": [3, 2],
              "pool_strides": [3, 2]}, ref=conv_pool_ref, name="rows-strided-3x2"),
        Case([f32(2, 6, 6, 2), f32(3, 2, 3, 2), f32(3)],
             {"data_format": "NHWC", "paddings": [1, 1, 0, 1], "dilations": [1, 2],
              "ksize": [2, 1], "pool_strides": [2, 1]}, ref=conv_pool_ref, name="rows-nhwc"),
        Case([f32(2, 5, 4, 1), f32(2, 1, 2, 3), f32(2)],
             {"data_format": "NHWC", "activation": "identity"}, ref=conv_pool_ref,
             name="taps-nhwc"),
        # 1x1 windows: the pool is the identity, its gradient ReLU's mask
        Case([f32(2, 3, 4, 4), f32(2, 3, 2, 2), f32(2)],
             {"ksize": [1, 1], "pool_strides": [1, 1]}, ref=conv_pool_ref, name="1x1"),
    ],
}

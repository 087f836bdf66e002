"""The ``core.layers`` functions of the vision ops: each gives in static mode what it gives
eagerly (same parameters), matches the op's reference where the layer adds arguments of its
own (``output_size``, scales, 1-D and 3-D padding), and names the argument it rejects."""
import numpy as np
import pytest

import core
from core import layers as L
from core import static
from core.initializer import NumpyArrayInitializer
from core.mode import static_mode_guard
from core.param_attr import ParamAttr

from .op_cases.resize_pad import interp_ref, pad_ref
from .op_cases.vision import convt2_ref

r = np.random.default_rng(31)


def f32(*shape):
    return r.uniform(-1, 1, shape).astype(np.float32)


def fixed(shape):
    """A parameter initialised to values that depend only on ``shape`` (the same in the
    eager and the static build of a layer)."""
    values = np.random.default_rng(list(shape)).uniform(-1, 1, shape).astype(np.float32)
    return ParamAttr(initializer=NumpyArrayInitializer(values))


X4, X5, X3 = f32(2, 4, 5, 5), f32(2, 2, 4, 4, 4), f32(2, 3, 6)
GT_BOX = np.array([[[0.3, 0.4, 0.4, 0.5], [0.7, 0.2, 0.2, 0.3]],
                   [[0.5, 0.5, 0.8, 0.9], [0, 0, 0, 0]]], np.float32)
GT_LABEL = np.array([[0, 1], [1, 0]], np.int32)
ANCHORS = [10, 13, 16, 30, 33, 23]

BUILDERS = {
    "conv2d_transpose": (lambda x: L.conv2d_transpose(
        x, 6, output_size=[10, 10], filter_size=3, stride=2, padding=1, groups=2,
        param_attr=fixed([4, 3, 3, 3]), bias_attr=fixed([6]), act="relu"), [X4]),
    "conv2d_transpose_nhwc": (lambda x: L.conv2d_transpose(
        x, 3, filter_size=2, stride=2, param_attr=fixed([5, 3, 2, 2]), data_format="NHWC"),
        [X4]),
    "conv3d": (lambda x: L.conv3d(x, 3, 3, padding=1, param_attr=fixed([3, 2, 3, 3, 3]),
                                  bias_attr=fixed([3])), [X5]),
    "conv3d_transpose": (lambda x: L.conv3d_transpose(
        x, 2, filter_size=2, stride=2, param_attr=fixed([2, 2, 2, 2, 2]), bias_attr=False),
        [X5]),
    "pool3d": (lambda x: L.pool3d(x, 2, "avg", 2, 1, exclusive=False), [X5]),
    "resize_bilinear": (lambda x: L.resize_bilinear(x, out_shape=[7, 9]), [X4]),
    "resize_nearest": (lambda x: L.resize_nearest(x, scale=2.0, align_corners=False), [X4]),
    "resize_bicubic": (lambda x: L.resize_bicubic(x, out_shape=[3, 8], align_corners=False),
                       [X4]),
    "interpolate": (lambda x: L.interpolate(x, scale_factor=1.5, mode="bilinear"), [X4]),
    "resize_trilinear": (lambda x: L.resize_trilinear(x, out_shape=[5, 3, 6]), [X5]),
    "pad2d": (lambda x: L.pad2d(x, [1, 2, 3, 0], mode="reflect"), [X4]),
    "spatial_pad_1d": (lambda x: L.spatial_pad(x, [2, 3], mode="circular", data_format="NCL"),
                       [X3]),
    "spatial_pad_3d": (lambda x: L.spatial_pad(x, [1, 0, 0, 2, 1, 1], mode="replicate",
                                               data_format="NCDHW"), [X5]),
    "temporal_shift": (lambda x: L.temporal_shift(x, 2, 0.25), [X4]),
    "pixel_shuffle": (lambda x: L.pixel_shuffle(x, 2), [X4]),
    "instance_norm": (lambda x: L.instance_norm(x, param_attr=fixed([4]), bias_attr=fixed([4])),
                      [X4]),
    "group_norm": (lambda x: L.group_norm(x, 2, param_attr=fixed([4]), bias_attr=fixed([4]),
                                          act="relu"), [X4]),
    "yolov3_loss": (lambda x, box, label: L.yolov3_loss(
        x, box, label, ANCHORS, [0, 1], 2, 0.5, 8), [f32(2, 14, 4, 4), GT_BOX, GT_LABEL]),
    "yolo_box": (lambda x, size: L.yolo_box(x, size, ANCHORS[:4], 2, 0.3, 8),
                 [f32(2, 14, 3, 3), np.array([[24, 32], [40, 40]], np.int32)]),
}


def _eager(fn, arrays):
    out = fn(*[core.to_tensor(a) for a in arrays])
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy() for o in outs]


def _static(fn, arrays):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        feeds = [static.data(f"in{i}", list(a.shape), a.dtype) for i, a in enumerate(arrays)]
        out = fn(*feeds)
    outs = out if isinstance(out, tuple) else (out,)
    exe = static.Executor(core.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed={f"in{i}": a for i, a in enumerate(arrays)},
                   fetch_list=list(outs))


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_static_equals_eager(name):
    fn, arrays = BUILDERS[name]
    want = _eager(fn, arrays)
    got = _static(fn, arrays)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_conv2d_transpose_output_size_picks_output_padding_and_filter_size():
    w = f32(4, 2, 3, 3)
    x = core.to_tensor(X4)
    y = L.conv2d_transpose(x, 2, output_size=[10, 10], filter_size=3, stride=2, padding=1,
                           param_attr=ParamAttr(initializer=NumpyArrayInitializer(w)),
                           bias_attr=False)
    np.testing.assert_allclose(
        y.numpy(), convt2_ref(X4, w, strides=(2, 2), paddings=(1, 1), output_padding=(1, 1)),
        rtol=1e-5, atol=1e-6)
    # filter_size from output_size: (out - (in - 1) * stride + 2 * pad - 1) + 1
    assert L.conv2d_transpose(x, 3, output_size=[11, 12]).shape == [2, 3, 11, 12]
    with pytest.raises(ValueError, match=r"conv2d_transpose\(\).*'output_size'"):
        L.conv2d_transpose(x, 2, output_size=[12, 12], filter_size=3, stride=2, padding=1)


def test_scale_sets_the_ratio_in_interpolate_but_not_in_fluid_resize():
    x = f32(1, 2, 4, 3)
    fluid = L.resize_bilinear(core.to_tensor(x), scale=1.7, align_corners=False,
                              align_mode=0).numpy()
    two = L.interpolate(core.to_tensor(x), scale_factor=1.7, mode="bilinear").numpy()
    out = [int(4 * 1.7), int(3 * 1.7)]
    np.testing.assert_allclose(fluid, interp_ref(x, "bilinear", out, (), False, 0), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(two, interp_ref(x, "bilinear", out, (1.7, 1.7), False, 0),
                               rtol=1e-5, atol=1e-6)
    assert not np.allclose(fluid, two)


def test_spatial_pad_follows_paddle_order():
    got = L.spatial_pad(core.to_tensor(X4), [1, 2, 3, 0], mode="reflect").numpy()
    np.testing.assert_array_equal(got, pad_ref(X4, [3, 0, 1, 2], mode="reflect"))


@pytest.mark.parametrize("call,match", [
    (lambda x: L.conv2d_transpose(x, 3), r"conv2d_transpose\(\).*filter_size"),
    (lambda x: L.conv2d_transpose(x, 3, filter_size=2, groups=3), r"groups"),
    (lambda x: L.conv3d(x, 2, 3), r"conv3d\(\).*'input'.*5-D"),
    (lambda x: L.pool3d(x, 2), r"pool3d\(\).*'input'.*5-D"),
    (lambda x: L.resize_bilinear(x), r"image_resize\(\).*exactly one"),
    (lambda x: L.image_resize(x, [3, 3], resample="AREA"), r"'resample'"),
    (lambda x: L.interpolate(x, size=[3, 3], align_corners=True), r"align_corners"),
    (lambda x: L.pad2d(x, [1, 1], mode="reflect"), r"pad2d\(\).*'paddings'"),
    (lambda x: L.pad2d(x, [1, 1, 1, 1], mode="wrap"), r"pad2d\(\).*'mode'"),
    (lambda x: L.spatial_pad(x, [1, 1]), r"pad\(\).*'pad'.*4 ints"),
    (lambda x: L.temporal_shift(x, 3), r"temporal_shift\(\).*seg_num"),
    (lambda x: L.temporal_shift(x, 2, 0.7), r"'shift_ratio'"),
    (lambda x: L.pixel_shuffle(x, 3), r"pixel_shuffle\(\).*'x' \(4\).*upscale_factor \*\* 2"),
    (lambda x: L.pixel_shuffle(x, 0), r"pixel_shuffle\(\).*'upscale_factor'"),
    (lambda x: L.group_norm(x, 3), r"group_norm\(\).*groups=3"),
    (lambda x: L.instance_norm(x, epsilon=-1), r"instance_norm\(\).*'epsilon'"),
    (lambda x: L.yolo_box(x, x, [10, 13, 16], 2, 0.1, 8), r"yolo_box\(\).*'anchors'"),
    (lambda x: L.yolo_box(x, x, [10, 13], 2, 0.1, 8), r"yolo_box\(\).*'x'.*7 channels"),
    (lambda x: L.yolov3_loss(x, x, x, [10, 13], [1], 1, 0.5, 8), r"'anchor_mask'"),
])
def test_argument_errors_name_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(core.to_tensor(X4))

"""ONNX mappers of the vision ops of the GAN, video and detection model families: N-d and
transposed convolutions, 3-D pooling, interpolation, spatial padding, temporal shift,
instance / group normalisation and YOLO box decoding."""
from ..ops.conv_nd import spatial_pads, spatial_tuple
from .registry import mapper


def _channels_first(g, x, rank, last):
    """``x`` with its channel axis moved from last to 1 (no node when already there)."""
    if not last:
        return x
    return g.node("Transpose", [x], perm=[0, rank - 1] + list(range(1, rank - 1)))


def _channels_back(g, y, rank, last, hint):
    if not last:
        return g.node("Identity", [y], hint=hint)
    return g.node("Transpose", [y], perm=[0] + list(range(2, rank)) + [1], hint=hint)


def _is_last(data_format):
    return data_format in ("NHWC", "NDHWC", "NLC")


def _conv_attrs(a, d):
    lo, hi = spatial_pads(a["paddings"], d, "paddings")
    return dict(strides=list(spatial_tuple(a["strides"], d, "strides")),
                pads=list(lo) + list(hi), group=int(a["groups"]),
                dilations=list(spatial_tuple(a["dilations"], d, "dilations")))


@mapper("conv3d")
def _conv3d(g, v):
    a, last = v.attrs, _is_last(v.attrs["data_format"])
    x = _channels_first(g, v.x("Input"), 5, last)
    y = g.node("Conv", [x, v.x("Filter")], **_conv_attrs(a, 3))
    return {"Output": _channels_back(g, y, 5, last, v.out_hint("Output"))}


@mapper("conv2d_transpose", "conv3d_transpose")
def _conv_transpose(g, v):
    a, last = v.attrs, _is_last(v.attrs["data_format"])
    rank = v.rank("Input")
    d = rank - 2
    x = _channels_first(g, v.x("Input"), rank, last)
    y = g.node("ConvTranspose", [x, v.x("Filter")],
               output_padding=list(spatial_tuple(a["output_padding"], d, "output_padding")),
               **_conv_attrs(a, d))
    return {"Output": _channels_back(g, y, rank, last, v.out_hint("Output"))}

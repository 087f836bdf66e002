"""Built-in layers: ``Linear``, ``Embedding``, ``Dropout`` (the fluid 1.8 and the 2.x
spellings, see :mod:`core.nn.spellings`), ``Flatten``, ``Identity`` and the padding layers
``Pad1D`` / ``Pad2D`` / ``Pad3D``, the resizing layers ``Upsample`` / ``UpsamplingNearest2D`` /
``UpsamplingBilinear2D`` and ``PixelShuffle``."""
from ..checks import check_choice, check_float_input, check_index, check_int, check_probability
from ..dispatch import apply
from ..initializer import Xavier
from ..layers.activation import apply_act
from . import functional as F
from .functional import first_output
from .functional.common import DROPOUT_MODES, dropout_mode
from .layer import Layer
from .spellings import bind_2x, two_spellings

__all__ = ["Dropout", "Embedding", "Flatten", "Identity", "Linear", "Pad1D", "Pad2D", "Pad3D",
           "PixelShuffle", "Upsample", "UpsamplingBilinear2D", "UpsamplingNearest2D"]


class Linear(Layer):
    """``act(input @ weight + bias)`` with ``weight`` of shape ``[input_dim, output_dim]``
    (Xavier-initialised by default) and ``bias`` of shape ``[output_dim]`` (zeros;
    ``bias_attr=False`` for none). 2.x spelling: ``Linear(in_features, out_features,
    weight_attr=None, bias_attr=None, name=None)``."""

    @two_spellings("Linear", {"in_features": "input_dim", "out_features": "output_dim",
                              "weight_attr": "param_attr", "name": None})
    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None,
                 dtype="float32"):
        super().__init__(dtype=dtype)
        self._input_dim = check_int(input_dim, "input_dim", "Linear", minimum=1)
        self._output_dim = check_int(output_dim, "output_dim", "Linear", minimum=1)
        self._act = act
        self.weight = self.create_parameter([self._input_dim, self._output_dim], param_attr,
                                            dtype, is_bias=False)
        self.bias = self.create_parameter([self._output_dim], bias_attr, dtype, is_bias=True)

    def forward(self, input):
        if input.shape[-1] not in (-1, self._input_dim):
            raise ValueError(f"Linear ({self.full_name()}): the input's last dim must be "
                             f"input_dim={self._input_dim}, got input shape {list(input.shape)}")
        check_float_input(input, f"Linear ({self.full_name()})")
        out = apply("matmul", [input, self.weight])
        if self.bias is not None:
            out = apply("elementwise_add", [out, self.bias], {"axis": -1})
        return apply_act(out, self._act, "Linear")

    def extra_repr(self):
        act = f", act={self._act}" if self._act else ""
        return f"input_dim={self._input_dim}, output_dim={self._output_dim}{act}"


def _embedding_2x(num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                  weight_attr=None, name=None):
    """The 2.x signature of ``Embedding``."""


def _int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _embedding_call(args, kwargs):
    """A 2.x ``Embedding`` call (``Embedding(10, 16)``, ``num_embeddings=``) as a fluid one."""
    two_x = "num_embeddings" in kwargs or "embedding_dim" in kwargs or \
        (len(args) >= 2 and _int(args[0]) and _int(args[1]))
    if not two_x:
        return args, kwargs
    a = bind_2x("Embedding", _embedding_2x, args, kwargs)
    return (), {"size": [a["num_embeddings"], a["embedding_dim"]],
                "padding_idx": a["padding_idx"], "is_sparse": a["sparse"],
                "param_attr": a["weight_attr"]}


class Embedding(Layer):
    """Rows of a ``size = [vocab, dim]`` table looked up by integer ids (``lookup_table``);
    the row ``padding_idx`` (negative counts from the end) reads as zeros. 2.x spelling:
    ``Embedding(num_embeddings, embedding_dim, padding_idx=None, sparse=False,
    weight_attr=None, name=None)``."""

    @two_spellings("Embedding", {}, _embedding_call)
    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype=None):
        super().__init__(dtype=dtype)
        if isinstance(size, (str, bytes)) or not hasattr(size, "__len__") or len(size) != 2:
            raise TypeError(f"Embedding(): argument 'size' must be [vocab_size, embedding_dim], "
                            f"got {size!r}")
        size = [check_int(s, "size", "Embedding") for s in size]
        if min(size) <= 0:
            raise ValueError(f"Embedding(): argument 'size' must be [vocab_size, embedding_dim] "
                             f"with both > 0, got {size}")
        if padding_idx is None:
            padding_idx = -1
        else:
            padding_idx = check_index(padding_idx, size[0], "padding_idx", "Embedding",
                                      "vocabulary entries")
        self._size, self._padding_idx, self._is_sparse = size, padding_idx, bool(is_sparse)
        self.weight = self.create_parameter(size, param_attr, dtype, is_bias=False,
                                            default_initializer=Xavier())

    def forward(self, input):
        return apply("lookup_table", [self.weight, input], {"padding_idx": self._padding_idx})

    def extra_repr(self):
        pad = f", padding_idx={self._padding_idx}" if self._padding_idx >= 0 else ""
        return f"size={self._size}{pad}"


_DROPOUT_MODES = ("downgrade_in_infer", "upscale_in_train")


class Dropout(Layer):
    """Zeroes each element with probability ``p`` while training. ``downgrade_in_infer``
    (fluid's default) scales by ``1 - p`` at inference; ``upscale_in_train`` scales the kept
    elements by ``1 / (1 - p)`` while training and is the identity at inference.

    2.x spelling: ``Dropout(p=0.5, axis=None, mode='upscale_in_train', name=None)``; a call
    that names ``mode`` (or ``axis`` / ``name``) gets the 2.x default mode
    ``'upscale_in_train'``; ``Dropout(p)`` alone keeps fluid's ``'downgrade_in_infer'``."""

    def __init__(self, p=0.5, seed=None, dropout_implementation=None, is_test=False, *,
                 axis=None, mode=None, name=None):
        super().__init__()
        p = check_probability(p, "p", "Dropout")
        if axis is not None:
            raise ValueError("Dropout(): argument 'axis' (dropping whole slices) is not "
                             "supported; pass axis=None")
        two_x = mode is not None or name is not None
        if two_x and dropout_implementation is not None:
            raise TypeError("Dropout(): got both 'mode' and 'dropout_implementation', the 2.x "
                            "and the fluid spelling of one argument; pass one of them")
        if two_x:
            dropout_implementation = dropout_mode(mode or "upscale_in_train", "Dropout")
        elif dropout_implementation is None:
            dropout_implementation = "downgrade_in_infer"
        check_choice(dropout_implementation, "dropout_implementation", _DROPOUT_MODES, "Dropout")
        self._p, self._seed, self._mode = p, int(seed or 0), dropout_implementation
        self._is_test = bool(is_test)

    def forward(self, input):
        attrs = {"dropout_prob": self._p, "is_test": self._is_test or not self.training,
                 "seed": self._seed, "dropout_implementation": self._mode}
        return first_output(apply("dropout", [input], attrs))

    def extra_repr(self):
        mode = {v: k for k, v in DROPOUT_MODES.items()}[self._mode]
        return f"p={self._p}, mode={mode}"


class Flatten(Layer):
    """Flattens dims ``start_axis..stop_axis`` into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self._start, self._stop = int(start_axis), int(stop_axis)

    def forward(self, input):
        rank = len(input.shape)
        start, stop = self._start % max(rank, 1), self._stop % max(rank, 1)
        if start > stop:
            raise ValueError(f"Flatten: start_axis={self._start} comes after "
                             f"stop_axis={self._stop} for an input of rank {rank}")
        # NOTE: not a reshape with 0s: a 0 copies the input dim at the *same* position, which
        # is the wrong one for the dims after the flattened range
        return apply("flatten_contiguous_range", [input], {"start_axis": start,
                                                           "stop_axis": stop})

    def extra_repr(self):
        return f"start_axis={self._start}, stop_axis={self._stop}"


class Identity(Layer):
    """Returns its input unchanged (a placeholder in a model's structure)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


_PAD_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _PadNd(Layer):
    nd = 0

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        api = type(self).__name__
        formats = _PAD_FORMATS[self.nd]
        data_format = formats[0] if data_format is None else data_format
        check_choice(data_format, "data_format", formats, api)
        check_choice(mode, "mode", ("constant", "reflect", "replicate", "circular"), api)
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = [padding] * (2 * self.nd)
        if not isinstance(padding, (list, tuple)) or len(padding) != 2 * self.nd:
            raise ValueError(f"{api}(): argument 'padding' must be an int or {2 * self.nd} ints, "
                             f"got {padding!r}")
        self._padding = [check_int(p, "padding", api, minimum=0) for p in padding]
        self._mode, self._value, self._data_format = mode, float(value), data_format

    def forward(self, x):
        return F.pad(x, self._padding, mode=self._mode, value=self._value,
                     data_format=self._data_format)

    def extra_repr(self):
        return f"padding={self._padding}, mode={self._mode}, data_format={self._data_format}"


class Pad1D(_PadNd):
    """Pads the length axis of an NCL / NLC input: ``padding = [left, right]`` (or an int)."""

    nd = 1


class Pad2D(_PadNd):
    """Pads an NCHW / NHWC image: ``padding = [left, right, top, bottom]`` (or an int)."""

    nd = 2


class Pad3D(_PadNd):
    """Pads an NCDHW / NDHWC volume: ``[left, right, top, bottom, front, back]``."""

    nd = 3


class Upsample(Layer):
    """Resizes its input with :func:`core.nn.functional.interpolate`: ``Upsample(size=None,
    scale_factor=None, mode='nearest', align_corners=False, align_mode=0,
    data_format='NCHW')``."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format="NCHW", name=None):
        super().__init__()
        api = type(self).__name__
        if (size is None) == (scale_factor is None):
            raise ValueError(f"{api}(): give exactly one of 'size' and 'scale_factor'")
        check_choice(mode, "mode", ("nearest", "linear", "bilinear", "trilinear", "bicubic",
                                    "area"), api)
        self._args = dict(size=size, scale_factor=scale_factor, mode=mode,
                          align_corners=bool(align_corners), align_mode=align_mode,
                          data_format=data_format)

    def forward(self, x):
        return F.interpolate(x, **self._args)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._args.items() if v is not None)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour resizing of an image."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", data_format=data_format)


class UpsamplingBilinear2D(Upsample):
    """Bilinear resizing of an image with ``align_corners=True`` (as Paddle's)."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", align_corners=True,
                         data_format=data_format)


class PixelShuffle(Layer):
    """:func:`core.nn.functional.pixel_shuffle` as a layer: ``PixelShuffle(upscale_factor,
    data_format='NCHW')``."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        api = "PixelShuffle"
        self._upscale_factor = check_int(upscale_factor, "upscale_factor", api, minimum=1)
        self._data_format = check_choice(data_format, "data_format", ("NCHW", "NHWC"), api)

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        return f"upscale_factor={self._upscale_factor}, data_format={self._data_format}"

"""Built-in layers: ``Linear``, ``Embedding``, ``Dropout``, ``Flatten`` (fluid 1.8 dygraph
signatures)."""
from ..checks import check_choice, check_float_input, check_index, check_int, check_probability
from ..dispatch import apply
from ..initializer import Xavier
from ..layers.activation import apply_act
from .functional import first_output
from .layer import Layer

__all__ = ["Dropout", "Embedding", "Flatten", "Linear"]


class Linear(Layer):
    """``act(input @ weight + bias)`` with ``weight`` of shape ``[input_dim, output_dim]``
    (Xavier-initialised by default) and ``bias`` of shape ``[output_dim]`` (zeros;
    ``bias_attr=False`` for none)."""

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


class Embedding(Layer):
    """Rows of a ``size = [vocab, dim]`` table looked up by integer ids (``lookup_table``);
    the row ``padding_idx`` (negative counts from the end) reads as zeros."""

    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype="float32"):
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
    elements by ``1 / (1 - p)`` while training and is the identity at inference."""

    def __init__(self, p=0.5, seed=None, dropout_implementation="downgrade_in_infer",
                 is_test=False):
        super().__init__()
        p = check_probability(p, "p", "Dropout")
        check_choice(dropout_implementation, "dropout_implementation", _DROPOUT_MODES, "Dropout")
        self._p, self._seed, self._mode = p, int(seed or 0), dropout_implementation
        self._is_test = bool(is_test)

    def forward(self, input):
        attrs = {"dropout_prob": self._p, "is_test": self._is_test or not self.training,
                 "seed": self._seed, "dropout_implementation": self._mode}
        return first_output(apply("dropout", [input], attrs))

    def extra_repr(self):
        return f"p={self._p}, dropout_implementation={self._mode}"


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
        shape = [0] * start + [-1] + [0] * (rank - stop - 1)
        return apply("reshape", [input], {"shape": shape})

    def extra_repr(self):
        return f"start_axis={self._start}, stop_axis={self._stop}"

"""The layers whose PaddlePaddle 1.8 and 2.x constructors take positional arguments in a
different order, with the 2.x order: ``paddle.nn.Conv2D(3, 8, 3, 1, 0, 1, 1, 'zeros')`` means
what it means in PaddlePaddle 2.x, where ``core.nn.Conv2D`` keeps fluid's order.

Each is a subclass of the :mod:`core.nn` layer whose constructor has the 2.x signature and
passes every argument on by keyword (the core layer takes the 2.x keywords, see
:mod:`core.nn.spellings`), so behaviour, parameters and ``state_dict`` keys are the core
layer's and ``isinstance(layer, core.nn.Conv2D)`` holds; their parameters take
``paddle.get_default_dtype()`` (``core.nn.Linear`` / ``Conv2D`` keep fluid's
``dtype='float32'``). ``Dropout`` also takes 2.x's default ``mode='upscale_in_train'``
(``core.nn.Dropout(p)`` keeps fluid's ``'downgrade_in_infer'``).

The other layers (``Conv1D``, ``Conv3D``, the transposed convolutions, ``BatchNorm`` — which
2.x keeps with fluid's signature — and ``BatchNorm1D/2D/3D``) already have the 2.x order in
:mod:`core.nn` and are re-exported as they are.
"""
from core import nn as _nn
from core.dtypes import get_default_dtype

__all__ = ["Conv2D", "Dropout", "Embedding", "LayerNorm", "Linear"]


class Conv2D(_nn.Conv2D):
    """``Conv2D(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
    groups=1, padding_mode='zeros', weight_attr=None, bias_attr=None, data_format='NCHW',
    name=None)``: see :class:`core.nn.Conv2D`."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(in_channels=in_channels, out_channels=out_channels,
                         kernel_size=kernel_size, stride=stride, padding=padding,
                         dilation=dilation, groups=groups, padding_mode=padding_mode,
                         weight_attr=weight_attr, bias_attr=bias_attr, data_format=data_format,
                         dtype=get_default_dtype())


class Linear(_nn.Linear):
    """``Linear(in_features, out_features, weight_attr=None, bias_attr=None, name=None)``:
    see :class:`core.nn.Linear`."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__(in_features=in_features, out_features=out_features,
                         weight_attr=weight_attr, bias_attr=bias_attr, dtype=get_default_dtype())
        self._name = name

    def extra_repr(self):
        """As PaddlePaddle 2.x prints it: ``in_features=10, out_features=3, dtype=float32``."""
        rows, cols = self.weight.shape
        name = f", name={self._name}" if self._name else ""
        return f"in_features={rows}, out_features={cols}, dtype={self.weight.dtype.name}{name}"


class Embedding(_nn.Embedding):
    """``Embedding(num_embeddings, embedding_dim, padding_idx=None, sparse=False,
    weight_attr=None, name=None)``: see :class:`core.nn.Embedding`."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None):
        super().__init__(num_embeddings=num_embeddings, embedding_dim=embedding_dim,
                         padding_idx=padding_idx, sparse=sparse, weight_attr=weight_attr)


class LayerNorm(_nn.LayerNorm):
    """``LayerNorm(normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
    name=None)``; ``weight_attr=False`` / ``bias_attr=False`` leave the scale / shift out:
    see :class:`core.nn.LayerNorm`."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None):
        super().__init__(normalized_shape, epsilon=epsilon, weight_attr=weight_attr,
                         bias_attr=bias_attr)


class Dropout(_nn.Dropout):
    """``Dropout(p=0.5, axis=None, mode='upscale_in_train', name=None)``: kept elements are
    scaled by ``1 / (1 - p)`` while training, the identity in ``eval()``; see
    :class:`core.nn.Dropout`."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__(p, axis=axis, mode=mode, name=name)

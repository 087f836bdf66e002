"""Layers (``core.nn``): the ``Layer`` base class, the built-in layers (fluid 1.8 dygraph
signatures, and PaddlePaddle 2.x ones: where a name exists in both, one class takes both
spellings, see :mod:`core.nn.spellings`), pooling, normalisation, activation and loss layers,
containers, and ``core.nn.functional``.

Layers work in both modes: parameters come from :func:`core.parameter.create_parameter`
(eager tensors, or Program parameters initialised by the startup program) and ``forward``
runs ops through :func:`core.dispatch.apply`.
"""
from .._reexport import reexport
from ..clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import (activation, common, container, conv, decode, functional, layer, loss, norm, param,
               pooling, rnn, transformer)

__all__ = reexport(globals(), [layer, common, conv, pooling, norm, container, activation, loss,
                               rnn, transformer, decode])
__all__ += ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue", "functional", "param"]

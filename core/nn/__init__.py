"""Layers (``core.nn``): the ``Layer`` base class, the built-in layers with fluid 1.8 dygraph
signatures, containers, 2.0-style activation layers, and ``core.nn.functional``.

Layers work in both modes: parameters come from :func:`core.parameter.create_parameter`
(eager tensors, or Program parameters initialised by the startup program) and ``forward``
runs ops through :func:`core.dispatch.apply`.
"""
from .._reexport import reexport
from ..clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import (activation, common, container, conv, decode, functional, layer, norm, param, rnn,
               transformer)

__all__ = reexport(globals(), [layer, common, conv, norm, container, activation, rnn,
                               transformer, decode])
__all__ += ["ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue", "functional", "param"]

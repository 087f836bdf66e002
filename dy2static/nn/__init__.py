"""``paddle.nn``: the layers of :mod:`core.nn`, with the 2.x positional order (and 2.x
defaults) where a 1.8 and a 2.x constructor share a name (:mod:`.layers_2x`),
``nn.functional``, ``nn.initializer`` and gradient clipping."""
from core import nn as _nn
from core.param_attr import ParamAttr
from . import functional, initializer
from .layers_2x import Conv2D, Dropout, Embedding, LayerNorm, Linear

__all__ = ["Conv2D", "Dropout", "Embedding", "LayerNorm", "Linear", "ParamAttr", "functional",
           "initializer"]
# NOTE: core.nn's own ``functional`` submodule is reached here as dy2static.nn.functional
for _name in _nn.__all__:
    if _name not in __all__:
        globals()[_name] = getattr(_nn, _name)
        __all__.append(_name)
del _name

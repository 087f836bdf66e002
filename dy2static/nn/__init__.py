"""``paddle.nn``: the layers of :mod:`core.nn` (2.x and 1.8 signatures), ``nn.functional``,
``nn.initializer`` and gradient clipping."""
from core import nn as _nn
from core.param_attr import ParamAttr
from . import functional, initializer

__all__ = ["ParamAttr", "functional", "initializer"]
# NOTE: core.nn's own ``functional`` submodule is reached here as dy2static.nn.functional
for _name in _nn.__all__:
    if _name not in __all__:
        globals()[_name] = getattr(_nn, _name)
        __all__.append(_name)
del _name

"""``paddle.nn.functional``: the 2.x functions of :mod:`core.nn.functional`, plus the 2.x
names that are fluid functions with the same arguments (``square_error_cost``)."""
from core import layers as _layers
from core._reexport import reexport as _reexport
from core.nn import functional as _functional

__all__ = _reexport(globals(), [_functional])
for _name in ("square_error_cost", "sigmoid_cross_entropy_with_logits"):
    if _name not in __all__:
        globals()[_name] = getattr(_layers, _name)
        __all__.append(_name)
del _name

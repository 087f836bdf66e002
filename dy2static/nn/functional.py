"""``paddle.nn.functional``: the 2.x functions of :mod:`core.nn.functional`."""
from core._reexport import reexport as _reexport
from core.nn import functional as _functional

__all__ = _reexport(globals(), [_functional])

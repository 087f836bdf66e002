"""``paddle.regularizer``: :mod:`core.regularizer` (``L1Decay``, ``L2Decay``)."""
from core import regularizer as _regularizer
from core._reexport import reexport as _reexport

__all__ = _reexport(globals(), [_regularizer])

"""``paddle.optimizer.lr``: learning-rate schedules (:mod:`core.lr`)."""
from core import lr as _lr
from core._reexport import reexport as _reexport

__all__ = _reexport(globals(), [_lr])

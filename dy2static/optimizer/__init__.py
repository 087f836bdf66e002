"""``paddle.optimizer``: the optimizers of :mod:`core.optimizer` and the ``lr`` schedules."""
from core import optimizer as _optimizer
from core._reexport import reexport as _reexport
from . import lr

__all__ = _reexport(globals(), [_optimizer]) + ["lr"]

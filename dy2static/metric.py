"""``paddle.metric``: :mod:`core.metric` (``Accuracy``, ``Precision``, ``Recall``,
``accuracy``)."""
from core import metric as _metric
from core._reexport import reexport as _reexport

__all__ = _reexport(globals(), [_metric])

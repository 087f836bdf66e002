"""``paddle.distributed``: data-parallel training (:mod:`core.distributed`)."""
from core import distributed as _distributed
from core._reexport import reexport as _reexport
from core.io import DistributedBatchSampler

__all__ = _reexport(globals(), [_distributed]) + ["DistributedBatchSampler"]

"""``paddle.callbacks``: the hooks of ``Model.fit`` (:mod:`dy2static.hapi.callbacks`)."""
from .hapi.callbacks import Callback, EarlyStopping, LRScheduler, ModelCheckpoint

__all__ = ["Callback", "EarlyStopping", "LRScheduler", "ModelCheckpoint"]

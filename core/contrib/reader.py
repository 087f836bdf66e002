"""``core.contrib.reader``: fluid's ``contrib.reader.distributed_batch_reader``."""
from ..io.batch_reader import distributed_batch_reader

__all__ = ["distributed_batch_reader"]

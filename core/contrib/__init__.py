"""``core.contrib``: fluid's ``fluid.contrib`` names (``contrib.reader``)."""
from . import reader

__all__ = ["reader"]

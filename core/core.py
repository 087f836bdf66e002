"""``core.core``: the names fluid code reaches through ``fluid.core`` (``EOFException``)."""
from .errors import EOFException

__all__ = ["EOFException"]

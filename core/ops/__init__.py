"""The op set. Importing this package registers every op (one module per family)."""
from . import registry
from . import elementwise  # noqa: F401  (registers ops)

__all__ = ["registry"]

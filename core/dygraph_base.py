"""``core.dygraph.base``: fluid's ``fluid.dygraph.base`` names (``to_variable``, ``guard``,
``no_grad``, ``enabled``), for code that spells them with the module."""
from .autograd import no_grad
from .mode import guard, in_dynamic_mode
from .tensor import to_variable

__all__ = ["enabled", "guard", "no_grad", "to_variable"]


def enabled():
    """True in eager (dygraph) mode."""
    return in_dynamic_mode()

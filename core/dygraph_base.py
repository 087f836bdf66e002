"""``core.dygraph.base``: fluid's ``fluid.dygraph.base`` names (``to_variable``, ``guard``,
``no_grad``, ``enabled``), for code that spells them with the module."""
import contextlib

from . import mode, unique_name
from .autograd import no_grad
from .mode import in_dynamic_mode
from .tensor import to_variable

__all__ = ["enabled", "guard", "no_grad", "to_variable"]


def enabled():
    """True in eager (dygraph) mode."""
    return in_dynamic_mode()


@contextlib.contextmanager
def guard(place=None):
    """``fluid.dygraph.guard``: eager mode inside the block (on ``place`` if given), with
    fresh unique-name counters as fluid's guard has, so the Layers and parameters built in it
    are named from 0: the same model built in two guards has the same names and structured
    names (``self.full_name()`` in a sublayer's name), and a state dict of one loads into
    the other. The previous mode, place and counters after."""
    with mode.guard(place), unique_name.guard():
        yield

"""``core.imperative``: the 2.0-alpha ``paddle.imperative`` namespace."""
from . import io
from .autograd import no_grad
from .distributed.env import ParallelEnv
from .distributed.parallel import DataParallel, ParallelStrategy, prepare_context
from .dygraph_base import guard
from .mode import disable_imperative, enable_imperative, in_dynamic_mode
from .tensor import to_variable

__all__ = ["DataParallel", "ParallelEnv", "ParallelStrategy", "disable", "enable", "enabled",
           "guard", "load", "no_grad", "prepare_context", "save", "to_variable"]


def enable(place=None):
    """Switch to imperative (eager) mode, optionally on ``place``."""
    enable_imperative(place)


def disable():
    """Switch to static mode."""
    disable_imperative()


def enabled():
    """True in imperative (eager) mode."""
    return in_dynamic_mode()


def save(state_dict, model_path):
    """:func:`core.io.save`: a Layer's state dict to ``.pdparams``, an optimizer's to
    ``.pdopt``."""
    return io.save(state_dict, model_path)


def load(model_path):
    """:func:`core.io.load`: ``(param_dict, optimizer_dict)``."""
    return io.load(model_path)

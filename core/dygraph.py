"""``core.dygraph``: the fluid 1.8 ``fluid.dygraph`` namespace (eager mode, layers, save/load).

``guard`` runs its block in eager mode; ``save_dygraph`` / ``load_dygraph`` are
:func:`core.io.save` / :func:`core.io.load`; ``parallel`` (``Env``, ``prepare_context``,
``DataParallel``) is :mod:`core.distributed.parallel`.
"""
import sys

from . import dygraph_base as base
from . import io
from . import nn
from .autograd import no_grad
from .distributed import parallel
from .distributed.parallel import DataParallel, Env, ParallelStrategy, prepare_context
from .dygraph_base import guard
from .mode import disable_imperative, enable_imperative, in_dynamic_mode
from .nn import (
    BatchNorm,
    Conv2D,
    Dropout,
    Embedding,
    GRUUnit,
    Layer,
    LayerList,
    LayerNorm,
    Linear,
    ParameterList,
    Pool2D,
    Sequential,
)
from .tensor import to_variable

# ``import core.dygraph.base`` / ``from core.dygraph.base import to_variable`` and
# ``import core.dygraph.parallel`` / ``from core.dygraph.parallel import DataParallel``,
# ``from core.dygraph.nn import Embedding``
# (fluid's spellings): this module is not a package, so its submodules are registered here.
sys.modules[__name__ + ".base"] = base
sys.modules[__name__ + ".parallel"] = parallel
sys.modules[__name__ + ".nn"] = nn  # fluid.dygraph.nn: the layers of core.nn

__all__ = [
    "BackwardStrategy",
    "BatchNorm",
    "Conv2D",
    "DataParallel",
    "Dropout",
    "Embedding",
    "Env",
    "GRUUnit",
    "Layer",
    "LayerList",
    "LayerNorm",
    "Linear",
    "ParallelStrategy",
    "ParameterList",
    "Pool2D",
    "Sequential",
    "disable_dygraph",
    "disable_imperative",
    "enable_dygraph",
    "enable_imperative",
    "enabled",
    "guard",
    "load_dygraph",
    "no_grad",
    "parallel",
    "prepare_context",
    "save_dygraph",
    "to_variable",
]


def enabled():
    """True in eager (dygraph) mode."""
    return in_dynamic_mode()


def enable_dygraph(place=None):
    """Switch to eager mode (``fluid.enable_dygraph``)."""
    enable_imperative(place)


def disable_dygraph():
    """Switch to static mode (``fluid.disable_dygraph``)."""
    disable_imperative()


def save_dygraph(state_dict, model_path):
    """Save a Layer's (``.pdparams``) or an optimizer's (``.pdopt``) state dict at prefix
    ``model_path``."""
    return io.save(state_dict, model_path)


def load_dygraph(model_path):
    """``(param_dict, optimizer_dict)`` saved at prefix ``model_path`` (None for an absent
    file)."""
    return io.load(model_path)


class BackwardStrategy:
    """fluid 1.8's backward options. The tape always sums gradients in a fixed order, so
    ``sort_sum_gradient`` is accepted and has no further effect."""

    def __init__(self):
        self.sort_sum_gradient = False

"""``core.nn.functional``: the 2.x spellings of the ops (``import paddle.nn.functional as F``),
calling the same kernels as ``core.layers`` and the built-in layers. Each works in eager and
static mode and inside ``declarative`` code.

One module per family: activations, common functions (linear, dropout, embedding, pad, ...),
convolutions, pooling, losses, normalisation, and resizing (vision)."""
from ..._reexport import reexport
from . import activation, common, conv, loss, norm, pooling, vision
from .common import first_output  # noqa: F401 - the layers read it here

__all__ = reexport(globals(), [activation, common, conv, pooling, loss, norm, vision])

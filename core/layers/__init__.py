"""The functional API (``core.layers``): one function per op, in both modes.

In eager mode a call computes now and records the tape; in static mode it appends an operator
to the current block and returns a Variable. Names and arguments follow
``paddle.fluid.layers``.
"""
from .._reexport import reexport
from . import (activation, beam, control_flow, creation, elementary, loss, math, nn, reduce, rnn,
               sequence, shape, tensor_array, vision)

__all__ = reexport(globals(), [math, activation, elementary, reduce, creation, shape, nn, loss,
                               control_flow, tensor_array, sequence, rnn, beam, vision])

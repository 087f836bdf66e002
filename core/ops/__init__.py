"""The op set. Importing this package registers every op (one module per family)."""
from . import (activation, beam, collective, control_flow, conv, conv_nd, conv_pool, creation,
               crf, elementwise, fused, indexing, loss, math, nn, norm, optimizer, pool, reduce,
               registry, rnn, sequence, shape)

__all__ = ["activation", "beam", "collective", "control_flow", "conv", "conv_nd", "conv_pool",
           "creation", "crf", "elementwise", "fused", "indexing", "loss", "math", "nn", "norm",
           "optimizer", "pool", "reduce", "registry", "rnn", "sequence", "shape"]

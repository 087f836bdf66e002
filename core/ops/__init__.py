"""The op set. Importing this package registers every op (one module per family)."""
from . import (activation, control_flow, conv, creation, elementwise, indexing, loss, math, nn,
               norm, optimizer, pool, reduce, registry, rnn, shape)

__all__ = ["activation", "control_flow", "conv", "creation", "elementwise", "indexing", "loss",
           "math", "nn", "norm", "optimizer", "pool", "reduce", "registry", "rnn", "shape"]

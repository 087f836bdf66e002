"""The op set. Importing this package registers every op (one module per family)."""
from . import (activation, beam, collective, control_flow, conv, conv_nd, conv_pool, creation,
               crf, elementary, elementwise, fused, group_norm, indexing, linalg, loss, math,
               nn, norm, optimizer, pixel_shuffle, pool, pool3d, reduce, registry, resize,
               rnn, select, sequence, shape, spatial_pad, temporal_shift, yolo)

__all__ = ["activation", "beam", "collective", "control_flow", "conv", "conv_nd", "conv_pool",
           "creation", "crf", "elementary", "elementwise", "fused", "group_norm", "indexing",
           "linalg", "loss", "math", "nn", "norm", "optimizer", "pixel_shuffle", "pool",
           "pool3d", "reduce", "registry", "resize", "rnn", "select", "sequence", "shape",
           "spatial_pad", "temporal_shift", "yolo"]

"""PaddlePaddle 2.x programs on dy2static: ``import dy2static as paddle``.

A thin namespace over :mod:`core` (tensors, ops, layers, optimizers, static programs, save /
load) and :mod:`translator` (``paddle.jit``): re-exports, plus the few names only PaddlePaddle
2.x has (``Model``, ``summary``, ``vision.transforms``, ``set_device``, ``jit.save`` /
``jit.load``). Behaviour lives in ``core`` and ``translator``; nothing below imports this
package. ``import core as fluid`` stays the 1.8 spelling.
"""
import numpy as _np

import core as _core
from core import tensor_functions as _tf
from core._reexport import reexport as _reexport
from core import (CPUPlace, CUDAPlace, DataParallel, ParamAttr, Tensor, disable_static,
                  enable_static, in_dynamic_mode, is_compiled_with_cuda, no_grad, seed,
                  to_tensor)
from core.io.state_dict import load_object as load
from core.io.state_dict import save_object as save
from core.reader import batch
from core.static import create_parameter
from core.tensor_functions import clip
from core.tensor import Parameter
from . import (callbacks, device, distributed, framework, hapi, io, jit, metric, nn, optimizer,
               regularizer, static, vision)
from .device import get_device, set_device
from .hapi import Model, summary
from .nn.functional import one_hot

__version__ = "2.6.0"  # the PaddlePaddle API generation this namespace follows
#: the distribution's own version
full_version = "0.1.0"

__all__ = ["CPUPlace", "CUDAPlace", "DataParallel", "Model", "ParamAttr", "Parameter", "Tensor",
           "batch", "callbacks", "clip", "create_parameter", "device", "disable_static",
           "distributed", "enable_static", "framework", "get_device", "hapi", "in_dynamic_mode",
           "io", "is_compiled_with_cuda", "jit", "load", "metric", "nn", "no_grad", "one_hot",
           "optimizer", "regularizer", "save", "seed", "set_device", "static", "summary",
           "to_tensor", "vision"]
__all__ += _reexport(globals(), [_tf])

to_variable = _core.to_variable
# dtypes: ``x.dtype == paddle.float32`` and ``dtype=paddle.int64`` work (tensors hold numpy dtypes)
bool, uint8, int8, int16, int32, int64 = (_np.dtype(n) for n in (
    "bool", "uint8", "int8", "int16", "int32", "int64"))
float16, float32, float64 = (_np.dtype(n) for n in ("float16", "float32", "float64"))

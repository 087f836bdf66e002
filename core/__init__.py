"""dy2static's tensor core: eager tensors with autograd, the op set, layers, optimizers,
static programs and their executor, save/load.

What a program may never use is imported on first use (see :mod:`core._lazy`): ``onnx``,
``dataset``, ``distributed`` (and ``DataParallel``), the fluid namespaces ``dygraph``,
``imperative`` and ``contrib``, and ``reader`` (``batch``)."""
from . import ops  # registers every op before anything uses the registry
from . import backend, dtypes, host_memory, mode, random, unique_name
from ._reexport import reexport
from .autograd import no_grad
from .backend import CPUPlace, CUDAPlace, is_compiled_with_cuda
from .errors import EOFException
from .mode import (disable_imperative, disable_static, enable_imperative, enable_static,
                   in_dynamic_mode)
from .random import seed
from .tensor import Parameter, Tensor, to_tensor, to_variable
from . import indexing  # noqa: F401 - registers x[index] and x[index] = value with the operators
from . import layers, initializer, param_attr, regularizer, clip, lr, nn, optimizer
from . import static, serialization, io, core
from ._lazy import lazy_attributes
from .io import load, save
from .static.lod import create_lod_tensor
from . import metric, tensor_functions
from .nn import Layer, Linear

__all__ = ["CPUPlace", "CUDAPlace", "DataParallel", "EOFException", "Parameter", "Tensor",
           "backend", "clip", "contrib", "core", "dataset", "distributed", "disable_imperative",
           "disable_static", "dtypes", "dygraph", "enable_imperative", "enable_static",
           "imperative", "in_dynamic_mode", "initializer", "io", "is_compiled_with_cuda",
           "layers", "lr", "mode", "nn", "no_grad", "ops", "optimizer", "param_attr", "random",
           "reader", "regularizer", "seed", "serialization", "static", "to_tensor",
           "to_variable", "unique_name", "save", "load", "metric", "Layer", "Linear",
           "create_lod_tensor"]
# Top-level names: the static API (Program, Executor, ...), ParamAttr, batch, and the 2.0
# tensor functions (matmul, mean, reshape, concat, ...).
# ``core.onnx`` as ``paddle.onnx`` (without the optional ``onnx`` package until it is used)
_LAZY = {"onnx": (".onnx", None), "dataset": (".dataset", None),
         "distributed": (".distributed", None), "DataParallel": (".distributed", "DataParallel"),
         "dygraph": (".dygraph", None), "imperative": (".imperative", None),
         "contrib": (".contrib", None), "reader": (".reader", None), "batch": (".reader", "batch"),
         # fluid.save_dygraph / fluid.load_dygraph (fluid 1.8 exports them at the top)
         "layer_helper": (".layer_helper", None),
         "save_dygraph": (".dygraph", "save_dygraph"),
         "load_dygraph": (".dygraph", "load_dygraph")}
__all__ += reexport(globals(), [static, param_attr, tensor_functions], lazy=_LAZY)
__all__ += ["batch"]  # core.reader's names (a test checks the list)
__all__ += ["layer_helper", "load_dygraph", "save_dygraph"]
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)


host_memory.tune()  # glibc: keep freed heap memory for the next step (see core/host_memory.py)

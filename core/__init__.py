"""dy2static's tensor core: eager tensors with autograd, the op set, layers, optimizers,
static programs and their executor, save/load."""
import importlib

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
from . import static, serialization, io, reader, dataset, distributed, dygraph, imperative
from . import contrib, core
from .distributed import DataParallel
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
__all__ += reexport(globals(), [static, param_attr, reader, tensor_functions])



def __getattr__(name):
    """``core.onnx`` without an explicit ``import core.onnx`` (as ``paddle.onnx``): loaded on
    first use, so ``import core`` does not pay for the optional ``onnx`` package."""
    if name == "onnx":
        return importlib.import_module(".onnx", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


host_memory.tune()  # glibc: keep freed heap memory for the next step (see core/host_memory.py)

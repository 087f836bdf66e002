"""dy2static's tensor core: eager tensors with autograd, the op set, layers, optimizers,
static programs and their executor, save/load."""
from . import ops  # noqa: F401  (registers every op before anything uses the registry)
from .autograd import no_grad
from .backend import CPUPlace, CUDAPlace, is_compiled_with_cuda
from .mode import (disable_imperative, disable_static, enable_imperative, enable_static,
                   in_dynamic_mode)
from .random import seed
from .tensor import Parameter, Tensor, to_tensor, to_variable

__all__ = ["CPUPlace", "CUDAPlace", "Parameter", "Tensor", "disable_imperative",
           "disable_static", "enable_imperative", "enable_static", "in_dynamic_mode",
           "is_compiled_with_cuda", "no_grad", "seed", "to_tensor", "to_variable"]

"""``create_parameter(shape, dtype="float32", attr=None, is_bias=False,
default_initializer=None, prefix=None)``, where the layers find it: it is defined in
:mod:`core.parameter`, the one place parameters are created."""
from ..parameter import create_parameter

__all__ = ["create_parameter"]

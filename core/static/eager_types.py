"""The eager tensor classes as the static IR sees them.

The builder turns eager tensors met while a program is built into constants or program
Parameters, and the executor and scope accept them as values. The IR sits below the eager
side and never imports it: :mod:`core.tensor` registers its ``Tensor`` and ``Parameter``
classes here when it is imported (:func:`register_eager_types`). Until then nothing is an
eager tensor.
"""
__all__ = ["is_eager_parameter", "is_eager_tensor", "register_eager_types"]

_tensor_types = ()
_parameter_types = ()


def register_eager_types(tensor, parameter):
    """Register the eager ``tensor`` class and its ``parameter`` subclass."""
    global _tensor_types, _parameter_types
    _tensor_types, _parameter_types = (tensor,), (parameter,)


def is_eager_tensor(value):
    return isinstance(value, _tensor_types)


def is_eager_parameter(value):
    return isinstance(value, _parameter_types)

"""Error types that name what was wrong and where."""

__all__ = ["EOFException", "OpError", "StaticValueError", "describe_value"]


class OpError(RuntimeError):
    """An op failed: the message names the op, its inputs' shapes and dtypes, and the cause."""


class StaticValueError(TypeError):
    """The value of a static Variable was asked for while its program is built (its truth
    value, ``numpy()``, ``int()``, a length or iteration over an unknown dim): only the
    Executor knows it. The translator's fallback to eager execution recognises this type."""


class EOFException(Exception):
    """A non-iterable data loader has no batch left for this epoch: ``Executor.run`` raises it
    at the end of the data (fluid's ``fluid.core.EOFException``); call the loader's
    ``reset()`` and ``start()`` for the next epoch."""


def describe_value(value):
    """``float32[2, 3]`` for arrays/tensors/variables, ``repr`` for anything else."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe_value(v) for v in value) + "]"
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{getattr(dtype, 'name', dtype)}{list(shape)}"
    return repr(value)

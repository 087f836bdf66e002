"""Error types that name what was wrong and where."""

__all__ = ["OpError", "describe_value"]


class OpError(RuntimeError):
    """An op failed: the message names the op, its inputs' shapes and dtypes, and the cause."""


def describe_value(value):
    """``float32[2, 3]`` for arrays/tensors/variables, ``repr`` for anything else."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe_value(v) for v in value) + "]"
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{getattr(dtype, 'name', dtype)}{list(shape)}"
    return repr(value)

"""Error types that name what was wrong and where."""

__all__ = ["EOFException", "OpError", "StaticValueError", "describe_value", "op_error_of"]


class OpError(RuntimeError):
    """An op failed: the message names the op, its inputs' shapes and dtypes, and the cause."""


_op_error_types = {}
_COMBINED = (ValueError, LookupError, ArithmeticError, TypeError)  # Python's own kinds


def op_error_of(message, cause):
    """An :class:`OpError` saying ``message`` that is also an instance of ``cause``'s type
    where that is one of Python's value, lookup, arithmetic or type errors (an index out of
    range is an ``IndexError``, a bad shape a ``ValueError``, as the same code raises it
    eagerly and as PaddlePaddle maps its OutOfRange / InvalidArgument errors), so ``except
    IndexError`` catches a run-time failure of static code as it does eagerly."""
    kind = type(cause)
    if kind not in _op_error_types:
        combined = OpError
        if issubclass(kind, _COMBINED) and not issubclass(kind, (OpError, UnicodeError)):
            try:
                combined = type("OpError", (OpError, kind),
                                {"__module__": __name__, "__str__": BaseException.__str__})
            except TypeError:  # a layout that cannot be combined
                pass
        _op_error_types[kind] = combined
    return _op_error_types[kind](message)


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

"""Feed placeholders: ``static.data`` declares a variable the executor fills from ``feed``."""
import numpy as np

from ..dtypes import convert_dtype
from .program import default_main_program

__all__ = ["LENGTH_SUFFIX", "data", "dims_of"]

#: the lengths of a ``lod_level=1`` data variable ``x`` are the data variable ``x@LENGTH``
LENGTH_SUFFIX = "@LENGTH"


def dims_of(shape, what):
    """``shape`` (a list or tuple of ints, with None or -1 for an unknown dim) as a list of
    ints with -1 for unknown; errors name ``what`` (e.g. ``"data(): 'shape' of 'x'"``)."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{what} must be a list of ints (None or -1 for unknown dims), got "
                        f"{type(shape).__name__} {shape!r}")
    dims = []
    for d in shape:
        if d is None:
            dims.append(-1)
        elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= -1:
            dims.append(int(d))
        else:
            raise ValueError(f"{what} must hold dimensions (ints >= 0, -1 or None), got "
                             f"{list(shape)} ({d!r} is not)")
    return dims


def data(name, shape, dtype="float32", lod_level=0):
    """A feed variable ``name`` of the main program's global block. ``None`` or -1 marks an
    unknown dim; the executor checks every feed against this shape and dtype.

    ``lod_level=1`` declares a batch of variable-length sequences whose packed rows have
    ``shape`` (``[None, 1]`` for one id per step, as in the seeds): the variable is the padded
    batch ``[batch, time] + shape[1:]`` and a second data variable ``name@LENGTH`` (int64
    ``[batch]``) holds the lengths; the executor fills both from a fed LoD tensor
    (``core.create_lod_tensor``) or a ``(padded, lengths)`` pair."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"data(): 'name' must be a non-empty string, got {name!r}")
    dims = dims_of(shape, f"data(): 'shape' of '{name}'")
    if lod_level not in (0, 1):
        raise ValueError(f"data(): 'lod_level' of '{name}' must be 0 or 1 (one level of "
                         f"sequence lengths), got {lod_level!r}")
    block = default_main_program().global_block()
    if lod_level == 1:
        if not dims:
            raise ValueError(f"data(): 'shape' of '{name}' with lod_level=1 describes the "
                             f"packed rows, [None, ...], got []")
        dims = [-1, -1] + dims[1:]
        if name + LENGTH_SUFFIX not in block.vars:
            block.create_var(name=name + LENGTH_SUFFIX, shape=[-1], dtype=np.dtype(np.int64),
                             is_data=True, stop_gradient=True)
    old = block.vars.get(name)
    if old is not None and not old.is_data:
        raise ValueError(f"data(): '{name}' already names a non-data variable of the program")
    if old is not None:
        old.shape, old.dtype = dims, convert_dtype(dtype)
        return old
    return block.create_var(name=name, shape=dims, dtype=convert_dtype(dtype), is_data=True,
                            stop_gradient=True)

"""Python lists that a static loop carries become tensor arrays.

A static ``while_loop`` cannot carry a Python list, so ``convert_while_loop`` turns a list
loop variable into a tensor array (:func:`list_to_array`); the list helpers the ``list``
pass emits then act on whichever they get, decided at run time: ``append`` is an
``array_write`` at the end of a tensor array or Python's ``list.append``; ``pop`` and
indexing (``l[-1]``, ``l[i]``, also after the loop) read with ``array_read``, a negative
index counting from the end as in Python. ``core.layers.stack`` / ``concat`` take a tensor
array as they take a list.

An empty list's element dtype is not known until something is appended; it is guessed
(float32) and an append of another dtype raises :class:`ArrayDtypeChanged`, on which the
loop is traced again with the right dtype.
"""
from .convert_state import dtype_name, is_static, layers, to_variable

__all__ = [
    "ArrayDtypeChanged",
    "convert_list_append",
    "convert_list_getitem",
    "convert_list_pop",
    "convert_list_setitem",
    "is_array",
    "is_guessed",
    "list_to_array",
    "mark_guessed",
]

_guessed_arrays = set()  # ids of arrays made from empty lists with a guessed dtype


class ArrayDtypeChanged(Exception):
    """An append to ``array`` (made from an empty list, its dtype guessed) needs ``dtype``."""

    def __init__(self, array, dtype):
        super().__init__(dtype)
        self.array, self.dtype = array, dtype


def is_array(x):
    """True for a static tensor array Variable."""
    return "ARRAY" in str(getattr(x, "type", "")).upper()


def is_guessed(array):
    """True when ``array``'s element dtype is a guess (it came from an empty list)."""
    return id(array) in _guessed_arrays


def mark_guessed(array):
    """Record that ``array`` (e.g. a loop parameter standing for a guessed array) is one."""
    _guessed_arrays.add(id(array))


def list_to_array(values, dtype=None):
    """A tensor array holding ``values`` (the static loop form of a Python list); an empty
    list's element dtype is ``dtype``, else float32 until an append says otherwise."""
    lay = layers()
    if values:
        dtype = dtype_name(to_variable(values[0]))
    array = lay.create_array(dtype or "float32")
    if not values and dtype is None:
        mark_guessed(array)
    for k, v in enumerate(values):
        lay.array_write(to_variable(v), to_variable(k), array=array)
    return array


def convert_list_append(target, value):
    """``target.append(value)``; on a tensor array, ``array_write`` at its end."""
    if is_array(target):
        lay = layers()
        var = to_variable(value)
        if is_guessed(target) and dtype_name(var) != dtype_name(target):
            raise ArrayDtypeChanged(target, dtype_name(var))
        lay.array_write(var, lay.array_length(target), array=target)
        return target
    target.append(value)
    return target


def convert_list_pop(target, *index):
    """``target.pop(*index)`` -> ``(target, item)``. On a tensor array: ``item`` is
    ``array_read`` of item ``index`` (default -1, negative counted from the end) and ``target``
    is a new array without it (copied by a ``while_loop``: tensor arrays have no removal op)."""
    if not is_array(target):
        return target, target.pop(*index)
    lay = layers()
    i = _array_index(target, index[0] if index else -1)
    return _array_without(target, i), lay.array_read(target, i)


def _array_index(array, index):
    """``index`` into ``array`` as an int64 Variable, a negative one counted from the end."""
    lay = layers()
    length = lay.array_length(array)
    if is_static(index):
        index = lay.cast(index, "int64")
        return index + length * lay.cast(index < 0, "int64")
    return length + index if index < 0 else to_variable(index, length)


def _array_gather(array, count, source):
    """A new tensor array of ``count`` items (an int64 Variable): ``new[j] =
    array[source(j)]``, copied by a ``while_loop`` (tensor arrays have no removal or slicing
    op)."""
    lay = layers()
    fresh = lay.create_array(dtype_name(array))
    if is_guessed(array):
        mark_guessed(fresh)

    def cond(j, out):
        return j < count

    def body(j, out):
        return j + 1, lay.array_write(lay.array_read(array, source(j)), j, array=out)

    zero = lay.fill_constant(list(count.shape), "int64", 0)
    return lay.while_loop(cond, body, [zero, fresh])[1]


def _array_without(array, index):
    """A new tensor array holding ``array``'s items except item ``index`` (an int64 Variable
    in range), in order: ``new[j] = array[j + (j >= index)]``."""
    lay = layers()
    return _array_gather(array, lay.array_length(array) - 1,
                         lambda j: j + lay.cast(j >= index, "int64"))


def convert_list_getitem(target, index):
    """``target[index]``; on a tensor array, ``array_read`` of item ``index`` (negative:
    counted from the end, also when ``index`` is a static Variable), and for a slice a new
    tensor array of the items it selects, as slicing the list gives."""
    if not is_array(target):
        return target[index]
    if isinstance(index, slice):
        return _array_slice(target, index)
    lay = layers()
    if is_static(index):
        length = lay.cast(lay.array_length(target), dtype_name(index))
        negative = lay.cast(index < 0, dtype_name(index))
        index = index + length * negative
    elif index < 0:
        index = lay.array_length(target) + index
    return lay.array_read(target, to_variable(index))


def convert_list_setitem(target, index, value):
    """``target[index] = value`` on a tensor array (``core.indexing``: ``write_to_array`` at
    an item that must exist, negative counted from the end); an append of another dtype to
    an array whose dtype was guessed re-traces the loop (:class:`ArrayDtypeChanged`)."""
    var = to_variable(value)
    if is_guessed(target) and dtype_name(var) != dtype_name(target):
        raise ArrayDtypeChanged(target, dtype_name(var))
    target[index] = var
    return target


def _select(cond, a, b):
    """``a if cond else b`` for int64 Variables (or ints) and a bool Variable ``cond``."""
    lay = layers()
    return b + (a - b) * lay.cast(cond, "int64")


def _slice_bound(value, length, lower, upper, default):
    """A slice bound as ``slice.indices`` normalises it, an int64 Variable."""
    lay = layers()
    if value is None:
        return default
    if is_static(value):
        value = lay.cast(value, "int64")
        value = _select(value < 0, value + length, value)
    elif value < 0:
        value = length + value
    else:
        value = to_variable(value, length)
    value = _select(value < lower, lower, value)
    return _select(value > upper, upper, value)


def _array_slice(array, sl):
    """A new tensor array of ``array[sl.start:sl.stop:sl.step]`` (Python's slice semantics
    at run time: negative bounds count from the end, bounds clamp, a negative step walks
    back); the step must be a Python int."""
    lay = layers()
    step = 1 if sl.step is None else sl.step
    if is_static(step) or not isinstance(step, int):
        raise TypeError(f"a list filled in a loop whose condition is a Tensor takes a slice "
                        f"with a Python int step, got {step!r}")
    if step == 0:
        raise ValueError("slice step cannot be zero")
    length = lay.array_length(array)
    if step > 0:
        lower, upper = lay.fill_constant(list(length.shape), "int64", 0), length
    else:
        lower, upper = lay.fill_constant(list(length.shape), "int64", -1), length - 1
    start = _slice_bound(sl.start, length, lower, upper, upper if step < 0 else lower)
    stop = _slice_bound(sl.stop, length, lower, upper, lower if step < 0 else upper)
    span = stop - start + (step - 1) if step > 0 else start - stop + (-step - 1)
    return _array_gather(array, span // abs(step), lambda j: start + j * step)

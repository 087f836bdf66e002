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
    """``target.pop(*index)`` -> ``(target, item)``; a tensor array reads its last item."""
    if is_array(target):
        lay = layers()
        i = index[0] if index else lay.array_length(target) - 1
        return target, lay.array_read(target, to_variable(i))
    return target, target.pop(*index)


def convert_list_getitem(target, index):
    """``target[index]``; on a tensor array, ``array_read`` of item ``index`` (negative:
    counted from the end, also when ``index`` is a static Variable)."""
    if not is_array(target):
        return target[index]
    lay = layers()
    if is_static(index):
        length = lay.cast(lay.array_length(target), dtype_name(index))
        negative = lay.cast(index < 0, dtype_name(index))
        index = index + length * negative
    elif index < 0:
        index = lay.array_length(target) + index
    return lay.array_read(target, to_variable(index))

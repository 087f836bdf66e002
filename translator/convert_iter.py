"""Iterables of ``for`` loops: ``range``, ``enumerate`` and ``zip`` with static operands.

With only Python operands these return the builtins' own results. With a static bound or a
static Tensor among the iterables they return a :class:`StaticIter` -- a length (possibly a
static Variable) and an item function of a static index -- which ``convert_for_loop`` runs
as a ``while_loop`` over the index.
"""
import builtins
import functools
import operator

from .convert_state import is_static, layers, mark_weak, to_variable, where
from .tensor_list import is_array, list_to_array

__all__ = [
    "StaticIter",
    "as_static_iter",
    "convert_enumerate",
    "convert_range",
    "convert_zip",
    "is_static_iterable",
    "range_item",
]


class StaticIter:
    """A sequence with a (possibly static) length and an item function of a static index."""

    def __init__(self, length, item):
        self.length, self.item = length, item

    def __iter__(self):
        """Python iteration (a comprehension, which stays Python) over a known length."""
        if not isinstance(self.length, int):
            raise TypeError(f"iterating over a sequence whose length is a Tensor{where()} "
                            "outside a for statement (a comprehension, list() or unpacking) is "
                            "not supported; use a for loop")
        return (self.item(i) for i in builtins.range(self.length))


def range_item(start, step, i):
    """Item ``i`` of ``range(start, ..., step)``: a Python int eagerly, so a weak Variable
    (see ``convert_state.mark_weak``) even when ``start`` or ``step`` is a Tensor."""
    return mark_weak(start + i * step)


def is_static_iterable(value):
    """True when a ``for`` over ``value`` must become a ``while_loop``."""
    return isinstance(value, StaticIter) or is_static(value)


def as_static_iter(value):
    """``value`` (a StaticIter, static Tensor, tensor array, range or indexable) as a
    :class:`StaticIter`."""
    if isinstance(value, StaticIter):
        return value
    if is_array(value):  # a Python list a static loop carried: its items, not a Tensor's rows
        length = layers().reshape(layers().array_length(value), [])
        return StaticIter(length, functools.partial(layers().array_read, value))
    if is_static(value):
        n = value.shape[0]
        if n is None or n < 0:
            n = layers().shape(value)[0]
        return StaticIter(n, value.__getitem__)
    if isinstance(value, range):
        return StaticIter(len(value), functools.partial(range_item, value.start, value.step))
    if isinstance(value, (list, tuple)):  # zipped with a static iterable: index it statically
        if not all(is_static(v) or _is_tensor_or_number(v) for v in value):
            raise TypeError(f"a Python {type(value).__name__} zipped with a static Tensor in a "
                            f"loop{where()} must hold Tensors or numbers, got "
                            f"{[type(v).__name__ for v in value]}")
        if all(isinstance(v, (bool, int, float)) for v in value):
            # Python numbers stay weak (``int32_tensor * 4`` is int32 eagerly); an empty list's
            # items are never read, and stand for Python ints while the body is traced
            array = list_to_array(list(value), None if value else "int64")
            return StaticIter(len(value), lambda i: mark_weak(layers().array_read(array, i)))
        array = list_to_array(list(value))
        return StaticIter(len(value), functools.partial(layers().array_read, array))
    return StaticIter(len(value), value.__getitem__)


def _is_tensor_or_number(value):
    return isinstance(value, (bool, int, float)) or (hasattr(value, "shape") and
                                                     hasattr(value, "dtype"))


def convert_range(*args):
    """``range(...)``; with a static bound, a static iterable for ``convert_for_loop``."""
    if not any(is_static(a) for a in args):
        return builtins.range(*(operator.index(a) for a in args))
    for a in args:
        if is_static(a) and a.dtype.kind not in "iu":
            raise TypeError(f"range(){where()}: a {a.dtype.name} tensor cannot be used as an "
                            "index; cast it to int")  # what eager range() raises
        if not is_static(a):
            operator.index(a)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if isinstance(step, int) and step == 0:
        raise ValueError(f"range(){where()}: arg 3 must not be zero")  # as eager range()
    if isinstance(step, int) and step < 0:
        length = (start - stop - step - 1) // (-step)
    elif isinstance(step, int):
        length = (stop - start + step - 1) // step
    else:  # a Tensor step of either sign: ceil((stop - start) / step)
        length = 0 - (start - stop) // step
    length = layers().elementwise_max(to_variable(length), to_variable(0, length))
    return StaticIter(length, functools.partial(range_item, start, step))


def convert_enumerate(iterable, start=0):
    """``enumerate(iterable, start)``; a static iterable gives a static one."""
    if not is_static_iterable(iterable):
        return builtins.enumerate(iterable, start)
    it = as_static_iter(iterable)
    return StaticIter(it.length, lambda i: (i + start, it.item(i)))


def convert_zip(*iterables):
    """``zip(*iterables)``; any static iterable makes the result static (shortest length)."""
    if not any(is_static_iterable(i) for i in iterables):
        return builtins.zip(*iterables)
    its = [as_static_iter(i) for i in iterables]
    length = its[0].length
    for it in its[1:]:
        if isinstance(length, int) and isinstance(it.length, int):
            length = min(length, it.length)
        else:
            length = layers().elementwise_min(to_variable(length), to_variable(it.length))
    return StaticIter(length, lambda i: tuple(it.item(i) for it in its))

"""Nested values that cross a static ``cond`` / ``while_loop`` boundary, and undoing a trace.

A name a branch or loop body sets may hold a tuple (``return h, c``; ``state = (h, c)``), a
list or a dict of Tensors and Python values. The static helpers split such a value into
*leaves* (:func:`flatten`) that cross the op one by one and rebuild it after
(``core.static.structure.pack``, which also gives the trees' ``LEAF`` and ``describe``).
Which containers are split is the caller's choice: ``cond`` splits tuples, lists and dicts (a
list the branches leave untouched is passed through whole); ``while_loop`` splits tuples and
dicts only, because a Python list a loop carries becomes a tensor array (``tensor_list``).

A :class:`~translator.convert_state.PendingReturn` set on one path only is given, on the
other paths, a :func:`placeholder` built from the :func:`template` of the value set: the same
structure, zeros for Tensors (unknown dims as 1; ``cond`` / ``while_loop`` merge them to -1)
and the same Python values elsewhere -- never read, since the return flag guards it.

A failed trace is undone with ``Program.checkpoint()`` / ``rollback_to(point)``, so a
construct can be traced again with better initial values.
"""
from core.static import default_main_program, structure

from .convert_state import dtype_name, is_static, layers
from .tensor_list import is_array

__all__ = ["current_program", "flatten", "placeholder", "template"]


def flatten(value, kinds=structure.ALL):
    """``(leaves, tree)`` of ``value`` (:func:`core.static.structure.flatten`), splitting the
    containers of the types ``kinds`` and keeping each dict's own key order: a dict the user
    built comes back in that order, and two paths' dicts match only in the same order."""
    return structure.flatten(value, kinds, sort_keys=False)


class _VarMeta:
    __slots__ = ("shape", "dtype", "array")

    def __init__(self, var):
        self.shape = [d if d is not None and d >= 0 else 1 for d in (var.shape or ())]
        self.dtype = dtype_name(var)
        self.array = is_array(var)


class _ListMeta:
    """A Python list leaf (a loop turns it into a tensor array): its stand-in is a new empty
    list, never the list itself, whose items may be local to the block that made them."""


def template(value, kinds=structure.ALL):
    """What :func:`placeholder` needs to build a stand-in of ``value``'s structure."""
    leaves, tree = flatten(value, kinds)
    return tree, [_VarMeta(v) if is_static(v) else _ListMeta() if isinstance(v, list) else v
                  for v in leaves]


def placeholder(tmpl):
    """A stand-in built from :func:`template`: zeros for each static Tensor (an empty tensor
    array for an array), the same object for every other leaf."""
    tree, metas = tmpl
    lay, leaves = layers(), []
    for m in metas:
        if isinstance(m, _VarMeta):
            m = lay.create_array(m.dtype) if m.array else lay.fill_constant(m.shape, m.dtype, 0)
        elif isinstance(m, _ListMeta):
            m = []
        leaves.append(m)
    return structure.pack(tree, leaves)


def current_program():
    return default_main_program()

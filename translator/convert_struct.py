"""Nested values that cross a static ``cond`` / ``while_loop`` boundary, and undoing a trace.

A name a branch or loop body sets may hold a tuple (``return h, c``; ``state = (h, c)``), a
list or a dict of Tensors and Python values. The static helpers split such a value into
*leaves* (:func:`flatten`) that cross the op one by one and rebuild it after
(:func:`pack`). Which containers are split is the caller's choice: ``cond`` splits tuples,
lists and dicts (a list the branches leave untouched is passed through whole); ``while_loop``
splits tuples and dicts only, because a Python list a loop carries becomes a tensor array
(``tensor_list``).

A :class:`~translator.convert_state.PendingReturn` set on one path only is given, on the
other paths, a :func:`placeholder` built from the :func:`template` of the value set: the same
structure, zeros for Tensors (unknown dims as 1; ``cond`` / ``while_loop`` merge them to -1)
and the same Python values elsewhere -- never read, since the return flag guards it.

:func:`mark` / :func:`rollback` remove what a failed trace added to the Program, so a
construct can be traced again with better initial values.
"""
from .convert_state import dtype_name, is_static, layers

__all__ = ["describe", "flatten", "mark", "pack", "placeholder", "rollback", "template"]

LEAF = None
ALL = (tuple, list, dict)


def flatten(value, kinds=ALL):
    """``(leaves, tree)`` of ``value``, splitting the containers of the types ``kinds``."""
    leaves = []

    def visit(v):
        if isinstance(v, dict) and dict in kinds:
            keys = list(v)
            return (dict, keys, [visit(v[k]) for k in keys])
        if isinstance(v, (tuple, list)) and isinstance(v, kinds):
            return (type(v), None, [visit(x) for x in v])
        leaves.append(v)
        return LEAF

    return leaves, visit(value)


def pack(tree, leaves):
    """The value of structure ``tree`` with its leaves taken in order from ``leaves``."""
    it = iter(leaves)

    def build(t):
        if t is LEAF:
            return next(it)
        kind, keys, children = t
        items = [build(c) for c in children]
        if kind is dict:
            return dict(zip(keys, items))
        if hasattr(kind, "_fields"):  # a namedtuple
            return kind(*items)
        return kind(items)

    return build(tree)


def describe(tree):
    """A short description of a structure for messages (``'a tuple of 2'``)."""
    if tree is LEAF:
        return "a single value"
    if tree[0] is dict:
        return f"a dict with keys {tree[1]}"
    return f"a {tree[0].__name__} of {len(tree[2])}"


class _VarMeta:
    __slots__ = ("shape", "dtype", "array")

    def __init__(self, var):
        from .tensor_list import is_array

        self.shape = [d if d is not None and d >= 0 else 1 for d in (var.shape or ())]
        self.dtype = dtype_name(var)
        self.array = is_array(var)


def template(value, kinds=ALL):
    """What :func:`placeholder` needs to build a stand-in of ``value``'s structure."""
    leaves, tree = flatten(value, kinds)
    return tree, [_VarMeta(v) if is_static(v) else v for v in leaves]


def placeholder(tmpl):
    """A stand-in built from :func:`template`: zeros for each static Tensor (an empty tensor
    array for an array), the same object for every other leaf."""
    tree, metas = tmpl
    lay, leaves = layers(), []
    for m in metas:
        if isinstance(m, _VarMeta):
            m = lay.create_array(m.dtype) if m.array else lay.fill_constant(m.shape, m.dtype, 0)
        leaves.append(m)
    return pack(tree, leaves)


def current_program():
    from core.static.program import default_main_program

    return default_main_program()


def mark(program, block):
    """A point to :func:`rollback` ``program`` / ``block`` to."""
    return len(program.blocks), len(block.ops), set(block.vars)


def rollback(program, block, point):
    """Remove the blocks, ops and variables added to ``program`` / ``block`` since ``point``."""
    n_blocks, n_ops, names = point
    del program.blocks[n_blocks:]
    del block.ops[n_ops:]
    for name in [n for n in block.vars if n not in names]:
        del block.vars[name]
    program._bump()

"""Nested structures (lists, tuples, dicts) of values: flatten, pack, compare.

Used by ``cond`` / ``while_loop`` to match what the branches or the body return. A tree is a
description of the structure with ``None`` marking each leaf position; leaves are counted in
depth-first order (dict entries in key-sorted order).
"""

__all__ = ["StructureMismatch", "assert_same", "describe", "flatten", "pack", "path_of"]

_LEAF = None


class StructureMismatch(ValueError):
    """Two structures differ; the message says where."""


def flatten(value):
    """``(leaves, tree)`` for a nested list/tuple/dict ``value``."""
    leaves = []

    def visit(v):
        if isinstance(v, (list, tuple)):
            return (type(v), [visit(x) for x in v])
        if isinstance(v, dict):
            keys = sorted(v)
            return (dict, keys, [visit(v[k]) for k in keys])
        leaves.append(v)
        return _LEAF

    return leaves, visit(value)


def pack(tree, leaves):
    """The structure ``tree`` with its leaves taken in order from ``leaves``."""
    it = iter(leaves)

    def build(t):
        if t is _LEAF:
            return next(it)
        if t[0] is dict:
            return {k: build(s) for k, s in zip(t[1], t[2])}
        items = [build(s) for s in t[1]]
        return tuple(items) if t[0] is tuple else items

    return build(tree)


def _kind(t):
    if t is _LEAF:
        return "a single value"
    if t[0] is dict:
        return f"a dict with keys {t[1]}"
    return f"a {t[0].__name__} of {len(t[1])}"


def assert_same(a, b, path="output"):
    """Raise :class:`StructureMismatch` naming the first position where ``a`` and ``b``
    differ (lists and tuples count as the same kind)."""
    if a is _LEAF or b is _LEAF:
        if a is not b:
            raise StructureMismatch(f"{path} is {_kind(a)} in the first and {_kind(b)} in the "
                                    "second")
        return
    if (a[0] is dict) != (b[0] is dict):
        raise StructureMismatch(f"{path} is {_kind(a)} in the first and {_kind(b)} in the second")
    if a[0] is dict:
        if a[1] != b[1]:
            raise StructureMismatch(f"{path} has keys {a[1]} in the first and {b[1]} in the "
                                    "second")
        for k, x, y in zip(a[1], a[2], b[2]):
            assert_same(x, y, f"{path}[{k!r}]")
        return
    if len(a[1]) != len(b[1]):
        raise StructureMismatch(f"{path} is {_kind(a)} in the first and {_kind(b)} in the second")
    for i, (x, y) in enumerate(zip(a[1], b[1])):
        assert_same(x, y, f"{path}[{i}]")


def path_of(tree, k):
    """A readable position (``output[1][0]``) of leaf number ``k`` of ``tree``."""
    counter = [0]

    def find(t, path):
        if t is _LEAF:
            if counter[0] == k:
                return path
            counter[0] += 1
            return None
        keys = t[1] if t[0] is dict else range(len(t[1]))
        subs = t[2] if t[0] is dict else t[1]
        for key, s in zip(keys, subs):
            got = find(s, f"{path}[{key!r}]")
            if got is not None:
                return got
        return None

    return find(tree, "output") or f"output #{k}"


def describe(value):
    _, tree = flatten(value)
    return _kind(tree)

"""Nested structures (tuples, lists, dicts) of values: flatten, pack, compare.

Used by ``cond`` / ``while_loop`` to match what the branches or the body return, and by the
translator's runtime (``translator/control_flow/``) to split a value that crosses a static
``cond`` / ``while_loop`` into leaves. A tree describes a structure: :data:`LEAF` marks each leaf
position, a container is ``(type, keys, children)`` (``keys`` the dict keys in leaf order,
None for a tuple or list). Leaves are counted depth first.

Which containers are split is the caller's choice (``kinds``); namedtuples and other tuple or
list subclasses are packed back as their own type. Dict entries are taken in key-sorted order
by default, so two dicts with the same keys match whatever order they were filled in; with
``sort_keys=False`` they keep the dict's own order (and match only in the same order).
"""

__all__ = ["ALL", "LEAF", "StructureMismatch", "assert_same", "describe", "flatten", "pack",
           "path_of"]

LEAF = None
ALL = (tuple, list, dict)


class StructureMismatch(ValueError):
    """Two structures differ; the message says where."""


def flatten(value, kinds=ALL, sort_keys=True):
    """``(leaves, tree)`` of ``value``, splitting the containers of the types ``kinds``."""
    leaves = []

    def visit(v):
        if isinstance(v, dict) and dict in kinds:
            keys = sorted(v) if sort_keys else list(v)
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


def assert_same(a, b, path="output"):
    """Raise :class:`StructureMismatch` naming the first position where trees ``a`` and ``b``
    differ (lists and tuples count as the same kind)."""
    mismatch = f"{path} is {describe(a)} in the first and {describe(b)} in the second"
    if a is LEAF or b is LEAF:
        if a is not b:
            raise StructureMismatch(mismatch)
        return
    if (a[0] is dict) != (b[0] is dict):
        raise StructureMismatch(mismatch)
    if a[0] is dict and a[1] != b[1]:
        raise StructureMismatch(f"{path} has keys {a[1]} in the first and {b[1]} in the second")
    if len(a[2]) != len(b[2]):
        raise StructureMismatch(mismatch)
    for key, x, y in zip(_keys(a), a[2], b[2]):
        assert_same(x, y, f"{path}[{key!r}]")


def _keys(tree):
    return tree[1] if tree[0] is dict else range(len(tree[2]))


def path_of(tree, k):
    """A readable position (``output[1][0]``) of leaf number ``k`` of ``tree``."""
    counter = [0]

    def find(t, path):
        if t is LEAF:
            if counter[0] == k:
                return path
            counter[0] += 1
            return None
        for key, s in zip(_keys(t), t[2]):
            got = find(s, f"{path}[{key!r}]")
            if got is not None:
                return got
        return None

    return find(tree, "output") or f"output #{k}"

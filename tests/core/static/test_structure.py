"""core/static/structure.py: flatten / pack / assert_same, shared by core's cond / while_loop
(dicts by sorted key) and the translator's runtime (dicts in their own order)."""
import collections

import pytest

from core.static import structure as st

Pair = collections.namedtuple("Pair", "h c")


def test_flatten_pack_round_trip_keeps_containers():
    value = {"b": Pair(1, [2, 3]), "a": (4, {"z": 5})}
    leaves, tree = st.flatten(value)
    assert leaves == [4, 5, 1, 2, 3]  # dict entries by sorted key
    back = st.pack(tree, leaves)
    assert back == value
    assert isinstance(back["b"], Pair) and isinstance(back["b"].c, list)
    assert list(back) == ["a", "b"]


def test_sort_keys_false_keeps_the_dicts_order():
    value = {"b": 1, "a": 2}
    leaves, tree = st.flatten(value, sort_keys=False)
    assert leaves == [1, 2]
    assert list(st.pack(tree, leaves)) == ["b", "a"]
    assert st.flatten({"a": 2, "b": 1}, sort_keys=False)[1] != tree
    assert st.flatten({"a": 2, "b": 1})[1] == st.flatten(value)[1]


def test_kinds_selects_the_containers_split():
    value = (1, [2, 3], {"k": 4})
    leaves, tree = st.flatten(value, (tuple, dict))
    assert leaves == [1, [2, 3], 4]
    assert st.pack(tree, leaves) == value
    assert st.flatten(value, (list,)) == ([value], st.LEAF)


def test_assert_same_names_the_first_difference():
    def tree(v):
        return st.flatten(v)[1]

    st.assert_same(tree([1, (2, 3)]), tree((1, [2, 3])))  # lists and tuples match
    st.assert_same(tree({"b": 1, "a": 2}), tree({"a": 3, "b": 4}))
    with pytest.raises(st.StructureMismatch, match=r"output\[1\] is a tuple of 2 in the first "
                                                   r"and a single value in the second"):
        st.assert_same(tree([1, (2, 3)]), tree([1, 2]))
    with pytest.raises(st.StructureMismatch, match=r"output has keys \['a'\] in the first and "
                                                   r"\['a', 'b'\] in the second"):
        st.assert_same(tree({"a": 1}), tree({"a": 1, "b": 2}))


def test_path_of_and_describe():
    _, tree = st.flatten([1, {"x": (2, 3)}])
    assert st.path_of(tree, 2) == "output[1]['x'][1]"
    assert st.describe(tree) == "a list of 2"
    assert st.describe(st.LEAF) == "a single value"

"""``translator.visitor``: NodeVisitor / NodeTransformer keep the contract of ``ast``'s (checked
against gast's own classes on the same trees), and ``child_statements``."""
import sys
import textwrap

import gast
import pytest

from translator.visitor import NodeTransformer, NodeVisitor, child_statements


def parse(src):
    return gast.parse(textwrap.dedent(src))


SOURCE = """
def f(a, b=1):
    x = a + b * 2
    if x > 3:
        del x
        return [a, b]
    for i in range(a):
        print(i, 'text')
    return None
"""


class NameCollector(NodeVisitor):
    def __init__(self):
        self.seen = []

    def visit_Name(self, node):
        self.seen.append((node.id, type(node.ctx).__name__))


class GastNameCollector(gast.NodeVisitor):
    visit_Name = NameCollector.visit_Name

    def __init__(self):
        self.seen = []


def test_visitor_dispatches_in_field_order_like_ast():
    tree = parse(SOURCE)
    ours, theirs = NameCollector(), GastNameCollector()
    ours.visit(tree)
    theirs.visit(tree)
    assert ours.seen == theirs.seen
    assert ours.seen[:5] == [("a", "Param"), ("b", "Param"), ("x", "Store"), ("a", "Load"),
                             ("b", "Load")]


def test_visitor_returns_the_method_result_and_none_for_leaves():
    class Ids(NodeVisitor):
        def visit_Name(self, node):
            return node.id

    expr = parse("y").body[0].value
    assert Ids().visit(expr) == "y"
    assert Ids().visit(gast.Load()) is None


def test_leaves_are_not_entered_without_a_method():
    class Recorder(NodeVisitor):
        def __init__(self):
            self.kinds = []

        def generic_visit(self, node):
            self.kinds.append(type(node).__name__)
            super().generic_visit(node)

    rec = Recorder()
    rec.visit(parse("x = 1 + y"))
    assert rec.kinds == ["Module", "Assign", "Name", "BinOp", "Name"]


def test_a_visit_constant_method_is_called():
    class Constants(NodeVisitor):
        def __init__(self):
            self.values = []

        def visit_Constant(self, node):
            self.values.append(node.value)

    c = Constants()
    c.visit(parse("f(1, 'a', None, x=2.5)"))
    assert c.values == [1, "a", None, 2.5]


def test_each_visitor_class_has_its_own_method_table():
    class Upper(NodeVisitor):
        def __init__(self):
            self.out = []

        def visit_Name(self, node):
            self.out.append(node.id.upper())

    class Lower(Upper):
        def visit_Name(self, node):
            self.out.append(node.id.lower())

    tree = parse("Ab + cD")
    for cls, expected in [(Upper, ["AB", "CD"]), (Lower, ["ab", "cd"]), (Upper, ["AB", "CD"])]:
        v = cls()
        v.visit(tree)
        assert v.out == expected


class Rewrite:
    """One set of rewrites for both transformer classes: a list result is spliced, None
    removes (or deletes a single field), a node replaces."""

    def visit_Delete(self, node):
        return None

    def visit_Expr(self, node):
        self.generic_visit(node)
        return [node, gast.Pass()]

    def visit_Name(self, node):
        if node.id == "b" and isinstance(node.ctx, gast.Load):
            return gast.Constant(value=7, kind=None)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Constant) and node.value.value is None:
            node.value = gast.Name(id="gone", ctx=gast.Load(), annotation=None,
                                   type_comment=None)
        return node


class OurRewrite(Rewrite, NodeTransformer):
    pass


class GastRewrite(Rewrite, gast.NodeTransformer):
    pass


def test_transformer_matches_ast_semantics():
    ours, theirs = parse(SOURCE), parse(SOURCE)
    assert OurRewrite().visit(ours) is ours
    GastRewrite().visit(theirs)
    assert gast.dump(ours) == gast.dump(theirs)
    code = gast.unparse(ours)
    assert "del x" not in code
    assert "x = a + 7 * 2" in code
    assert "return [a, 7]" in code
    assert "print(i, 'text')\n        pass" in code


def test_transformer_none_for_a_single_field_deletes_it():
    class DropReturnValue(NodeTransformer):
        def visit_Name(self, node):
            return None

    ret = parse("def g():\n    return y").body[0].body[0]
    DropReturnValue().visit(ret)
    assert not hasattr(ret, "value")


def test_transformer_leaves_nodes_without_a_method_unchanged():
    tree = parse("x = 1")
    assert gast.dump(NodeTransformer().visit(tree)) == gast.dump(parse("x = 1"))


@pytest.mark.parametrize("src, expected", [
    ("if a:\n    b = 1\nelse:\n    c = 2", ["b = 1", "c = 2"]),
    ("for i in r:\n    x = i\nelse:\n    y = 0", ["x = i", "y = 0"]),
    ("while t:\n    break", ["break"]),
    ("try:\n    a = 1\nexcept E:\n    b = 2\nexcept F:\n    c = 3\nelse:\n    d = 4\n"
     "finally:\n    e = 5", ["a = 1", "d = 4", "e = 5", "b = 2", "c = 3"]),
    ("with m:\n    z = 1", ["z = 1"]),
    ("def g():\n    return 1", ["return 1"]),
    ("x = [y for y in z]", []),
])
def test_child_statements(src, expected):
    node = parse(src).body[0]
    assert [gast.unparse(s).strip() for s in child_statements(node)] == expected


@pytest.mark.skipif(sys.version_info < (3, 10), reason="match statements parse from 3.10")
def test_child_statements_of_match_cases():
    node = parse("match v:\n    case 1:\n        a = 1\n    case _:\n        b = 2").body[0]
    assert [gast.unparse(s).strip() for s in child_statements(node)] == ["a = 1", "b = 2"]

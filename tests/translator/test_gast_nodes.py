"""``translator.gast_nodes`` (hand-built nodes, annotations, ``clone``) and
``translator.templates`` (placeholder filling): the nodes built compile and mean what they
say, and each replacement kind lands where the module doc says."""
import ast

import gast
import pytest

from translator import gast_nodes as gn
from translator.templates import replace, replace_as_expression


def run(stmts, env=None):
    """Compile and execute statements built as gast nodes; returns the namespace."""
    tree = gast.gast_to_ast(gast.Module(body=stmts, type_ignores=[]))
    for node in ast.walk(tree):  # generated nodes may carry no (or a None) location
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if getattr(node, attr, 0) is None:
                delattr(node, attr)
    namespace = dict(env or {})
    exec(compile(ast.fix_missing_locations(tree), "<built>", "exec"), namespace)
    return namespace


def evaluate(expr, env=None):
    return run([gast.Assign(targets=[gn.name("result", gast.Store())], value=expr,
                            type_comment=None)], env)["result"]


# -- builders -------------------------------------------------------------------------------

def test_name_and_constant():
    assert gast.dump(gn.name("x")) == gast.dump(gast.parse("x").body[0].value)
    assert isinstance(gn.name("x", gast.Store()).ctx, gast.Store)
    assert evaluate(gn.name("x"), {"x": 41}) == 41
    assert [evaluate(gn.constant(v)) for v in (3, "s", None, 2.5)] == [3, "s", None, 2.5]


def test_tuples():
    assert evaluate(gn.names_tuple(["a", "b"]), {"a": 1, "b": 2}) == (1, 2)
    assert evaluate(gn.names_tuple([])) == ()
    assert evaluate(gn.strings_tuple(["a", "b"])) == ("a", "b")
    target = gn.names_tuple(["p", "q"], gast.Store())
    assert all(isinstance(e.ctx, gast.Store) for e in target.elts + [target])
    assert target.elts[0].ctx is not target.elts[1].ctx  # one context node per name
    ns = run([gast.Assign(targets=[target], value=gn.names_tuple(["b", "a"]),
                          type_comment=None)], {"a": 1, "b": 2})
    assert (ns["p"], ns["q"]) == (2, 1)


def test_attribute():
    class Holder:
        value = 9
    assert evaluate(gn.attribute("h", "value"), {"h": Holder}) == 9


def test_function_def_and_arguments():
    body = [gast.Return(value=gast.BinOp(left=gn.name("a"), op=gast.Sub(), right=gn.name("b")))]
    fn = gn.function_def("minus", ["a", "b"], body)
    assert [p.id for p in fn.args.args] == ["a", "b"]
    assert all(isinstance(p.ctx, gast.Param) for p in fn.args.args)
    assert fn.decorator_list == []
    assert run([fn])["minus"](5, 3) == 2
    assert run([gn.function_def("nothing", [], [gast.Return(value=None)])])["nothing"]() is None


# -- annotations ----------------------------------------------------------------------------

def test_annotations_get_set_copy():
    a, b = gn.name("a"), gn.name("b")
    assert gn.get_anno(a, "origin") is None
    assert gn.get_anno(a, "origin", 7) == 7
    gn.set_anno(a, "origin", 3)
    gn.set_anno(a, "extra_test", gn.name("t"))
    gn.set_anno(b, "origin", 1)
    gn.copy_anno(a, b)
    assert gn.get_anno(b, "origin") == 3
    assert gn.get_anno(b, "extra_test") is gn.get_anno(a, "extra_test")
    assert gn.get_anno(gn.name("c"), "origin") is None  # no annotation leaks between nodes


def test_clone_is_deep_and_keeps_locations_and_annotations():
    tree = gast.parse("if x:\n    y = [1, z]\n")
    stmt = tree.body[0]
    gn.set_anno(stmt, "extra_test", gn.name("flag"))
    gn.set_anno(stmt, "origin", 1)
    copy = gn.clone(stmt)
    assert gast.dump(copy) == gast.dump(stmt)
    assert (copy.lineno, copy.body[0].lineno, copy.body[0].col_offset) == (1, 2, 4)
    assert gn.get_anno(copy, "origin") == 1
    assert gast.dump(gn.get_anno(copy, "extra_test")) == gast.dump(gn.name("flag"))
    assert gn.get_anno(copy, "extra_test") is not gn.get_anno(stmt, "extra_test")
    copy.body[0].value.elts.append(gn.constant(3))
    copy.test.id = "w"
    assert gast.unparse(stmt).strip() == "if x:\n    y = [1, z]"
    assert gn.clone([stmt, stmt])[0] is not stmt
    assert gn.clone("id") == "id" and gn.clone(None) is None


# -- templates ------------------------------------------------------------------------------

def code(stmts):
    return gast.unparse(gast.Module(body=stmts, type_ignores=[])).strip()


def test_str_replaces_names_keeping_their_context():
    stmts = replace("target = helper(value)\ndel target", target="x", helper="h", value="v")
    assert code(stmts) == "x = h(v)\ndel x"
    assert isinstance(stmts[0].targets[0].ctx, gast.Store)
    assert isinstance(stmts[1].targets[0].ctx, gast.Del)


def test_a_node_is_copied_with_the_placeholder_context():
    value = gast.parse("a.b[0]").body[0].value
    stmts = replace("target = 1\nuse(target)", target=value)
    assert code(stmts) == "a.b[0] = 1\nuse(a.b[0])"
    assert isinstance(stmts[0].targets[0].ctx, gast.Store)
    assert isinstance(stmts[1].value.args[0].ctx, gast.Load)
    assert isinstance(value.ctx, gast.Load)  # the given node is not changed
    tuple_target = replace("out = 1", out=gn.names_tuple(["p", "q"]))[0].targets[0]
    assert all(isinstance(e.ctx, gast.Store) for e in tuple_target.elts)


def test_lists_splice_statements_elements_arguments_and_parameters():
    body = [gast.parse("a = 1").body[0], gast.parse("b = 2").body[0]]
    stmts = replace("def fn(params):\n    nonlocal names\n    body\n    return (names,)\n"
                    "fn(args)",
                    fn="branch", params=["p", "q"], names=["a", "b"], body=body,
                    args=[gn.name("u"), gast.parse("v + 1").body[0].value])
    assert code(stmts) == ("def branch(p, q):\n    nonlocal a, b\n    a = 1\n    b = 2\n"
                           "    return (a, b)\nbranch(u, v + 1)")
    assert stmts[0].body[1] is body[0]  # statements are moved, not copied


def test_second_use_of_a_statement_list_is_a_copy():
    body = [gast.parse("a = 1").body[0]]
    stmts = replace("if t:\n    body\nelse:\n    body", body=body)
    assert code(stmts) == "if t:\n    a = 1\nelse:\n    a = 1"
    assert stmts[0].body[0] is body[0] and stmts[0].orelse[0] is not body[0]


def test_empty_nonlocal_is_dropped():
    stmts = replace("def fn():\n    nonlocal names\n    return 0", fn="g", names=[])
    assert code(stmts) == "def g():\n    return 0"


def test_placed_code_is_not_searched_for_placeholders():
    stmts = replace("value = 1\nbody", value="x", body=[gast.parse("value = 2").body[0]])
    assert code(stmts) == "x = 1\nvalue = 2"


def test_origin_gives_generated_nodes_its_line():
    origin = gast.parse("\n\nz = 0").body[0]
    placed = gast.parse("q = 5").body[0]
    stmts = replace("out = 1\nbody", origin=origin, out="y", body=[placed])
    assert stmts[0].lineno == 3 and stmts[0].value.lineno == 3
    assert stmts[1].lineno == 1  # placed code keeps its own location
    assert replace("out = 1", out="y")[0].lineno is None


def test_replace_as_expression():
    expr = replace_as_expression("fn(a, b)", fn="g", a=gn.constant(1), b="c")
    assert gast.unparse(expr).strip() == "g(1, c)"
    assert evaluate(expr, {"g": lambda x, y: x + y, "c": 2}) == 3
    with pytest.raises(ValueError, match="not a single expression"):
        replace_as_expression("x = 1")


def test_bad_replacements_are_errors():
    with pytest.raises(ValueError, match="placeholder 'value'"):
        replace("x = value + 1", value=["a"])
    with pytest.raises(TypeError, match="must be a str or a gast node"):
        replace("x = value", value=3)


def test_parse_builds_the_tree_gast_builds():
    # gast_nodes.parse converts ast.parse's tree in one walk; it must equal gast.parse's,
    # locations included, on real code: this package's sources and this test file
    import glob
    import os

    import gast

    from translator.gast_nodes import parse

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = sorted(glob.glob(os.path.join(root, "translator", "**", "*.py"), recursive=True))
    files.append(os.path.abspath(__file__))
    source = ("def f(a, /, b: int = 1, *c, d, e=2, **g) -> None:\n"
              "    try:\n        pass\n    except E as err:\n        del err\n"
              "    try:\n        pass\n    except* F:\n        pass\n"
              "    async def h():\n        async with a as (b, c):\n            await b\n"
              "    x = [i async for i in c] if a else {**g}\n"
              "    match a:\n        case [1, *rest] | {'k': _} if rest:\n            pass\n"
              "        case Point(x=0) as p:\n            pass\n"
              "    return f'{a!r:>{b}}', lambda *q, **r: q, (yield), a[1:2, ::3], ...\n")
    texts = [source]
    for f in files:
        with open(f, encoding="utf-8") as fh:
            texts.append(fh.read())
    for text in texts:
        want = gast.dump(gast.parse(text), include_attributes=True)
        assert gast.dump(parse(text), include_attributes=True) == want

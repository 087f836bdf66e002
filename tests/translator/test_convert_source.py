"""Reading a function's source (``convert._fast_source``): the same tree as
``inspect.getsource`` gives, or None (then ``inspect`` decides) -- never a wrong block."""
import ast
import importlib.util
import inspect
import textwrap

import gast
import pytest

from translator import convert as c

_MODULE = '''
import functools


def deco(*a, **k):
    return lambda f: f


@deco(
    1,
2)
def multi_line_decorator(x):
    return x


def lower_continuation(a,
b=2):
    y = (a +
b)
    return y


def string_at_column_zero(x):
    s = """
def fake():
    pass
"""
    return s


def one_liner(x): return x + 1
def after_one_liner(x):
    return x


def comments(x):
    y = x
# a column-0 comment inside
    return y
# a trailing comment
    # an indented trailing comment


class K:
    def method(self, x):
        if x:
            return 1
        return 2

    @staticmethod
    def static(x):
        return x


def outer():
    def inner(x):
        return x * 2
    return inner


def backslash(x):
    y = 1 + \\
2
    return y


def tabs(x):
\ty = x
\treturn y


@functools.wraps(one_liner)
def wrapped(x):
    return x


def at_end(x):
    return x'''


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("src") / "d2s_source_cases.py"
    path.write_text(textwrap.dedent(_MODULE).lstrip())
    spec = importlib.util.spec_from_file_location("d2s_source_cases", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("name", [
    "multi_line_decorator", "lower_continuation", "string_at_column_zero", "one_liner",
    "after_one_liner", "comments", "K.method", "K.static", "inner", "backslash", "tabs",
    "wrapped", "at_end", "outer"])
def test_same_tree_as_inspect(module, name):
    if name == "inner":
        func = module.outer()
    else:
        func = module
        for part in name.split("."):
            func = getattr(func, part)
    expected, expected_shift = c._parse_def(inspect.getsource(func))
    got = c._fast_source(func)
    if got is not None:
        dump = lambda t: ast.dump(gast.gast_to_ast(t), include_attributes=True)  # noqa: E731
        assert [dump(n) for n in got[0]] == [dump(n) for n in expected]
        assert got[1] == expected_shift
    # whichever way the source is read, conversion sees the same function, the same as Python
    fn_node, ctx = c._parse(func)
    assert fn_node.name == expected[0].name == func.__name__
    if not hasattr(func, "__wrapped__"):  # (inspect shows the wrapped function's source)
        lines, first = inspect.getsourcelines(func)
        def_line = first + next(k for k, line in enumerate(lines) if line.lstrip().startswith(
            ("def ", "async def ")))
        assert fn_node.lineno + ctx.line_offset == def_line


def test_plain_functions_take_the_fast_path(module):
    for func in (module.multi_line_decorator, module.comments, module.K.method, module.at_end):
        assert c._fast_source(func) is not None
    assert c._fast_source(module.wrapped) is None  # inspect follows __wrapped__


class _WithText:
    def method(self, x):
        text = """first
        second
	tabbed"""
        if x > 0:
            x = x + 1
        return x, text


def test_a_method_string_spanning_lines_keeps_its_text():
    # an indented def is parsed as it stands (under an ``if 1:`` line), not dedented: the
    # lines after a string's first keep their indentation
    converted = c.convert_to_static(_WithText().method)
    assert converted(1) == _WithText().method(1)
    assert converted(-1)[1] == "first\n        second\n\ttabbed"

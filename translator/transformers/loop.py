"""``while`` and ``for`` loops.

``while test: body`` becomes::

    def __loop_cond_0():
        return <test>
    def __loop_body_0():
        nonlocal <names>
        <body>
    _d2s.convert_while_loop(__loop_cond_0, __loop_body_0, <loop_vars>)

and ``for target in iterable: body`` becomes::

    def __loop_body_0(__item_0):
        nonlocal <names>
        target = __item_0
        <body>
    _d2s.convert_for_loop(<iterable>, <extra test function or None>, __loop_body_0,
                          <loop_vars>)

``names`` are the names the loop may modify (sorted); ``loop_vars`` are those among them live at
the loop head or after the loop -- the variables a ``while_loop`` op carries. Temporaries of
the body are not carried. An ``extra_test`` annotation (from ``break_continue``/``return_``)
becomes a test function checked before each iteration of a ``for``. ``targets`` (None, or
``_d2s.Targets(...)``) are the attributes and constant-key items the body assigns, carried
like loop variables. A loop's ``else`` clause
runs after it (``break`` is gone by now, so it always runs). Modified names that no earlier
statement binds start as ``UndefinedVar``.
"""
from .. import static_analysis as sa
from ..gast_nodes import constant, get_anno, strings_tuple
from ..templates import replace
from .scope import ScopeTracker, hoist_undefined_inits, store_targets, undefined_inits, \
    written_globals

__all__ = ["transform"]

_WHILE = """
def cond_name():
    return test
def body_name():
    nonlocal names
    global global_names
    body
helpers.convert_while_loop(cond_name, body_name, loop_vars, targets)
"""
_FOR = """
def body_name(item):
    nonlocal names
    global global_names
    target = item
    body
helpers.convert_for_loop(iterable, test_name, body_name, loop_vars, targets)
"""
_TEST = """
def test_name():
    return test
"""


class _Loop(ScopeTracker):
    def _state(self, node, modified, stmts):
        """``(names, globals, loop_vars)``: the local names the loop may modify, the global
        names ``stmts`` (its body and target) rebind, and the names it carries."""
        modified = modified - self.ctx.generated_functions
        names = sorted(modified - self.globals)
        carried = sa.live_in(node) | sa.live_out(node) | self.outside
        extra = get_anno(node, "extra_test")
        if extra is not None:  # read before every iteration, though not part of the tree
            carried |= sa.reads(extra)
        loop_vars = [n for n in names if n in carried]
        return names, written_globals(self.ctx, stmts, self.globals), loop_vars

    def visit_While(self, node):
        self.generic_visit(node)
        names, globals_, loop_vars = self._state(node, sa.writes(node.body), node.body)
        out = undefined_inits(self.ctx, node, names)
        targets = store_targets(self.ctx, node, node.body, globals_) or constant(None)
        out += replace(_WHILE, origin=node, helpers=self.ctx.helpers, test=node.test,
                       cond_name=self.ctx.new_function_name("loop_cond"),
                       body_name=self.ctx.new_function_name("loop_body"), names=names,
                       global_names=globals_, body=node.body, loop_vars=strings_tuple(loop_vars),
                       targets=targets)
        return out + node.orelse

    def visit_For(self, node):
        self.generic_visit(node)
        names, globals_, loop_vars = self._state(
            node, sa.writes(node.body) | sa.writes(node.target), node.body + [node.target])
        out = undefined_inits(self.ctx, node, names)
        extra = get_anno(node, "extra_test")
        test_name = "None"
        if extra is not None:
            test_name = self.ctx.new_function_name("loop_test")
            out += replace(_TEST, origin=node, test_name=test_name, test=extra)
        targets = store_targets(self.ctx, node, node.body, globals_) or constant(None)
        out += replace(_FOR, origin=node, helpers=self.ctx.helpers, iterable=node.iter,
                       body_name=self.ctx.new_function_name("loop_body"),
                       item=self.ctx.new_name("item"), names=names, global_names=globals_,
                       target=node.target, body=node.body, test_name=test_name,
                       loop_vars=strings_tuple(loop_vars), targets=targets)
        return out + node.orelse


def transform(node, ctx):
    sa.analyze(node)
    return hoist_undefined_inits(_Loop(ctx).visit(node), ctx)

"""``if``/``elif``/``else`` statements and conditional expressions.

An ``if`` becomes two nested functions and a runtime call::

    def __true_fn_0():
        nonlocal x, y
        <body>
    def __false_fn_0():
        nonlocal x, y
        <orelse>
    _d2s.convert_ifelse(<test>, __true_fn_0, __false_fn_0, ('x', 'y'), ('y',))

``names`` are the names either branch may modify (``static_analysis.writes``), in sorted
order; the last tuple holds those live after the ``if`` (the outputs of a ``cond`` op when the
test is a static Tensor). Attributes and constant-key items the branches assign
(``self.x = ...``, ``self.d["k"] = ...``) are passed as a last ``_d2s.Targets(...)``
argument, carried like live names. A modified name that no earlier statement binds is first set to
``_d2s.UndefinedVar('name')``, which errors clearly if it is used without being assigned.
Names the function declares ``global`` are re-declared ``global`` instead. ``elif`` chains are
nested ``if`` statements in gast, converted inside out. ``a if c else b`` becomes
``_d2s.convert_ifexp(c, lambda: a, lambda: b)``.
"""
from .. import static_analysis as sa
from ..gast_nodes import set_anno, strings_tuple
from ..templates import replace, replace_as_expression
from .scope import ScopeTracker, hoist_undefined_inits, store_targets, undefined_inits, \
    written_globals

__all__ = ["transform"]

_BRANCH = """
def fn_name():
    nonlocal names
    global global_names
    body
"""
_CALL = "helpers.convert_ifelse(test, true_fn, false_fn, names, live)"
_CALL_TARGETS = "helpers.convert_ifelse(test, true_fn, false_fn, names, live, targets)"


class _IfElse(ScopeTracker):
    def visit_If(self, node):
        self.generic_visit(node)
        modified = sa.writes(node.body + node.orelse) - self.ctx.generated_functions
        names = sorted(modified - self.globals)
        globals_ = written_globals(self.ctx, node.body + node.orelse, self.globals)
        live = [n for n in names if n in sa.live_out(node) or n in self.outside]
        true_name, false_name = (self.ctx.new_function_name("true_fn"),
                                  self.ctx.new_function_name("false_fn"))
        out = undefined_inits(self.ctx, node, names)
        for fn_name, body in ((true_name, node.body), (false_name, node.orelse)):
            branch = replace(_BRANCH, origin=node, fn_name=fn_name, names=names,
                             global_names=globals_, body=body or replace("return"))
            # what is live after the if is live when a branch function returns (a loop in
            # the branch must carry those names out)
            set_anno(branch[0], "live_at_exit", frozenset(live))
            out += branch
        targets = store_targets(self.ctx, node, node.body + node.orelse, globals_)
        out += replace(_CALL if targets is None else _CALL_TARGETS, origin=node,
                       helpers=self.ctx.helpers, test=node.test, true_fn=true_name,
                       false_fn=false_name, names=strings_tuple(names),
                       live=strings_tuple(live), targets=targets)
        return out

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return replace_as_expression(
            "helpers.convert_ifexp(test, lambda: body, lambda: orelse)", origin=node,
            helpers=self.ctx.helpers, test=node.test, body=node.body, orelse=node.orelse)


def transform(node, ctx):
    sa.analyze(node)
    return hoist_undefined_inits(_IfElse(ctx).visit(node), ctx)

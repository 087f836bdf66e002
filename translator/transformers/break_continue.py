"""``break`` and ``continue`` -> flags.

In a loop whose body holds ``break``/``continue`` (not counting nested loops, which are
rewritten first)::

    __break_0 = False
    while not __break_0 and test:      # for loops: annotation extra_test = not __break_0
        __continue_0 = False
        ...
        __break_0 = True               # was: break
        ...                            # later statements run under
                                       # if not (__break_0 or __continue_0):

A loop ``else`` clause runs only when the loop did not break: it becomes
``if not __break_0: <else body>`` after the loop. The flags are ordinary variables, so a
Tensor condition that sets them turns the loop into a ``while_loop`` carrying them.
"""
import gast

from ..gast_nodes import get_anno, set_anno
from ..templates import replace, replace_as_expression
from ..visitor import NodeTransformer, child_statements

__all__ = ["transform"]

_LOOPS = (gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef) + _LOOPS


def _jumps_in(stmts):
    """Which of ``break``/``continue`` occur in ``stmts`` for the enclosing loop."""
    found, todo = set(), list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Break):
            found.add("break")
        elif isinstance(node, gast.Continue):
            found.add("continue")
        elif not isinstance(node, _SCOPES):
            todo.extend(child_statements(node))
    return found


class _Rewriter:
    def __init__(self, ctx, node, kinds):
        self.brk = ctx.new_name("break") if "break" in kinds else None
        self.cont = ctx.new_name("continue") if "continue" in kinds else None
        flags = [f for f in (self.brk, self.cont) if f]
        self.guard = replace_as_expression(
            "not flag" if len(flags) == 1 else "not (a or b)", origin=node,
            flag=flags[0], a=flags[0], b=flags[-1])

    def block(self, stmts):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, (gast.Break, gast.Continue)):
                flag = self.brk if isinstance(s, gast.Break) else self.cont
                return out + replace("flag = True", origin=s, flag=flag)
            if not _jumps_in([s]):
                out.append(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                if getattr(s, field, None):
                    setattr(s, field, self.block(getattr(s, field)))
            for handler in getattr(s, "handlers", []) or []:
                handler.body = self.block(handler.body)
            out.append(s)
            rest = stmts[k + 1:]
            if rest:
                out += replace("if guard:\n    rest", origin=s, guard=self.guard,
                               rest=self.block(rest))
            return out
        return out


class _BreakContinue(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def _loop(self, node):
        self.generic_visit(node)
        kinds = _jumps_in(node.body)
        if not kinds:
            return node
        r = _Rewriter(self.ctx, node, kinds)
        body = r.block(node.body)
        if r.cont:
            body = replace("flag = False", origin=node, flag=r.cont) + body
        node.body = body
        if not r.brk:
            return node
        not_broken = replace_as_expression("not flag", origin=node, flag=r.brk)
        if isinstance(node, gast.While):
            node.test = replace_as_expression("not_broken and test", origin=node,
                                              not_broken=not_broken, test=node.test)
        else:
            extra = get_anno(node, "extra_test")
            set_anno(node, "extra_test", not_broken if extra is None else replace_as_expression(
                "extra and not_broken", origin=node, extra=extra, not_broken=not_broken))
        after = []
        if node.orelse:
            after = replace("if not flag:\n    orelse", origin=node, flag=r.brk,
                            orelse=node.orelse)
            node.orelse = []
        return replace("flag = False", origin=node, flag=r.brk) + [node] + after

    visit_While = visit_For = _loop


def needed(ctx):
    """``break`` / ``continue`` in the source, or a ``return`` that ``return_`` may have turned
    into a ``break`` of a loop."""
    kinds = ctx.kinds
    return gast.Break in kinds or gast.Continue in kinds or (
        gast.Return in kinds and (gast.For in kinds or gast.While in kinds))

def transform(node, ctx):
    return _BreakContinue(ctx).visit(node)


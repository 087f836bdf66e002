"""``return`` anywhere -> one return at the end of the function.

For a function whose returns are not all a single final statement::

    __do_return_0 = False
    __return_value_0 = None
    ...                       # 'return v'  ->  __return_value_0 = v; __do_return_0 = True
    return __return_value_0

and the statements after a construct that may have returned run under
``if not __do_return_0:``. Two refinements keep Tensor conditions workable:

* when every path of one branch of an ``if`` returns, the statements after the ``if`` move into
  the other branch (so both branches of a ``cond`` assign the return value);
* inside a loop, ``return`` also ``break``-s, and ``break_continue`` (which runs next) turns
  that into the loop's exit condition; a loop nested in a loop is followed by
  ``if __do_return_0: break`` when a ``return`` inside it must leave the outer loop too.

The return value starts as ``None`` -- what Python returns from a path without ``return`` --
unless every path of the function ends in a ``return`` (or a ``raise``, or a ``while True`` loop
it only leaves by returning): then it starts as ``_d2s.PendingReturn(name)``, which static
``cond`` / ``while_loop`` ops may replace with a placeholder on the paths that have not returned
yet (``control_flow.carry.placeholder``). Nested functions are rewritten as their own scopes.
"""
import gast

from ..gast_nodes import constant
from ..templates import replace
from ..visitor import NodeTransformer, child_statements

__all__ = ["transform"]

_LOOPS = (gast.For, gast.While)
_HEAD_NONE = "flag = False\nvalue = None"
_HEAD_PENDING = "flag = False\nvalue = helpers.PendingReturn(label)"
_SCOPES = (gast.FunctionDef, gast.Lambda, gast.ClassDef)


def _returns_in(stmts):
    """Whether ``stmts`` hold a ``return`` of this scope."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Return):
            return True
        if not isinstance(node, _SCOPES):
            todo.extend(child_statements(node))
    return False


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, gast.While):  # 'while True:' without 'break' ends only by returning
        test = last.test
        return isinstance(test, gast.Constant) and bool(test.value) and \
            not _breaks(last.body)
    return False


def _breaks(stmts):
    """Whether ``stmts`` hold a ``break`` of the loop they are the body of."""
    todo = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, gast.Break):
            return True
        if not isinstance(node, _SCOPES + _LOOPS):
            todo.extend(child_statements(node))
    return False


def _loop_returns(stmt):
    """Whether ``stmt`` holds a loop (``stmt`` itself included) with a ``return`` inside."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, _LOOPS) and _returns_in(node.body):
            return True
        if not isinstance(node, _SCOPES):
            todo.extend(child_statements(node))
    return False


class _Rewriter:
    def __init__(self, ctx):
        self.ctx = ctx
        self.value = ctx.new_name("return_value")
        self.flag = ctx.new_name("do_return")

    def block(self, stmts, in_loop):
        out = []
        for k, s in enumerate(stmts):
            rest = stmts[k + 1:]
            if isinstance(s, gast.Return):
                out += replace("value = result\nflag = True", origin=s, value=self.value,
                               flag=self.flag, result=s.value or constant(None))
                if in_loop:
                    out += replace("break", origin=s)
                return out
            if not _returns_in([s]):
                out.append(s)
                continue
            if isinstance(s, gast.If) and rest and _always_returns(s.body):
                s.orelse = s.orelse + rest
                rest = []
            elif isinstance(s, gast.If) and rest and _always_returns(s.orelse):
                s.body = s.body + rest
                rest = []
            leaves_loop = in_loop and _loop_returns(s)
            self.children(s, in_loop)
            out.append(s)
            if leaves_loop:  # the inner loop's break left only that loop
                out += replace("if flag:\n    break", origin=s, flag=self.flag)
            if rest:
                out += replace("if not flag:\n    rest", origin=s, flag=self.flag,
                               rest=self.block(rest, in_loop))
            return out
        return out

    def children(self, s, in_loop):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(s, field, None)
            if stmts:
                inner = True if isinstance(s, _LOOPS) and field == "body" else in_loop
                setattr(s, field, self.block(stmts, inner))
        for handler in getattr(s, "handlers", []) or []:
            handler.body = self.block(handler.body, in_loop)


class _Return(NodeTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        body = node.body
        if not _returns_in(body[:-1]) and not (
                body and not isinstance(body[-1], gast.Return) and _returns_in(body[-1:])):
            return node
        rewriter = _Rewriter(self.ctx)
        head = replace(_HEAD_PENDING if _always_returns(body) else _HEAD_NONE, origin=node,
                       flag=rewriter.flag, value=rewriter.value, helpers=self.ctx.helpers,
                       label=constant(rewriter.value))
        new_body = rewriter.block(body, in_loop=False)
        node.body = head + new_body + replace(
            "return value", origin=body[-1], value=rewriter.value)
        return node


def transform(node, ctx):
    return _Return(ctx).visit(node)

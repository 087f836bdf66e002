"""Calls: ``f(a, b=c)`` -> ``_d2s.convert_call(f)(a, b=c)``.

At run time ``convert_call`` returns the converted ``f`` for user functions, methods and
Layers (converted recursively, cached) and ``f`` itself for builtins, library code and
``not_to_static`` functions; the builtins ``range``/``enumerate``/``zip``/``len``/``print``/
``int``/``float``/``bool`` map to their static-aware helpers by identity, so a name that
shadows one holds the user's object and calls it. Calls to the helpers themselves
(``_d2s.*``, and ``_d2s.convert_call(f)(...)`` made by earlier passes) are left alone.

Three calls have their own helper: ``x.item()`` -> ``_d2s.convert_item(x)`` (a static
Variable's value as a 0-d Variable standing for the Python number; anything else's own
``item()``), ``x.numpy()`` used as an operand -> ``_d2s.convert_numpy(x)`` (a static
Variable stands for its array, as PaddlePaddle's translator drops ``.numpy()``: ``if
t.numpy()[0] > 5``, ``for v in t.numpy()``, ``for i, v in enumerate(t.numpy())``; anything
else's own ``numpy()``), and a zero-argument ``super()`` in a method ->
``_d2s.convert_super(super, lambda: __class__, self)``: ``super(__class__, self)`` when
``super`` is the builtin, because the converted function is not defined in the class body
(``__class__`` is the original method's closure cell, which the converted function shares);
the user's function when ``super`` names one.
"""
import gast

from ..templates import replace_as_expression
from ..visitor import NodeTransformer

__all__ = ["transform"]


def _numpy_operands(fn_node):
    """The ``x.numpy()`` calls that are operands of an operator, subscript or condition, or what
    a ``for`` (or the ``enumerate`` it calls) iterates over (where a static Variable means what
    the array means eagerly). Elsewhere -- a value assigned or
    passed to a function, likely numpy's -- ``numpy()`` stays a call: on a static Variable
    it raises, and the declarative function falls back to eager execution (or fails, with
    ``full_graph``)."""
    found = set()
    for node in gast.walk(fn_node):
        if isinstance(node, gast.Compare):
            operands = [node.left] + node.comparators
        elif isinstance(node, gast.BinOp):
            operands = [node.left, node.right]
        elif isinstance(node, gast.BoolOp):
            operands = node.values
        elif isinstance(node, gast.Subscript):
            operands = [node.value]
        elif isinstance(node, gast.UnaryOp):
            operands = [node.operand]
        elif isinstance(node, (gast.If, gast.While, gast.IfExp, gast.Assert)):
            operands = [node.test]
        elif isinstance(node, gast.For):
            # ``for x in t.numpy()`` / ``for i, x in enumerate(t.numpy(), 1)``: the rows of the
            # array are the rows of the Variable, a loop over a Tensor
            operands = [node.iter]
            if isinstance(node.iter, gast.Call) and isinstance(node.iter.func, gast.Name) and \
                    node.iter.func.id == "enumerate" and node.iter.args:
                operands.append(node.iter.args[0])
        else:
            continue
        found.update(id(op) for op in operands if _is_numpy_call(op))
    return found


def _is_numpy_call(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
        node.func.attr == "numpy" and not node.args and not node.keywords


class _Call(NodeTransformer):
    def __init__(self, ctx, fn_node):
        self.ctx = ctx
        # NOTE: the walk only where the source has a ``.numpy`` attribute at all
        attributes = getattr(ctx, "attributes", None)
        self.numpy_operands = _numpy_operands(fn_node) if attributes is None or \
            "numpy" in attributes else set()
        args = fn_node.args.posonlyargs + fn_node.args.args
        self.first_param = args[0].id if args else None

    def _is_helper(self, func):
        return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
            func.value.id == self.ctx.helpers

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if self._is_helper(func) or (isinstance(func, gast.Call) and self._is_helper(func.func)):
            return node  # a helper, or a helper's result (``_d2s.convert_call(print)(...)``)
        if isinstance(func, gast.Name) and func.id == "super" and not node.args and \
                not node.keywords and self.first_param is not None:
            return replace_as_expression("helpers.convert_super(super, lambda: __class__, first)",
                                         origin=node, helpers=self.ctx.helpers,
                                         first=self.first_param)
        if isinstance(func, gast.Attribute) and func.attr == "item" and not node.args and \
                not node.keywords:
            return replace_as_expression("helpers.convert_item(obj)", origin=node,
                                         helpers=self.ctx.helpers, obj=func.value)
        if id(node) in self.numpy_operands:
            return replace_as_expression("helpers.convert_numpy(obj)", origin=node,
                                         helpers=self.ctx.helpers, obj=func.value)
        node.func = replace_as_expression("helpers.convert_call(func)", origin=node,
                                          helpers=self.ctx.helpers, func=func)
        return node


def transform(node, ctx):
    return _Call(ctx, node).visit(node)

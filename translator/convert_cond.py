"""Runtime helpers for branches: ``if`` statements, conditional expressions, ``and`` / ``or``
/ ``not`` and chained comparisons.

Each decides from the actual condition: a static Variable builds a ``cond`` op (or
``logical_not``); anything else runs plain Python with exactly Python's semantics
(short-circuit included: operands are thunks). Branch bodies are generated functions that
rebind the enclosing function's ``names`` (see :func:`convert_state.closure_state`).
"""
import operator

from .convert_state import closure_state, dtype_name, is_static, kind, layers, to_variable, where

__all__ = [
    "convert_compare",
    "convert_ifelse",
    "convert_ifexp",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
]


# -- if / else ------------------------------------------------------------------------------------
def convert_ifelse(pred, true_fn, false_fn, names=(), live=()):
    """``if pred: true_fn() else: false_fn()``; a static ``pred`` builds a ``cond`` op whose
    outputs are the ``live`` names among the modified ``names``."""
    if is_static(pred):
        get_args, set_args = closure_state(true_fn, names)
        _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live)
    elif pred:
        true_fn()
    else:
        false_fn()


def convert_ifexp(pred, true_fn, false_fn):
    """``true_fn() if pred else false_fn()``; a static ``pred`` builds a ``cond`` op."""
    if is_static(pred):
        return _static_ifexp(pred, true_fn, false_fn)
    return true_fn() if pred else false_fn()


def _branch_error(name, sides, values, where_):
    if name.startswith("__return_value"):
        return TypeError(
            f"under a Tensor condition{where_} the function returns {kind(values[0])} on one "
            f"path and {kind(values[1])} on another; in a static program every path must "
            "return Tensors of the same structure")
    return TypeError(
        f"variable '{name}' is {kind(values[0])} after the {sides[0]} branch but "
        f"{kind(values[1])} after the {sides[1]} branch of an if whose condition is a "
        f"Tensor{where_}; in a static program both branches must give it a Tensor (or leave "
        "it unchanged) -- assign it before the if or in both branches")


def _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live):
    init = tuple(get_args())
    where_ = where()
    out_idx = [k for k, n in enumerate(names) if n in live]
    runs = []  # (side, values) in the order cond runs the branches
    passthrough = {}  # index -> Python value identical on both sides (kept out of the cond)

    def branch(fn, side):
        def run():
            set_args(init)
            fn()
            values = tuple(get_args())
            first = runs[0] if runs else None
            runs.append((side, values))
            outs = []
            for k in out_idx:
                value = values[k]
                if first is None:
                    var = to_variable(value, init[k])
                    if var is None:
                        passthrough[k] = value
                        continue
                    outs.append(var)
                    continue
                other = first[1][k]
                if k in passthrough:
                    if value is not other:
                        raise _branch_error(names[k], (first[0], side), (other, value), where_)
                    continue
                var = to_variable(value, other if hasattr(other, "dtype") else init[k])
                if var is None:
                    raise _branch_error(names[k], (first[0], side), (other, value), where_)
                outs.append(var)
            return tuple(outs)
        return run

    outs = layers().cond(pred, branch(true_fn, "true"), branch(false_fn, "false"))
    outs = list(outs) if isinstance(outs, (list, tuple)) else ([] if outs is None else [outs])
    final, j = list(init), 0
    for k in out_idx:
        if k in passthrough:
            final[k] = passthrough[k]
        else:
            final[k] = outs[j]
            j += 1
    set_args(tuple(final))


def _static_ifexp(pred, true_fn, false_fn):
    first = []

    def branch(fn):
        def run():
            value = fn()
            var = to_variable(value, first[0] if first else None)
            if var is None:
                raise TypeError(f"a conditional expression with a Tensor condition{where()} "
                                f"must give Tensors or numbers on both sides, got {kind(value)}")
            first.append(var)
            return var
        return run

    return layers().cond(pred, branch(true_fn), branch(false_fn))


# -- logical operators and comparisons -----------------------------------------------------------
def convert_logical_and(x_fn, y_fn):
    """``x and y`` with Python's value and short-circuit; a static ``x`` builds a ``cond`` so
    ``y``'s ops run only when ``x`` is true."""
    x = x_fn()
    if is_static(x):
        return _static_logical(x, y_fn, x_is_result_when=False)
    return x if not x else y_fn()


def convert_logical_or(x_fn, y_fn):
    """``x or y`` with Python's value and short-circuit (see :func:`convert_logical_and`)."""
    x = x_fn()
    if is_static(x):
        return _static_logical(x, y_fn, x_is_result_when=True)
    return x if x else y_fn()


def _static_logical(x, y_fn, x_is_result_when):
    lay = layers()
    pred = x if dtype_name(x) == "bool" else lay.cast(x, "bool")
    holder = []

    def take_y():
        y = y_fn()
        var = to_variable(y, x)
        if var is None:
            raise TypeError(f"'and'/'or' with a Tensor on the left{where()} needs a Tensor or "
                            f"number on the right, got {kind(y)}")
        if dtype_name(var) != dtype_name(x):
            import numpy as np

            from core.dtypes import dtype_name as name_of

            common = name_of(np.result_type(x.dtype, var.dtype))
            holder.append(common)
            var = lay.cast(var, common) if dtype_name(var) != common else var
        if list(var.shape) != list(x.shape) and _numel(var.shape) == 1 == _numel(x.shape):
            var = lay.reshape(var, list(x.shape))
        return var

    def take_x():
        if holder and holder[0] != dtype_name(x):
            return lay.cast(x, holder[0])
        return lay.assign(x)

    if x_is_result_when:
        return lay.cond(pred, take_x, take_y)
    return lay.cond(pred, take_y, take_x)


def _numel(shape):
    n = 1
    for d in shape:
        n = n * d if d is not None and d >= 0 else -1
    return n


def convert_logical_not(x):
    """``not x``: ``logical_not`` for a static ``x`` (cast to bool first), else Python."""
    if is_static(x):
        lay = layers()
        return lay.logical_not(x if dtype_name(x) == "bool" else lay.cast(x, "bool"))
    return not x


_COMPARE = {"Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge,
            "Eq": operator.eq, "NotEq": operator.ne, "Is": operator.is_,
            "IsNot": operator.is_not, "In": lambda a, b: a in b,
            "NotIn": lambda a, b: a not in b}


def convert_compare(left_fn, *pairs):
    """A chained comparison ``a < b < c`` as ``(a < b) and (b < c)`` with each operand
    evaluated once and only when needed. ``pairs`` are ``(op_name, operand_fn)``."""
    left = left_fn()
    op, right_fn = pairs[0]
    right = right_fn()
    result = _COMPARE[op](left, right)
    if len(pairs) == 1:
        return result
    return convert_logical_and(lambda: result, lambda: convert_compare(lambda: right, *pairs[1:]))

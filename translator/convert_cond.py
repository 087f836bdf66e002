"""Runtime helpers for branches: ``if`` statements, conditional expressions, ``and`` / ``or``
/ ``not`` and chained comparisons.

Each decides from the actual condition: a static Variable builds a ``cond`` op (or
``logical_not``); anything else runs plain Python with exactly Python's semantics
(short-circuit included: operands are thunks). Branch bodies are generated functions that
rebind the enclosing function's ``names`` (see :func:`convert_state.closure_state`).

A name may hold a tuple, list or dict of Tensors and Python values; it crosses a ``cond`` leaf
by leaf (``convert_struct``) and both branches must give it the same structure. Each branch
appends to its own copy of a list, so ``l.append`` under a Tensor ``if`` adds one item. A
pending return value (``convert_state.PendingReturn``) set by one branch only gets a
placeholder in the other (traced again when the first-traced branch is the one left pending).
A name bound on one path only (or maybe-unbound before the ``if``) gets the same placeholder
plus a bound-flag output of the ``cond`` (``convert_state.check_bound``): reading it fails at
run time, and only on a path that left it unbound.

``x and y`` / ``x or y`` with a static ``x`` give the operand Python would return (``[0] and
999999`` is ``[0]``, not Paddle's 999999); as a ``cond`` output has one dtype, operands of
different dtypes give their common dtype (``bool_tensor and int_tensor`` is int64).
"""
import operator

import numpy as np

from core.dtypes import dtype_name as name_of
from core.static import structure

from . import convert_struct as struct
from .convert_state import (PathUnion, alternatives, assigned_where, bound_flag, closure_state,
                            dtype_name, is_union, selector_of,
                            is_maybe_unbound, is_pending, is_static, is_undefined, is_weak, kind,
                            layers, mark_maybe_unbound, mark_weak, to_variable, where,
                            with_targets)

__all__ = [
    "as_predicate",
    "convert_compare",
    "convert_ifelse",
    "convert_ifexp",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
]


# -- if / else ------------------------------------------------------------------------------------
def _truth(pred):
    """``pred``, or for a value that is one of several things (``x and None``) its truth."""
    return pred.truth if is_union(pred) and pred.truth is not None else pred


def convert_ifelse(pred, true_fn, false_fn, names=(), live=(), targets=None):
    """``if pred: true_fn() else: false_fn()``; a static ``pred`` builds a ``cond`` op whose
    outputs are the ``live`` names among the modified ``names``, and the attributes / items
    ``targets`` (a ``convert_state.Targets``) the branches assign."""
    pred = _truth(pred)
    if is_static(pred):
        get_args, set_args = closure_state(true_fn, names)
        get_args, set_args, names = with_targets(get_args, set_args, names, targets)
        live = tuple(live) + (targets.labels if targets is not None else ())
        _static_ifelse(as_predicate(pred), true_fn, false_fn, get_args, set_args, names, live)
    elif pred:
        true_fn()
    else:
        false_fn()


def as_predicate(pred):
    """Static ``pred`` as the one-element bool Variable a ``cond`` / ``while`` takes, with
    Python's truth value: a number is true when nonzero. A ``pred`` that may hold more than one
    element gets an ``Assert`` op, so the error comes when the statement runs, as eagerly
    (where ``bool()`` of such a tensor raises), not while the Program is built."""
    lay = layers()
    shape = list(pred.shape or ())
    if not all(d == 1 for d in shape):
        message = (f"bool() of a tensor needs exactly one element, got shape {shape}{where()}; "
                   "reduce it first (e.g. .sum() or .any())")
        if all(d is not None and d >= 0 for d in shape):
            ok = lay.fill_constant([], "bool", False)
        else:
            ok = lay.equal(lay.reduce_prod(lay.shape(pred)), lay.fill_constant([], "int32", 1))
        lay.Assert(ok, name=message)
        pred = lay.reshape(pred, [-1])[0]
    if dtype_name(pred) != "bool":
        pred = lay.cast(pred, "bool")
    return pred


def convert_ifexp(pred, true_fn, false_fn):
    """``true_fn() if pred else false_fn()``; a static ``pred`` builds a ``cond`` op."""
    pred = _truth(pred)
    if is_static(pred):
        return _static_ifexp(as_predicate(pred), true_fn, false_fn)
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


_OUT = object()  # marks a leaf that is an output of the cond op


class _NeedsUnion(Exception):
    """Return value ``index`` has other structures on the second path: ``tmpls``, one
    ``convert_struct.template`` per alternative it may hold there."""

    def __init__(self, index, tmpls):
        super().__init__(index)
        self.index, self.tmpls = index, tmpls


class _NeedsCast(Exception):
    """The first-traced branch's output leaf ``index`` must have ``dtype``."""

    def __init__(self, index, dtype):
        super().__init__(index)
        self.index, self.dtype = index, dtype


class _NeedsPlaceholder(Exception):
    """The branch traced first left return value ``index`` pending; the other set it."""

    def __init__(self, index, tmpl):
        super().__init__(index)
        self.index, self.tmpl = index, tmpl


def _same_python(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # values without a plain ==
        return False


def _copy(value):
    return type(value)(value) if type(value) in (list, dict) else value


def _same_items(copy, original):
    """Whether ``copy`` (of ``original``) was left as it was."""
    if copy is original:
        return True
    if isinstance(copy, dict):
        return list(copy) == list(original) and all(copy[k] is original[k] for k in copy)
    return len(copy) == len(original) and all(a is b for a, b in zip(copy, original))


def _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live, templates=None,
                   casts=None, unions=None):
    init = tuple(get_args())
    where_ = where()
    templates, casts, unions = dict(templates or {}), dict(casts or {}), dict(unions or {})
    union_parts = {}  # k -> [first side's alternatives, second side's]
    out_idx = [k for k, n in enumerate(names) if n in live]
    # names that may be left unbound: undefined (not a pending return) or maybe-unbound before
    flagged = [k for k in out_idx if (is_undefined(init[k]) and not is_pending(init[k])) or
               is_maybe_unbound(init[k])]
    runs = []  # (side, values) in the order cond runs the branches
    weak = []  # per side, whether each output stands for a Python number
    layout = {}  # index -> (tree, [True for a leaf that is a cond output, else its value])
    program = struct.current_program()
    point = program.checkpoint()

    def like_leaves(init_value, tree, n):
        leaves, init_tree = struct.flatten(init_value)
        if init_tree != tree:
            return [None] * n
        return [None if is_undefined(v) else v for v in leaves]

    def first_side(k, value, init_value):
        leaves, tree = struct.flatten(value)
        plan, outs = [], []
        for j, (leaf, like) in enumerate(zip(leaves, like_leaves(init_value, tree,
                                                                  len(leaves)))):
            var = to_variable(leaf, like)
            if var is not None and (k, j) in casts and dtype_name(var) != casts[k, j]:
                var = layers().cast(var, casts[k, j])
            plan.append(_OUT if var is not None else leaf)
            if var is not None:
                outs.append(var)
        layout[k] = (tree, plan, leaves, outs)
        return outs

    def common_dtype(k, j, first_var, var):
        """``var`` in the dtype both sides' leaf ``(k, j)`` promote to, as numpy promotes
        (int32 and int64 give int64); the first side must be traced again when it changes."""
        a, b = dtype_name(first_var), dtype_name(var)
        if a == b or "bool" in (a, b) or first_var.dtype.kind not in "iuf" or \
                var.dtype.kind not in "iuf":
            return var
        common = name_of(np.result_type(first_var.dtype, var.dtype))
        if common != a:
            raise _NeedsCast((k, j), common)
        return layers().cast(var, common)

    def second_side(k, value, sides, other):
        tree, plan, _, first_vars = layout[k]
        leaves, got = struct.flatten(value)
        def mismatch():
            if names[k].startswith("__return_value"):  # each path returns its own structure
                return _NeedsUnion(k, [struct.template(a) for a in alternatives(value)])
            return _branch_error(names[k], sides, (other, value), where_)

        if got != tree or is_union(value) or is_union(other):
            raise mismatch()
        outs, first_vars = [], iter(first_vars)
        for j, (leaf, spec) in enumerate(zip(leaves, plan)):
            if spec is not _OUT:
                if not _same_python(leaf, spec):
                    raise mismatch()
                continue
            first_var = next(first_vars)
            var = to_variable(leaf, first_var)
            if var is None:
                raise mismatch()
            var = common_dtype(k, j, first_var, var)
            outs.append(var)
        return outs

    def union_side(k, value, is_first):
        """Outputs of return value ``k`` whose paths return different structures: every
        alternative's static leaves (placeholders for the other side's), then the selector.
        A side that has not returned yet (undefined) adds no alternative and selects 0."""
        pending = is_undefined(value)
        mine = [] if pending else alternatives(value)
        if is_first:
            union_parts[k] = [mine, None]
            parts, offset = mine + [struct.placeholder(t) for t in unions[k]], 0
        else:
            if pending:
                mine = [struct.placeholder(t) for t in unions[k]]
            union_parts[k][1] = mine
            first_alts = union_parts[k][0]
            parts = [struct.placeholder(struct.template(a)) for a in first_alts] + mine
            offset = len(first_alts)
        outs = [leaf for part in parts for leaf in struct.flatten(part)[0] if is_static(leaf)]
        sel = None if pending else selector_of(value)
        if sel is None:
            sel = layers().fill_constant([], "int64", 0 if pending else offset)
        elif offset:
            sel = sel + offset
        return outs + [sel]

    def branch(fn, side):
        def run():
            copies = tuple(_copy(v) for v in init)  # each branch appends to its own list
            set_args(copies)
            fn()
            values = tuple(i if v is c and _same_items(c, i) else v
                           for v, c, i in zip(get_args(), copies, init))
            first = runs[0] if runs else None
            runs.append((side, values))
            outs = []
            for k in out_idx:
                value = values[k]
                if is_undefined(value) and k in templates:
                    value = struct.placeholder(templates[k])
                if k in unions:
                    outs += union_side(k, value, first is None)
                    continue
                if first is None:
                    if is_undefined(value):
                        layout[k] = None
                    elif value is init[k] and isinstance(value, (list, dict)):
                        layout[k] = (structure.LEAF, [value], [value], [])  # in place/unchanged
                    else:
                        outs += first_side(k, value, init[k])
                    continue
                other = first[1][k]
                if layout[k] is None:
                    if is_union(value):
                        raise _NeedsUnion(k, [struct.template(a) for a in alternatives(value)])
                    if not is_undefined(value):
                        raise _NeedsPlaceholder(k, struct.template(value))
                    continue
                if is_undefined(value):
                    if is_union(other):
                        raise _NeedsUnion(k, [])
                    value = struct.placeholder(struct.template(other))
                outs += second_side(k, value, (first[0], side), other)
            # a name that may be unbound after the if carries its bound flag out of the cond
            outs += [bound_flag(values[k]) for k in flagged]
            weak.append([is_weak(v) for v in outs])
            return tuple(outs)
        return run

    try:
        outs = layers().cond(pred, branch(true_fn, "true"), branch(false_fn, "false"))
    except _NeedsPlaceholder as e:
        # NOTE: re-trace (at most once per output): the branch traced first left a name
        # unbound (or a return pending) that the other one set; only now is its structure
        # known, and the first branch must produce a placeholder of it
        set_args(init)
        program.rollback_to(point)
        templates[e.index] = e.tmpl
        return _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions)
    except _NeedsUnion as e:
        # NOTE: re-trace (once per return value): the paths return different structures,
        # known only after both are traced; each must output every alternative
        set_args(init)
        program.rollback_to(point)
        unions[e.index] = e.tmpls
        return _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions)
    except _NeedsCast as e:
        # NOTE: re-trace (at most once per output): the first branch's output must be cast to
        # the dtype the second one's promotes it to
        set_args(init)
        program.rollback_to(point)
        casts[e.index] = e.dtype
        return _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions)
    outs = list(outs) if isinstance(outs, (list, tuple)) else ([] if outs is None else [outs])
    for out, t, f in zip(outs, *weak):
        mark_weak(out, t and f)  # a number on both paths stays a weak number
    flags = outs[len(outs) - len(flagged):]
    final, it = list(init), iter(outs)
    for k in out_idx:
        if k in unions:
            first_alts, second_alts = union_parts[k]
            alts = []
            for alt in list(first_alts) + list(second_alts):
                leaves, tree = struct.flatten(alt)
                alts.append(structure.pack(tree, [next(it) if is_static(v) else v
                                                  for v in leaves]))
            final[k] = PathUnion(next(it), alts)
            continue
        if layout[k] is None:
            continue  # pending on both sides
        tree, plan, _, _ = layout[k]
        final[k] = structure.pack(tree, [next(it) if spec is _OUT else spec for spec in plan])
    for k, flag in zip(flagged, flags):
        if layout[k] is not None:
            assigned = next((assigned_where(v[k]) for _, v in runs if not is_undefined(v[k])), "")
            mark_maybe_unbound(final[k], flag, names[k], assigned)
    set_args(tuple(final))


def _static_ifexp(pred, true_fn, false_fn):
    first = []

    def branch(fn):
        def run():
            leaves, tree = struct.flatten(fn())
            likes = first[0] if first and len(first[0]) == len(leaves) else [None] * len(leaves)
            out = []
            for leaf, like in zip(leaves, likes):
                var = to_variable(leaf, like if hasattr(like, "dtype") else None)
                if var is None and (leaf is None or is_undefined(leaf)):
                    raise TypeError(f"a conditional expression with a Tensor condition{where()} "
                                    "must give Tensors or numbers (or structures of them) on "
                                    f"both sides, got {kind(leaf)}")
                out.append(leaf if var is None else var)
            first.append(out)
            return structure.pack(tree, out)
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
    holder = [None, False]  # the common dtype, whether y is a Python number

    def take_y():
        y = y_fn()
        # NOTE: a Python number on the right promotes with x as numpy promotes a Python
        # scalar (``bool_tensor or 3`` is int64 3, not True)
        number = isinstance(y, (bool, int, float))
        holder[1] = number
        var = layers().fill_constant([], name_of(np.result_type(x.dtype, y)), y) if number \
            else to_variable(y, x)
        if var is None:  # None or another Python object: the result is x or that object
            holder.append(y)
            return lay.assign(x)
        if dtype_name(var) != dtype_name(x):
            common = name_of(np.result_type(x.dtype, var.dtype))
            holder[0] = common
            var = lay.cast(var, common) if dtype_name(var) != common else var
        if list(var.shape) != list(x.shape) and _numel(var.shape) == 1 == _numel(x.shape):
            var = lay.reshape(var, list(x.shape))
        return var

    def take_x():
        if holder[0] is not None and holder[0] != dtype_name(x):
            return lay.cast(x, holder[0])
        return lay.assign(x)

    program = struct.current_program()
    point = program.checkpoint()
    taken_y = lay.logical_not(pred) if x_is_result_when else pred
    # y's branch is traced first: it decides the common dtype
    out = lay.cond(taken_y, take_y, take_x)
    if len(holder) > 2:
        # NOTE: y is no Tensor: the value is x or that Python object, chosen at run time
        # (returned from the function, or used as a condition through its truth value)
        y = holder[2]
        program.rollback_to(point)
        taken_y = lay.logical_not(pred) if x_is_result_when else pred
        truth = pred if bool(y) == (not x_is_result_when) else \
            lay.fill_constant([], "bool", bool(y))
        return PathUnion(lay.cast(taken_y, "int64"), [x, y], truth)
    # NOTE: eagerly the result is x or the Python number y: with a bool x (a comparison) both
    # promote like a weak number against a float tensor
    return mark_weak(out, is_weak(x) or (holder[1] and dtype_name(x) == "bool"))


def _numel(shape):
    n = 1
    for d in shape:
        n = n * d if d is not None and d >= 0 else -1
    return n


def convert_logical_not(x):
    """``not x``: ``logical_not`` for a static ``x`` (cast to bool first), else Python."""
    x = _truth(x)
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

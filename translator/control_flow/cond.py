"""Building a ``cond`` for an ``if`` statement, a conditional expression and ``x and y`` /
``x or y`` with a static ``x`` (the package docstring describes the mechanism).
"""
import numpy as np

from core.dtypes import dtype_name as name_of
from core.static import default_main_program, structure

from ..convert_state import (PathUnion, alike, alternatives, dtype_name, is_pending, is_static,
                             is_undefined, is_union, is_weak, kind, layers, mark_weak,
                             promoted_dtype, selector_of, to_variable, where)
from .carry import (assigned_where, flag_info, flatten, has_name_flag, is_maybe_unbound,
                    known_truth, mark_maybe_unbound, name_flag, placeholder, set_known_truth,
                    template, undo)


def _show(value):
    """``value`` for an error message: a short Python scalar as itself, else its kind."""
    if isinstance(value, (str, bytes, bool, int, float)) or value is None:
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return kind(value)


def _branch_error(name, sides, values, where_):
    if name.startswith("__return_value"):
        return TypeError(
            f"under a Tensor condition{where_} the function returns {_show(values[0])} on one "
            f"path and {_show(values[1])} on another; in a static program every path must "
            "return Tensors of the same structure")
    return TypeError(
        f"variable '{name}' is {_show(values[0])} after the {sides[0]} branch but "
        f"{_show(values[1])} after the {sides[1]} branch of an if whose condition is a "
        f"Tensor{where_}; in a static program both branches must give it a Tensor or a number "
        "(or leave it unchanged), since only those can be chosen at run time -- assign it "
        "before the if or in both branches")


_OUT = object()  # marks a leaf that is an output of the cond op


class _NeedsUnion(Exception):
    """Return value ``index`` has other structures on the second path: ``tmpls``, one
    ``convert_template`` per alternative it may hold there."""

    def __init__(self, index, tmpls):
        super().__init__(index)
        self.index, self.tmpls = index, tmpls


class _NeedsCast(Exception):
    """The first-traced branch's output leaf ``index`` must have ``dtype``."""

    def __init__(self, index, dtype):
        super().__init__(index)
        self.index, self.dtype = index, dtype


class _NeedsFlag(Exception):
    """A branch leaves name ``index`` unbound (``del``) that was bound before the if."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


class ListLengthDiffers(TypeError):
    """The branches leave the list in name ``name`` with different lengths (a loop whose body
    holds the ``if`` then carries that name's lists as tensor arrays: see ``loop.py``)."""

    def __init__(self, message, name):
        super().__init__(message)
        self.name = name


class _NeedsLeafFlag(Exception):
    """Output ``index`` (a position among the cond's outputs) holds, in the branch traced
    second, a value bound on some paths only (a dict entry set under a Tensor condition) that
    the first branch's does not: both must carry its bound flag out."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


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


def static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live, templates=None,
                   casts=None, unions=None, unbinds=frozenset(), leaf_flags=frozenset()):
    """The ``cond`` of an ``if`` statement: its outputs are the ``live`` ones among the carried
    ``names`` (read / written by ``get_args`` / ``set_args``), each split into leaves, plus
    the bound flags of the names it may leave unbound. ``templates`` (placeholders for a name
    the first-traced branch leaves unset), ``casts`` (dtypes of the first branch's leaves) and
    ``unions`` (return values with a structure per path), ``unbinds`` (names a branch
    deletes) and ``leaf_flags`` (output positions whose value is bound on some paths only in
    the branch traced second) are what earlier traces learnt.

    A leaf bound on some paths only inside a value (a dict entry a nested Tensor ``if`` set)
    keeps its own bound flag through the cond: the flag is an output too (true where the
    other branch's leaf has none), attached to the output leaf afterwards."""
    init = tuple(get_args())
    where_ = where()
    templates, casts, unions = dict(templates or {}), dict(casts or {}), dict(unions or {})
    union_parts = {}  # k -> [first side's alternatives, second side's]
    out_idx = [k for k, n in enumerate(names) if n in live]
    # names that may be left unbound: undefined (not a pending return) or maybe-unbound before
    flagged = [k for k in out_idx if (is_undefined(init[k]) and not is_pending(init[k])) or
               is_maybe_unbound(init[k]) or k in unbinds]
    runs = []  # (side, values) in the order cond runs the branches
    unsure = set()  # flagged names some branch may leave unbound
    weak = []  # per side, whether each output stands for a Python number
    layout = {}  # index -> (tree, [True for a leaf that is a cond output, else its value])
    flagged_leaves = set(leaf_flags)  # output positions carrying a leaf's own bound flag
    leaf_labels = {}  # position -> (name, "assigned at" text) of the flagged leaf
    sources = []  # per output of the branch being traced: the value leaf it comes from
    program = default_main_program()
    point = program.checkpoint()

    def like_leaves(init_value, tree, n):
        leaves, init_tree = flatten(init_value)
        if init_tree != tree:
            return [None] * n
        return [None if is_undefined(v) else v for v in leaves]

    def first_side(k, value, init_value):
        leaves, tree = flatten(value)
        plan, outs = [], []
        for j, (leaf, like) in enumerate(zip(leaves, like_leaves(init_value, tree,
                                                                  len(leaves)))):
            var = to_variable(leaf, like)
            if var is not None and (k, j) in casts:
                var = _cast(var, casts[k, j])
            plan.append(_OUT if var is not None else leaf)
            if var is not None:
                outs.append(var)
                sources.append(leaf)
        layout[k] = (tree, plan, leaves, outs)
        return outs

    def second_side(k, value, sides, other):
        tree, plan, _, first_vars = layout[k]
        if tree is structure.LEAF and len(plan) == 1 and plan[0] is value:
            return []  # a container both branches leave as it was
        leaves, got = flatten(value)
        def mismatch():
            # each path returns its own structure; a value that already is one of several
            # (a list the branches of an earlier if filled differently) stays one
            # (and a None on one path: a loop's first trip, peeled, leaves it None when the
            # loop does not run)
            if names[k].startswith("__return_value") or is_union(value) or is_union(other) \
                    or (value is None) != (other is None):
                return _NeedsUnion(k, [template(a) for a in alternatives(value)])
            error = _branch_error(names[k], sides, (other, value), where_)
            if isinstance(other, list) and isinstance(value, list) and \
                    len(other) != len(value):
                return ListLengthDiffers(str(error), names[k])
            return error

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
            if first_var.shape is not None and var.shape is not None and \
                    len(first_var.shape) != len(var.shape):
                # the ranks differ (rebound to a broadcast result on one path): the value is
                # one of two, chosen at run time, as for paths returning different structures
                raise _NeedsUnion(k, [template(a) for a in alternatives(value)])
            outs.append(_common_dtype((k, j), first_var, var))
            sources.append(leaf)
        return outs

    def union_side(k, value, is_first):
        """Outputs of return value ``k`` whose paths return different structures: every
        alternative's static leaves (placeholders for the other side's), then the selector.
        A side that has not returned yet (undefined) adds no alternative and selects 0."""
        pending = is_undefined(value)
        mine = [] if pending else alternatives(value)
        if is_first:
            union_parts[k] = [mine, None]
            parts, offset = mine + [placeholder(t) for t in unions[k]], 0
        else:
            if pending:
                mine = [placeholder(t) for t in unions[k]]
            union_parts[k][1] = mine
            first_alts = union_parts[k][0]
            parts = [placeholder(template(a)) for a in first_alts] + mine
            offset = len(first_alts)
        outs = [leaf for part in parts for leaf in flatten(part)[0] if is_static(leaf)]
        sources.extend(outs)
        sel = None if pending else selector_of(value)
        if sel is None:
            sel = layers().fill_constant([], "int64", 0 if pending else offset)
        elif offset:
            sel = sel + offset
        sources.append(None)
        return outs + [sel]

    def branch(fn, side):
        def run():
            sources.clear()
            copies = tuple(_copy(v) for v in init)  # each branch appends to its own list
            set_args(copies)
            fn()
            values = tuple(i if v is c and (c is i or alike(c, i)) else v
                           for v, c, i in zip(get_args(), copies, init))
            first = runs[0] if runs else None
            runs.append((side, values))
            # judged while the branch's block is current: a flag made inside it is visible
            unsure.update(k for k in flagged if not _surely_bound(values[k], names[k]))
            for k in out_idx:
                if k not in flagged and is_undefined(values[k]) and not is_pending(values[k]):
                    raise _NeedsFlag(k)
            outs = []
            for k in out_idx:
                value = values[k]
                if is_undefined(value) and k in templates:
                    value = placeholder(templates[k])
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
                        raise _NeedsUnion(k, [template(a) for a in alternatives(value)])
                    if not is_undefined(value):
                        raise _NeedsPlaceholder(k, template(value))
                    continue
                if is_undefined(value):
                    if is_union(other):
                        raise _NeedsUnion(k, [])
                    value = placeholder(template(other))
                outs += second_side(k, value, (first[0], side), other)
            # a leaf bound on some paths only (inside a value) carries its own flag out
            infos = {}
            for pos, src in enumerate(sources):
                info = flag_info(src) if src is not None else None
                if info is None:
                    continue
                if pos not in flagged_leaves:
                    if first is not None:
                        raise _NeedsLeafFlag(pos)
                    flagged_leaves.add(pos)
                infos[pos] = info
                leaf_labels.setdefault(pos, (info[1], info[2]))
            true = None
            leaf_outs = []
            for pos in sorted(flagged_leaves):
                if pos in infos:
                    leaf_outs.append(infos[pos][0])
                else:
                    if true is None:
                        true = layers().fill_constant([], "bool", True)
                    leaf_outs.append(true)
            # a name that may be unbound after the if carries its bound flag out of the cond
            outs += [name_flag(values[k], names[k]) for k in flagged]
            outs += leaf_outs
            weak.append([is_weak(v) for v in outs])
            return tuple(outs)
        return run

    try:
        outs = layers().cond(pred, branch(true_fn, "true"), branch(false_fn, "false"))
    except (_NeedsPlaceholder, _NeedsUnion, _NeedsCast, _NeedsFlag, _NeedsLeafFlag) as e:
        # NOTE: re-trace, each time with one more thing learnt (at most once per output):
        # - _NeedsPlaceholder: the branch traced first left a name unbound (or a return
        #   pending) that the other set; only now is its structure known, and the first
        #   branch must produce a placeholder of it;
        # - _NeedsUnion: the paths give a value different structures or ranks, known only
        #   after both are traced; each must output every alternative;
        # - _NeedsCast: the first branch's output must be cast to the dtype the second one's
        #   promotes it to;
        # - _NeedsFlag: a branch unbinds (``del``) a name bound before the if, which then
        #   carries its bound flag out of the cond;
        # - _NeedsLeafFlag: the branch traced second holds a leaf bound on some paths only
        #   where the first's is bound: both carry that leaf's flag out.
        undo(program, point, set_args, init)
        if isinstance(e, _NeedsPlaceholder):
            templates[e.index] = e.tmpl
        elif isinstance(e, _NeedsUnion):
            unions[e.index] = e.tmpls
        elif isinstance(e, _NeedsCast):
            casts[e.index] = e.dtype
        elif isinstance(e, _NeedsLeafFlag):
            leaf_flags = frozenset(flagged_leaves) | {e.index}
        else:
            unbinds = unbinds | {e.index}
        return static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions, unbinds, leaf_flags)
    outs = list(outs) if isinstance(outs, (list, tuple)) else ([] if outs is None else [outs])
    for out, t, f in zip(outs, *weak):
        mark_weak(out, t and f)  # a number on both paths stays a weak number
    n_leaf_flags = len(flagged_leaves)
    n_data = len(outs) - len(flagged) - n_leaf_flags
    flags = outs[n_data:n_data + len(flagged)]
    leaf_flag_outs = dict(zip(sorted(flagged_leaves), outs[n_data + len(flagged):]))
    final, it = list(init), iter(outs)
    for k in out_idx:
        if k in unions:
            first_alts, second_alts = union_parts[k]
            alts = []
            for alt in list(first_alts) + list(second_alts):
                leaves, tree = flatten(alt)
                alts.append(structure.pack(tree, [next(it) if is_static(v) else v
                                                  for v in leaves]))
            final[k] = PathUnion(next(it), alts)
            continue
        if layout[k] is None:
            continue  # pending on both sides
        tree, plan, _, _ = layout[k]
        final[k] = structure.pack(tree, [next(it) if spec is _OUT else spec for spec in plan])
    for k, flag in zip(flagged, flags):
        # NOTE: bound on both paths (each branch assigned it): the flag is true whatever the
        # run takes, and later reads need no run-time check
        # (a name whose paths give different structures is one of several values: its
        # alternatives are chosen at run time, and using it is an error anyway)
        if layout.get(k) is not None and k in unsure:
            assigned = next((assigned_where(v[k]) for _, v in runs if not is_undefined(v[k])), "")
            mark_maybe_unbound(final[k], flag, names[k], assigned)
    for pos, flag in leaf_flag_outs.items():
        # the leaf's own flag, and the flag of the name holding it where that may be unbound
        outer = flag_info(outs[pos])
        if outer is not None:
            flag = layers().logical_and(outer[0], flag)
        label, assigned = leaf_labels[pos]
        mark_maybe_unbound(outs[pos], flag, label, assigned)
    set_args(tuple(final))


def _surely_bound(value, name):
    """A branch's value of name ``name`` that holds a value on every run of that branch (a
    leaf inside it bound on some paths only has a flag of its own)."""
    return not is_undefined(value) and not has_name_flag(value, name)


def _cast(var, dtype):
    """``var`` cast to ``dtype``, still standing for a Python number when it did."""
    return var if dtype_name(var) == dtype else mark_weak(layers().cast(var, dtype),
                                                          is_weak(var))


def _common_dtype(key, first_var, var):
    """``var`` (the second-traced side's output ``key``) in the dtype both sides' values
    promote to as eager code promotes them (``convert_state.promoted_dtype``: int32 and int64
    give int64, the Python numbers 1 and 2.5 give float32). When that is not the first side's
    dtype, the first side must be traced again with a cast (:class:`_NeedsCast`)."""
    a, b = dtype_name(first_var), dtype_name(var)
    if a == b or ("bool" in (a, b) and not (is_weak(first_var) or is_weak(var))):
        return var  # cond reports a strong bool beside a number
    common = promoted_dtype(first_var, var)
    if common is None:
        return var
    if common != a:
        raise _NeedsCast(key, common)
    return _cast(var, common)


def static_ifexp(pred, true_fn, false_fn, casts=None):
    """The ``cond`` of ``true_fn() if pred else false_fn()``; ``casts``: dtypes of the first
    side's leaves learnt by an earlier trace."""
    first, weak = [], []
    casts = dict(casts or {})
    program = default_main_program()
    point = program.checkpoint()

    def branch(fn):
        def run():
            leaves, tree = flatten(fn())
            likes = first[0] if first and len(first[0]) == len(leaves) else [None] * len(leaves)
            out = []
            for j, (leaf, like) in enumerate(zip(leaves, likes)):
                var = to_variable(leaf, like if is_static(like) else None)
                if var is None and (leaf is None or is_undefined(leaf)):
                    raise TypeError(f"a conditional expression with a Tensor condition{where()} "
                                    "must give Tensors or numbers (or structures of them) on "
                                    f"both sides, got {kind(leaf)}")
                if var is None and first and not _same_python(leaf, like):
                    raise TypeError(
                        f"a conditional expression with a Tensor condition{where()} gives "
                        f"{_show(like)} on one side and {_show(leaf)} on the other; only a "
                        "Tensor or a number can be chosen at run time")
                if var is not None and first:
                    var = _common_dtype(j, like, var)
                elif var is not None and j in casts:
                    var = _cast(var, casts[j])
                out.append(leaf if var is None else var)
            first.append(out)
            weak.append([is_weak(v) for v in out if is_static(v)])
            return structure.pack(tree, out)
        return run

    try:
        result = layers().cond(pred, branch(true_fn), branch(false_fn))
    except _NeedsCast as e:
        # NOTE: re-trace (at most once per output): the first side's value must be cast to
        # the dtype the second side's promotes it to
        program.rollback_to(point)
        casts[e.index] = e.dtype
        return static_ifexp(pred, true_fn, false_fn, casts)
    leaves = flatten(result)[0]
    outs = [v for v in leaves if is_static(v)]
    for out, t, f in zip(outs, *weak):
        mark_weak(out, t and f)  # a number on both sides stays a weak number
    return result


def static_logical(x, y_fn, x_is_result_when):
    """``x and y`` (``x_is_result_when`` False) or ``x or y`` (True) for a static ``x``: a
    ``cond`` that evaluates ``y_fn`` only on the path where Python would."""
    lay = layers()
    pred = x if dtype_name(x) == "bool" else lay.cast(x, "bool")
    holder = [None, False]  # the common dtype, whether y is a Python number
    y_number = [None]  # y, when it is a Python number

    def take_y():
        y = y_fn()
        if is_union(y):  # a chain ``x and (z and None)``: y is itself one of several things
            holder.append(y)
            return _union_outputs(y, None, x_is_result_when)
        # NOTE: a Python number on the right promotes with x as numpy promotes a Python
        # scalar (``bool_tensor or 3`` is int64 3, not True)
        number = isinstance(y, (bool, int, float))
        holder[1] = number
        # the truth of y where it is the same on every path (a number, ``z and 0``)
        y_number[:] = [bool(y) if number else known_truth(y)]
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
        if len(holder) > 2 and is_union(holder[2]):
            return _union_outputs(holder[2], x_is_result_when, x_is_result_when)
        if holder[0] is not None and holder[0] != dtype_name(x):
            return lay.cast(x, holder[0])
        return lay.assign(x)

    program = default_main_program()
    point = program.checkpoint()
    taken_y = lay.logical_not(pred) if x_is_result_when else pred
    # y's branch is traced first: it decides the common dtype
    out = lay.cond(taken_y, take_y, take_x)
    if len(holder) > 2 and is_union(holder[2]):
        # NOTE: the value is x or one of y's alternatives: the cond gave the selector (0 for
        # x), the truth where y's is known and the alternatives' static leaves
        y, out = holder[2], list(out)
        truth = out.pop(1) if is_static(y.truth) else _known_truth(pred, y.truth,
                                                                   x_is_result_when)
        alts = [_pack_static(alt, out, 1) for alt in y.alternatives]
        return PathUnion(out[0], [x] + alts, truth)
    if len(holder) > 2:
        # NOTE: y is no Tensor: the value is x or that Python object, chosen at run time
        # (returned from the function, or used as a condition through its truth value)
        y = holder[2]
        program.rollback_to(point)
        taken_y = lay.logical_not(pred) if x_is_result_when else pred
        truth = _known_truth(pred, bool(y), x_is_result_when)
        return PathUnion(lay.cast(taken_y, "int64"), [x, y], truth)
    # NOTE: eagerly the result is x or the Python number y: with a bool x (a comparison) both
    # promote like a weak number against a float tensor
    out = mark_weak(out, is_weak(x) or (holder[1] and dtype_name(x) == "bool"))
    if y_number[0] is not None:
        # ``x and 0`` is false and ``x or 3`` true on every path: an ``if`` on it takes that
        # branch in Python, as CPython (which compiles the other away) does
        known = _known_truth(pred, y_number[0], x_is_result_when)
        if isinstance(known, bool):
            set_known_truth(out, known)
    return out


def _known_truth(pred, y_truth, x_is_result_when):
    """The truth of ``x and y`` / ``x or y`` (x's truth ``pred``) where y's is the Python
    bool ``y_truth`` (None: unknown): ``pred`` when y's truth is the one that lets x decide,
    else that Python bool, the same on every path (``x and None`` is false: an ``if`` on it
    runs its else branch in Python, as CPython, which drops the other, does)."""
    if y_truth is None:
        return None
    return pred if bool(y_truth) == (not x_is_result_when) else bool(y_truth)


def _union_outputs(y, x_truth, x_is_result_when):
    """The outputs of one path of ``x and y`` / ``x or y`` where ``y`` is a :class:`PathUnion`:
    the selector (y's shifted past x's alternative; 0 on x's path, ``x_truth`` not None), the
    value's truth (x's path: ``x_truth``; y's path: y's truth) where y's is a Variable, then every
    static leaf of y's alternatives (placeholders on x's path)."""
    lay = layers()
    leaves = [leaf for alt in y.alternatives for leaf in flatten(alt)[0] if is_static(leaf)]
    if x_truth is not None:
        outs = [lay.fill_constant([], "int64", 0)]
        if is_static(y.truth):
            outs.append(lay.fill_constant([], "bool", bool(x_truth)))
        return outs + [placeholder(template(leaf)) for leaf in leaves]
    outs = [lay.reshape(y.selector, []) + 1]
    if is_static(y.truth):
        outs.append(lay.reshape(lay.cast(y.truth, "bool"), []))
    return outs + leaves


def _pack_static(value, outs, start):
    """``value`` with its static leaves taken in order from ``outs``, from index ``start``
    (advanced past those taken: ``outs[start:]`` shrinks)."""
    leaves, tree = flatten(value)
    packed = [outs.pop(start) if is_static(leaf) else leaf for leaf in leaves]
    return structure.pack(tree, packed)


def _numel(shape):
    n = 1
    for d in shape:
        n = n * d if d is not None and d >= 0 else -1
    return n

"""Tensor control flow in converted code: the one place that decides whether an ``if``, a
conditional expression, ``and`` / ``or`` / ``not``, a ``while`` or a ``for`` runs as Python or
as a static ``cond`` / ``while_loop`` op, and that builds the op.

The decision is made at run time from the actual condition (or iterable): a static
``Variable`` (``convert_state.is_static``) builds the op; anything else runs plain Python with
exactly Python's semantics (short-circuit included: operands are thunks). A ``while`` whose
condition turns static after some Python iterations becomes one ``while_loop`` from there.

What crosses the op, and how:

* Carried names. The passes (``transformers/ifelse.py``, ``loop.py``) hand each helper the
  names its bodies modify and, from liveness (``static_analysis``), which of them are live
  after it (``live``, ``loop_vars``), plus the attributes / items it assigns (``self.x``,
  ``self.d["k"]``: :class:`Targets`). Bodies are generated functions that rebind the
  enclosing function's names through ``nonlocal``: :func:`_carried` reads and writes those
  names (and targets) through the closure cells (``convert_state.closure_state``).
* Structures. A carried value may be a tuple, list or dict of Tensors and Python values: it
  crosses leaf by leaf (:func:`flatten`) and is rebuilt after (``core.static.structure.pack``).
  ``cond`` splits tuples, lists and dicts (a list the branches leave untouched passes through
  whole); ``while_loop`` splits tuples and dicts, a Python list becoming a tensor array
  (``tensor_list``). Both paths / the body must keep a name's structure; a Python value must
  be the same on both paths or a number (which becomes a constant).
* One-path names. A name (or attribute) bound on one path only -- one branch, or a loop that
  may run no iteration -- is built anyway: on the other path it holds a :func:`placeholder`
  (zeros of the same structure) and the op carries one more output, its *bound flag* (a bool
  Variable). Each later read (``_d2s.check_bound``, which the ``unbound`` pass wraps around
  reads) appends an ``Assert`` on the flag, so a run fails -- naming the line that assigns the
  name and the line that reads it -- only when it really takes the path that left it unbound.
  A pending return value (``convert_state.PendingReturn``) gets the placeholder without a
  flag: the return flag guards every read of it. Paths that return different structures give
  a ``convert_state.PathUnion``.
* Python numbers. A loop variable holding a Python number enters the loop as a *weak*
  constant (``convert_state.mark_weak``) of the dtype and shape the body gives it.

Rollback and re-tracing. What a body makes of a value is only known by tracing it, while an
op's outputs (a loop's entry values) must be typed before. So a trace that learns something
raises one of this module's private exceptions; the helper undoes everything the trace
appended with ``Program.checkpoint()`` / ``rollback_to()`` (:func:`_undo`) and traces again
with what it learnt. Each remaining re-trace is marked ``NOTE: re-trace`` with its reason;
each happens at most a few times per carried value.
"""
import builtins
import collections
import functools
import operator
import weakref

import numpy as np

from core import in_dynamic_mode
from core.dtypes import dtype_name as name_of
from core.static import default_main_program, structure

from .convert_iter import StaticIter, as_static_iter, is_static_iterable, range_item
from .convert_state import (PathUnion, UndefinedVar, alternatives, closure_state, dtype_name,
                            is_pending, is_static, is_undefined, is_union, is_weak, kind,
                            layers, mark_weak, number_dtype, promoted_dtype, selector_of,
                            to_variable, where)
from .tensor_list import ArrayDtypeChanged, is_array, is_guessed, list_to_array, mark_guessed

__all__ = [
    "Targets",
    "as_predicate",
    "check_bound",
    "convert_compare",
    "convert_for_loop",
    "convert_ifelse",
    "convert_ifexp",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
    "convert_while_loop",
    "flatten",
    "placeholder",
    "template",
]


# -- carried names and targets --------------------------------------------------------------------
class Targets:
    """The attributes and items a construct assigns (``self.x``, ``self.d["k"]``): each entry
    is ``(owner thunk, 'attr' or 'item', key, label)``. A static ``cond`` / ``while_loop``
    carries them like names (:func:`with_targets`): a missing one reads as undefined, and
    setting an undefined value removes it again (a branch traced after another that set it
    starts without it, as the run that takes that branch does)."""

    def __init__(self, *entries):
        self.entries = entries
        self.labels = tuple(label for _, _, _, label in entries)

    def get(self):
        values = []
        for owner, how, key, label in self.entries:
            try:
                obj = owner()
                values.append(getattr(obj, key) if how == "attr" else obj[key])
            except (AttributeError, KeyError, IndexError):
                values.append(UndefinedVar(label))
        return tuple(values)

    def set(self, values):
        for (owner, how, key, _), value in zip(self.entries, values):
            obj = owner()
            if not is_undefined(value):
                if how == "attr":
                    setattr(obj, key, value)
                else:
                    obj[key] = value
            elif how == "attr" and key in getattr(obj, "__dict__", ()):
                delattr(obj, key)
            elif how == "item" and isinstance(obj, dict) and key in obj:
                del obj[key]


def with_targets(get_args, set_args, names, targets):
    """``(get, set, names)`` over ``names`` and then ``targets``' entries (when not None)."""
    if targets is None:
        return get_args, set_args, tuple(names)
    n = len(names)

    def get_all():
        return tuple(get_args()) + targets.get()

    def set_all(values):
        set_args(values[:n])
        targets.set(values[n:])

    return get_all, set_all, tuple(names) + targets.labels


def restore_others(fn, names):
    """A function that, called later, gives the closure cells of ``fn`` other than ``names``
    back the values they hold now. A static loop carries only the names live after it; the
    body also rebinds its temporaries, which must not keep Variables local to the loop's
    block once it is built (liveness says nothing reads them before they are bound again)."""
    keep = set(names)
    saved = []
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        if name in keep:
            continue
        try:
            saved.append((cell, True, cell.cell_contents))
        except ValueError:
            saved.append((cell, False, None))

    def restore():
        for cell, bound, value in saved:
            if bound:
                cell.cell_contents = value
            else:
                try:
                    del cell.cell_contents
                except ValueError:
                    pass

    return restore


def _carried(fn, names, targets):
    """``(get, set, names)``: the names ``names`` that generated body ``fn`` rebinds (through
    its closure cells), then the attributes / items ``targets`` (a :class:`Targets` or None)."""
    get_args, set_args = closure_state(fn, names)
    return with_targets(get_args, set_args, names, targets)


def _undo(program, point, set_args, values):
    """Undo a trace before tracing again: remove what was appended to ``program`` since
    ``point`` (``Program.checkpoint()``) and give the carried names back ``values``."""
    set_args(values)
    program.rollback_to(point)


# -- structures and placeholders ------------------------------------------------------------------
def flatten(value, kinds=structure.ALL):
    """``(leaves, tree)`` of ``value`` (:func:`core.static.structure.flatten`), splitting the
    containers of the types ``kinds`` and keeping each dict's own key order: a dict the user
    built comes back in that order, and two paths' dicts match only in the same order."""
    return structure.flatten(value, kinds, sort_keys=False)


class _VarMeta:
    __slots__ = ("shape", "dtype", "array")

    def __init__(self, var):
        self.shape = [d if d is not None and d >= 0 else 1 for d in (var.shape or ())]
        self.dtype = dtype_name(var)
        self.array = is_array(var)


class _ListMeta:
    """A Python list leaf (a loop turns it into a tensor array): its stand-in is a new empty
    list, never the list itself, whose items may be local to the block that made them."""


def template(value, kinds=structure.ALL):
    """What :func:`placeholder` needs to build a stand-in of ``value``'s structure."""
    leaves, tree = flatten(value, kinds)
    return tree, [_VarMeta(v) if is_static(v) else _ListMeta() if isinstance(v, list) else v
                  for v in leaves]


def placeholder(tmpl):
    """A stand-in built from :func:`template`: zeros for each static Tensor (an empty tensor
    array for an array), the same object for every other leaf."""
    tree, metas = tmpl
    lay, leaves = layers(), []
    for m in metas:
        if isinstance(m, _VarMeta):
            m = lay.create_array(m.dtype) if m.array else lay.fill_constant(m.shape, m.dtype, 0)
        elif isinstance(m, _ListMeta):
            m = []
        leaves.append(m)
    return structure.pack(tree, leaves)


# -- one-path names: bound flags ------------------------------------------------------------------
class _ByIdentity:
    """Variable -> info, by identity (a Variable's ``==`` builds an op); entries go with the
    Variable."""

    def __init__(self):
        self._d = {}

    def __bool__(self):
        return bool(self._d)

    def __setitem__(self, var, info):
        key = id(var)
        self._d[key] = (weakref.ref(var, lambda _, key=key: self._d.pop(key, None)), info)

    def get(self, var):
        entry = self._d.get(id(var))
        return entry[1] if entry is not None and entry[0]() is var else None


# leaf Variable -> (bound flag Variable, name, "assigned at ..." text)
_maybe_unbound = _ByIdentity()


def _static_leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _static_leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _static_leaves(v)]
    return [value] if is_static(value) else []


def mark_maybe_unbound(value, flag, name, assigned):
    """Record that the static leaves of ``value`` (name ``name``) hold a value only when bool
    Variable ``flag`` is true at run time; ``assigned`` says where the name is bound."""
    for leaf in _static_leaves(value):
        if leaf.block is leaf.block.program.current_block():  # made by the construct itself
            _maybe_unbound[leaf] = (flag, name, assigned)


def _flag_of(leaf):
    """The bound flag recorded for ``leaf`` when it is visible from the current block."""
    info = _maybe_unbound.get(leaf)
    if info is None:
        return None
    block = leaf.block.program.current_block()
    return info if _visible(block, info[0]) else None


def _visible(block, var):
    """True when ``var`` is the variable its name denotes in ``block`` or an ancestor."""
    while block is not None:
        found = block.vars.get(var.name)
        if found is not None:
            return found is var
        block = block.parent
    return False


def is_maybe_unbound(value):
    """True when a static leaf of ``value`` holds a value only on some paths."""
    return bool(_maybe_unbound) and any(_flag_of(leaf) is not None
                                        for leaf in _static_leaves(value))


def bound_flag(value):
    """The bound flag of ``value`` on the path just traced: False for an undefined value, the
    recorded flag of a maybe-unbound one, else True (a bool Variable)."""
    if is_undefined(value):
        return layers().fill_constant([], "bool", False)
    for leaf in _static_leaves(value):
        info = _flag_of(leaf)
        if info is not None:
            return info[0]
    return layers().fill_constant([], "bool", True)


def assigned_where(value):
    """`` at file:line`` of the op that computed ``value``'s first static leaf, or ``''``."""
    for leaf in _static_leaves(value):
        info = _flag_of(leaf)
        if info is not None:
            return info[2]
        for op in reversed(leaf.block.ops):
            if leaf.name in [n for names in op.outputs.values() for n in names] and op.origin:
                return f" at {op.origin[0]}:{op.origin[1]}"
    return ""


def check_bound(value, name):
    """A read of ``name`` holding ``value``: an undefined value raises ``UnboundLocalError``
    at once (as Python does); a maybe-unbound static value gets an ``Assert`` on its bound
    flag, failing at run time only on a path that left ``name`` unbound."""
    if isinstance(value, UndefinedVar):
        if not _in_static_sub_block():
            value._d2s_fail()
        # NOTE: read in a branch or loop body being traced, which the run may never take: the
        # run fails if it does; the stand-in (a weak 0-d zero) keeps the ops after it typed
        flag = layers().fill_constant([], "bool", False)
        where_bound = value._d2s_where.replace(" at ", "", 1)
        _assert_bound(flag, name, f" (in the statement at {where_bound})" if where_bound else "")
        return mark_weak(layers().fill_constant([], "float32", 0.0))
    if not _maybe_unbound or not is_static(value):
        return value
    for leaf in _static_leaves(value):
        info = _flag_of(leaf)
        if info is not None:
            _assert_bound(info[0], name, info[2])
            break
    return value


def _assert_bound(flag, name, assigned):
    what = "local variable" if name.isidentifier() else "attribute" if name[-1] != "]" else \
        "item"
    layers().Assert(flag, name=(
        f"{what} '{name}' is read{where()} on a path where it has no value: it is "
        f"assigned{assigned} only on some paths of the control flow (one branch of an if, or a "
        "loop that ran no iteration)"))


def _in_static_sub_block():
    """True while a ``cond`` branch or ``while`` body of a static Program is being traced."""
    if in_dynamic_mode():
        return False
    return default_main_program().current_block().idx != 0


# -- if / else ------------------------------------------------------------------------------------
def _truth(pred):
    """``pred``, or for a value that is one of several things (``x and None``) its truth."""
    return pred.truth if is_union(pred) and pred.truth is not None else pred


def convert_ifelse(pred, true_fn, false_fn, names=(), live=(), targets=None):
    """``if pred: true_fn() else: false_fn()``; a static ``pred`` builds a ``cond`` op whose
    outputs are the ``live`` names among the modified ``names``, and the attributes / items
    ``targets`` (a :class:`Targets`) the branches assign."""
    pred = _truth(pred)
    if is_static(pred):
        get_args, set_args, names = _carried(true_fn, names, targets)
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
        layout[k] = (tree, plan, leaves, outs)
        return outs

    def second_side(k, value, sides, other):
        tree, plan, _, first_vars = layout[k]
        leaves, got = flatten(value)
        def mismatch():
            if names[k].startswith("__return_value"):  # each path returns its own structure
                return _NeedsUnion(k, [template(a) for a in alternatives(value)])
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
            outs.append(_common_dtype((k, j), first_var, var))
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
        _undo(program, point, set_args, init)
        templates[e.index] = e.tmpl
        return _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions)
    except _NeedsUnion as e:
        # NOTE: re-trace (once per return value): the paths return different structures,
        # known only after both are traced; each must output every alternative
        _undo(program, point, set_args, init)
        unions[e.index] = e.tmpls
        return _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live,
                              templates, casts, unions)
    except _NeedsCast as e:
        # NOTE: re-trace (at most once per output): the first branch's output must be cast to
        # the dtype the second one's promotes it to
        _undo(program, point, set_args, init)
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
        if layout[k] is not None:
            assigned = next((assigned_where(v[k]) for _, v in runs if not is_undefined(v[k])), "")
            mark_maybe_unbound(final[k], flag, names[k], assigned)
    set_args(tuple(final))


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


def _static_ifexp(pred, true_fn, false_fn, casts=None):
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
        return _static_ifexp(pred, true_fn, false_fn, casts)
    leaves = flatten(result)[0]
    outs = [v for v in leaves if is_static(v)]
    for out, t, f in zip(outs, *weak):
        mark_weak(out, t and f)  # a number on both sides stays a weak number
    return result


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

    program = default_main_program()
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


# -- while / for ----------------------------------------------------------------------------------
def convert_while_loop(cond_fn, body_fn, loop_vars=(), targets=None):
    """``while cond_fn(): body_fn()``; from the first static condition on, the rest of the
    loop is a ``while_loop`` op carrying ``loop_vars`` (the modified names live at the loop
    head or after the loop) and the attributes / items ``targets`` the body assigns."""
    pred = cond_fn()
    while True:
        pred = pred.truth if is_union(pred) and pred.truth is not None else pred
        if is_static(pred):
            restore = restore_others(body_fn, loop_vars)
            get_args, set_args, names = _carried(body_fn, loop_vars, targets)
            _static_while(cond_fn, body_fn, get_args, set_args, names)
            restore()
            return
        if not pred:
            return
        body_fn()
        pred = cond_fn()


def convert_for_loop(iterable, extra_test, body_fn, loop_vars=(), targets=None):
    """``for item in iterable: body_fn(item)`` stopping when ``extra_test()`` is false (loops
    with ``break``/``return``). A static iterable (Variable, static range/enumerate/zip) loops
    with a ``while_loop`` over an index; a Python ``range`` whose extra test turns static
    continues as one from the current index."""
    if is_static_iterable(iterable):
        _static_for(as_static_iter(iterable), 0, extra_test, body_fn, loop_vars, targets)
        return
    items = iterable if isinstance(iterable, range) else builtins.iter(iterable)
    for k, item in enumerate(items):
        if extra_test is not None:
            ok = extra_test()
            if is_static(ok):
                if not isinstance(iterable, range):
                    raise TypeError(
                        f"a break/return under a Tensor condition{where()} inside a loop over "
                        f"a Python {type(iterable).__name__} is not supported; loop over a "
                        "range or a Tensor instead")
                _static_for(StaticIter(len(iterable), functools.partial(
                    range_item, iterable.start, iterable.step)), k, extra_test, body_fn,
                    loop_vars, targets)
                return
            if not ok:
                return
        body_fn(item)


def _static_for(it, start, extra_test, body_fn, names, targets=None):
    restore = restore_others(body_fn, names)
    get_args, set_args, names = _carried(body_fn, names, targets)
    _static_for_loop(it, start, extra_test, body_fn, names, get_args, set_args)
    restore()


def _static_for_loop(it, start, extra_test, body_fn, names, get_args, set_args):
    # the index stands for a Python int (what range / enumerate give eagerly): weak, so
    # ``float32_tensor * i`` stays float32 as in eager mode
    index = [mark_weak(layers().fill_constant([], "int64", start))]
    length = it.length

    def cond_fn():
        more = index[0] < length
        if extra_test is None:
            return more
        return convert_logical_and(lambda: more, extra_test)

    def loop_body():
        body_fn(it.item(index[0]))
        index[0] = index[0] + 1

    def get_all():
        return tuple(get_args()) + (index[0],)

    def set_all(values):
        set_args(values[:-1])
        index[0] = values[-1]

    _static_while(cond_fn, loop_body, get_all, set_all, tuple(names) + ("__index",))


# -- the static loop ------------------------------------------------------------------------------
_Fix = collections.namedtuple("_Fix", ["dtype", "shape", "weak"], defaults=(False,))
_Fix.__doc__ = """How a loop variable enters the loop: ``dtype`` (a name), ``shape`` (None:
the value's own) and whether it stays a weak number (``convert_state.is_weak``)."""


class _Retrace(Exception):
    """Loop variable ``index`` must enter the loop as ``fix`` (a :data:`_Fix`)."""

    def __init__(self, index, fix):
        super().__init__(index, fix)
        self.index, self.fix = index, fix


def _is_number(value):
    return isinstance(value, (bool, int, float))


def _is_scalar(value):
    """A Python number or a 0-d tensor: what broadcasting may give a rank."""
    return _is_number(value) or (hasattr(value, "shape") and hasattr(value, "dtype") and
                                 value.shape is not None and len(value.shape) == 0)


def _known(shape):
    return all(d is not None and d >= 0 for d in shape)


def _entry_dtype(value):
    """The dtype name ``value`` enters a loop as when nothing better is known."""
    return number_dtype(value) if _is_number(value) else dtype_name(value)


def _initial(value, fix):
    """The Variable a loop variable enters the loop as (None: not a Tensor; kept as is)."""
    if isinstance(value, list):
        return list_to_array(value, None if fix is None else fix.dtype)
    if fix is None:
        return to_variable(value)
    lay = layers()
    if _is_number(value):
        return mark_weak(lay.fill_constant(list(fix.shape or ()), fix.dtype, value), fix.weak)
    var = to_variable(value)
    if dtype_name(var) != fix.dtype:
        var = lay.cast(var, fix.dtype)
    if fix.shape:
        var = lay.expand(lay.reshape(var, [1] * len(fix.shape)), list(fix.shape))
    return var


def _needed_fix(before, after, fix):
    """The :data:`_Fix` loop variable ``before`` (its value before the loop) should enter
    the loop with, given its body result ``after`` (a Variable); None when it is right."""
    if isinstance(before, list) or not _is_scalar(before):
        return None
    shape = tuple(after.shape or ())
    if (shape and not _known(shape)) or (not shape and not _is_number(before)):
        return None  # left to while_loop: a 0-d tensor keeps its dtype
    number = _is_number(before)
    observed = _Fix(dtype_name(after), shape or None, number and is_weak(after))
    if observed == (fix or _Fix(_entry_dtype(before), None, number)):
        return None
    return observed


def _unknown_shape_error(name, before, var, where_):
    return ValueError(
        f"variable '{name}' is {kind(before)} of shape [] before a loop whose condition is a "
        f"Tensor{where_} and a Tensor of shape {var.shape} after its body; its initial value "
        "cannot be broadcast to a shape that is not known while the program is built -- "
        f"initialise '{name}' with a Tensor of that shape before the loop (e.g. zeros_like)")


class _NeedsTemplate(Exception):
    """Loop variable ``index`` (a name or a pending return value) is undefined before the loop
    and set by its body."""

    def __init__(self, index, tmpl):
        super().__init__(index)
        self.index, self.tmpl = index, tmpl


_LOOP_KINDS = (tuple, dict)  # containers split into loop variables; a list is a tensor array


class _Slots:
    """The loop's names split into leaves (``convert_flatten``): one loop variable
    per leaf, keyed ``(name index, leaf index)``."""

    def __init__(self, names, values):
        self.names, self.trees, self.counts = names, [], []
        self.keys, self.labels, self.before = [], [], []
        for k, value in enumerate(values):
            leaves, tree = flatten(value, _LOOP_KINDS)
            self.trees.append(tree)
            self.counts.append(len(leaves))
            for j, leaf in enumerate(leaves):
                self.keys.append((k, j))
                self.labels.append(names[k] if tree is structure.LEAF else f"{names[k]}[{j}]")
                self.before.append(leaf)

    def split(self, values, where_):
        """The leaves of ``values`` (one per name), which must keep their structure."""
        out = []
        for k, (value, tree) in enumerate(zip(values, self.trees)):
            leaves, got = flatten(value, _LOOP_KINDS)
            if got != tree:
                raise TypeError(
                    f"variable '{self.names[k]}' is {structure.describe(tree)} before a loop whose "
                    f"condition is a Tensor{where_} and {structure.describe(got)} after its body; "
                    "a loop variable must keep its structure")
            out += leaves
        return out

    def join(self, leaves):
        """One value per name from the leaves."""
        out, it = [], iter(leaves)
        for tree, n in zip(self.trees, self.counts):
            out.append(structure.pack(tree, [next(it) for _ in range(n)]))
        return tuple(out)


def _with_bound_flag(k, body_fn, get_args, set_args, names, where_, before=None):
    """The loop's functions with one more loop variable: the bound flag of name ``k``, which
    may be unbound before the loop (``before``: its flag there, None for undefined; after the
    body, whether it is bound; see :func:`check_bound`). ``finish()``, called after
    the loop is built, records the flag on the name's final value."""
    flag = [before if before is not None else layers().fill_constant([], "bool", False)]
    assigned = [assigned_where(get_args()[k]) if before is not None else ""]

    def get_all():
        return tuple(get_args()) + (flag[0],)

    def set_all(values):
        set_args(values[:-1])
        flag[0] = values[-1]

    def body():
        mark_maybe_unbound(get_args()[k], flag[0], names[k], "")
        body_fn()
        value = get_args()[k]
        assigned[0] = assigned[0] or assigned_where(value)
        flag[0] = bound_flag(value)

    def finish():
        mark_maybe_unbound(get_args()[k], flag[0], names[k],
                           assigned[0] or f" in the loop{where_}")

    return body, get_all, set_all, tuple(names) + (f"__bound_{names[k]}",), finish


def _static_while(cond_fn, body_fn, get_args, set_args, names, fixes=None, attempt=0,
                  templates=None, flagged=frozenset()):
    init_values = get_args()
    where_ = where()
    fixes, templates = dict(fixes or {}), dict(templates or {})
    for k, value in enumerate(init_values):
        if k not in flagged and is_maybe_unbound(value):  # carry its bound flag through
            body2, get2, set2, names2, finish = _with_bound_flag(
                k, body_fn, get_args, set_args, names, where_, bound_flag(value))
            _static_while(cond_fn, body2, get2, set2, names2, fixes, attempt, templates,
                          flagged | {k})
            finish()
            return
    program = default_main_program()
    point = program.checkpoint()
    slots = _Slots(names, [placeholder(templates[k]) if k in templates and is_undefined(v)
                           else v for k, v in enumerate(init_values)])
    init = list(slots.before)
    carried, constants = [], {}
    for s, value in enumerate(init):
        var = _initial(value, fixes.get(slots.keys[s]))
        if var is None:
            constants[s] = value
        else:
            carried.append(s)
            init[s] = var

    def merged(loop_vars):
        values = list(init)
        for s, v in zip(carried, loop_vars):
            values[s] = v
        return slots.join(values)

    def cond(*loop_vars):
        set_args(merged(loop_vars))
        pred = cond_fn()
        if is_union(pred) and pred.truth is not None:
            pred = pred.truth
        return as_predicate(pred) if is_static(pred) else to_variable(bool(pred))

    def body(*loop_vars):
        set_args(merged(loop_vars))
        for s, v in zip(carried, loop_vars):
            if is_guessed(init[s]):
                mark_guessed(v)
            mark_weak(v, is_weak(init[s]))
        try:
            body_fn()
        except ArrayDtypeChanged as e:
            for s, v in zip(carried, loop_vars):
                if v is e.array:
                    if isinstance(slots.before[s], list):
                        raise _Retrace(slots.keys[s], _Fix(e.dtype, None)) from None
                    raise ArrayDtypeChanged(slots.before[s], e.dtype) from None
            raise
        named = get_args()
        for k, (before, value) in enumerate(zip(init_values, named)):
            if is_undefined(before) and k not in templates and not is_undefined(value):
                raise _NeedsTemplate(k, template(value, _LOOP_KINDS))
        values = slots.split(named, where_)
        for s, const in constants.items():
            if values[s] is not const and not (is_undefined(const) and is_undefined(values[s])):
                label = slots.labels[s]
                if label.startswith("__return_value"):
                    raise TypeError(
                        f"a return inside a loop whose condition is a Tensor{where_} returns "
                        f"{kind(values[s])}, and the function's other paths give "
                        f"{kind(const)}; a static loop can only return what the function "
                        "returns on every other path (the same structure of Tensors)")
                raise TypeError(
                    f"variable '{label}' is {kind(const)} before a loop whose condition is "
                    f"a Tensor{where_} and {kind(values[s])} after its body; in a static "
                    "program a loop variable must be a Tensor (or number) before the loop -- "
                    f"assign '{label}' a value of its final type before the loop")
        outs = []
        for s, before in zip(carried, loop_vars):
            var = to_variable(values[s], before)
            if var is None and isinstance(values[s], list) and is_array(before):
                var = list_to_array(values[s], dtype_name(before))  # a list made in the body
            if var is None:
                raise TypeError(f"variable '{slots.labels[s]}' becomes {kind(values[s])} inside "
                                f"a loop whose condition is a Tensor{where_}; it must stay a "
                                "Tensor")
            if not before.shape and var.shape and not _known(var.shape) and \
                    _is_scalar(slots.before[s]):
                raise _unknown_shape_error(slots.labels[s], slots.before[s], var, where_)
            fix = _needed_fix(slots.before[s], var, fixes.get(slots.keys[s]))
            if fix is not None:
                raise _Retrace(slots.keys[s], fix)
            outs.append(var)
        return outs

    try:
        outs = layers().while_loop(cond, body, [init[s] for s in carried])
    except _Retrace as e:
        if attempt > 3 * len(slots.keys) + 2:
            raise RuntimeError(f"the loop{where_} keeps changing the types of its variables "
                               f"{list(names)}") from None
        fixes[e.index] = e.fix
    except _NeedsTemplate as e:
        templates[e.index] = e.tmpl
        if not is_pending(init_values[e.index]):  # a name the loop may leave unbound
            # NOTE: re-trace with one more loop variable, the name's bound flag (see below)
            _undo(program, point, set_args, init_values)
            body2, get2, set2, names2, finish = _with_bound_flag(
                e.index, body_fn, get_args, set_args, names, where_)
            _static_while(cond_fn, body2, get2, set2, names2, fixes, attempt + 1, templates,
                          flagged | {e.index})
            finish()
            return
    else:
        for s, out in zip(carried, outs):
            mark_weak(out, is_weak(init[s]))
        set_args(merged(list(outs)))
        return
    # NOTE: re-trace, each time with more known about the loop variables' entry types (at
    # most a few per variable: a Python number's dtype / rank from the body (_Retrace), an
    # undefined name's structure (_NeedsTemplate)). What a body makes of
    # a Python value is only known by running it, and the loop variables must be typed before.
    _undo(program, point, set_args, init_values)
    return _static_while(cond_fn, body_fn, get_args, set_args, names, fixes, attempt + 1,
                         templates, flagged)

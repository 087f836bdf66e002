"""Tensor control flow in converted code: the one place (this package) that decides whether
an ``if``, a conditional expression, ``and`` / ``or`` / ``not``, a ``while`` or a ``for`` runs
as Python or as a static ``cond`` / ``while_loop`` op, and that builds the op.

The decision is made at run time from the actual condition (or iterable): a static
``Variable`` (``convert_state.is_static``) builds the op; anything else runs plain Python with
exactly Python's semantics (short-circuit included: operands are thunks). A ``while`` whose
condition turns static after some Python iterations becomes one ``while_loop`` from there.

What crosses the op, and how:

* Carried names. The passes (``transformers/ifelse.py``, ``loop.py``) hand each helper the
  names its bodies modify and, from liveness (``static_analysis``), which of them are live
  after it (``live``, ``loop_vars``), plus the attributes / items it assigns (``self.x``,
  ``self.d["k"]``: :class:`Targets`). Bodies are generated functions that rebind the
  enclosing function's names through ``nonlocal``: :func:`carry.carried` reads and writes those
  names (and targets) through the closure cells (``convert_state.closure_state``).
* Structures: one model of Python values, a *nest*. A carried value may be a tuple, list or
  dict (to any depth) of Tensors and Python values: it crosses leaf by leaf
  (:func:`carry.flatten`) and is rebuilt after (``core.static.structure.pack``); tensor leaves
  are operands of the op, Python leaves must be the same on both paths or numbers (which
  become constants). ``cond`` splits tuples, lists and dicts (a list the branches leave
  untouched passes through whole); ``while_loop`` splits them too, except the lists of a name
  whose length the body changes: those become tensor arrays (``tensor_list``; learnt by a
  re-trace), which then behave as the lists they stand for (``len``, iteration, indexing,
  item assignment, slices, ``pop``) and come out of a declarative function as Python lists of
  Tensors. Both paths / the body must otherwise keep a name's structure; a value whose rank
  or structure differs between the paths of an ``if`` is every alternative plus a selector
  (``convert_state.PathUnion``), which may be returned but not computed with.
* Outside state: ``global`` names are carried as items of ``globals()`` (a :class:`Targets`
  entry), ``nonlocal`` names are live after every construct; what the trace leaves in
  attributes, globals and nonlocals is fetched and written back after every run
  (``translator/outside_state.py``).
* One-path names. A name (or attribute, or dict entry) bound on one path only -- one branch
  (also one that ``del``-etes it: ``convert_state.Deleted``), or a loop that may run no
  iteration -- is built anyway: on the other path it holds a placeholder
  (:func:`carry.placeholder`: zeros of the same structure) and the op carries one more output,
  its *bound flag* (a bool Variable). Each later read (``_d2s.check_bound``, which the
  ``unbound`` pass wraps around reads) appends an ``Assert`` on the flag, so a run fails --
  naming the line that assigns the name and the line that reads it -- only when it really takes
  the path that left it unbound. A pending return value (``convert_state.PendingReturn``) gets
  the placeholder without a flag: the return flag guards every read of it. Paths that return
  different structures give a ``convert_state.PathUnion``. A dict entry's flag also answers
  ``key in d`` and chooses what ``d.get(key, default)`` gives (:func:`convert_in`,
  :func:`dict_get`), and a declarative function's result leaves the entry out when its path
  did not run.
* Python numbers. A number crossing a ``cond`` becomes a constant of the dtype both paths
  promote to as eager code promotes them (``convert_state.promoted_dtype``), still *weak*
  (``convert_state.mark_weak``) when it is a number on both; a loop variable holding a Python
  number enters the loop as a weak constant of the dtype and shape the body gives it.

Rollback and re-tracing. What a body makes of a value is only known by tracing it, while an
op's outputs (a loop's entry values) must be typed before. So a trace that learns something
raises one of the package's private exceptions; the helper undoes everything the trace
appended with ``Program.checkpoint()`` / ``rollback_to()`` (:func:`carry.undo`) and traces again
with what it learnt. Each remaining re-trace is marked ``NOTE: re-trace`` with its reason;
each happens at most a few times per carried value.

Layout: this module makes the decision (``convert_ifelse``, ``convert_ifexp``,
``convert_logical_*``, ``convert_compare``, ``convert_while_loop``, ``convert_for_loop``, all
reached from converted code as ``_d2s.<name>``); ``cond`` builds the ``cond`` ops, ``loop`` the
``while_loop`` ops (``core.layers.cond`` / ``while_loop`` underneath), and ``carry`` holds what
both share: carried names and targets, structures and placeholders, bound flags and
``check_bound``, the predicate, and undoing a trace.
"""
import builtins
import functools
import operator

from ..convert_iter import StaticIter, as_static_iter, is_static_iterable, range_item
from ..convert_state import PathUnion, dtype_name, is_static, is_union, layers, where
from .carry import (Targets, as_predicate, carried, check_bound, entry_flag, known_truth,
                    restore_others)
from .cond import static_ifelse, static_ifexp, static_logical
from .loop import NeedsPeel, static_for_loop, static_while

__all__ = [
    "Targets",
    "check_bound",
    "convert_compare",
    "convert_for_loop",
    "convert_ifelse",
    "convert_in",
    "convert_ifexp",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
    "convert_while_loop",
    "dict_get",
    "entry_flag",
]


# -- if / else ------------------------------------------------------------------------------------
# Each branch appends to its own copy of a list, so ``l.append`` under a Tensor ``if`` adds one
# item. Values the branches give a name must have one structure; the Python leaves must be
# equal, except numbers, which become constants of the dtype both paths promote to (eager
# promotion: ``promoted_dtype``). A pending return set by one branch only gets a placeholder
# in the other; paths returning different structures give a ``PathUnion``.
def _truth(pred):
    """``pred``, or for a value that is one of several things (``x and None``) its truth, or
    the truth known on every path of ``x and 0`` / ``x or 3``."""
    if is_union(pred):
        return pred.truth if pred.truth is not None else pred
    known = known_truth(pred)
    return pred if known is None else known


def convert_ifelse(pred, true_fn, false_fn, names=(), live=(), targets=None):
    """``if pred: true_fn() else: false_fn()``; a static ``pred`` builds a ``cond`` op whose
    outputs are the ``live`` names among the modified ``names``, and the attributes / items
    ``targets`` (a :class:`Targets`) the branches assign."""
    pred = _truth(pred)
    if is_static(pred):
        n = len(names)
        get_args, set_args, names = carried(true_fn, names, targets)
        live = tuple(live) + names[n:]  # the targets
        static_ifelse(as_predicate(pred), true_fn, false_fn, get_args, set_args, names, live)
    elif pred:
        true_fn()
    else:
        false_fn()


def convert_ifexp(pred, true_fn, false_fn):
    """``true_fn() if pred else false_fn()``; a static ``pred`` builds a ``cond`` op."""
    pred = _truth(pred)
    if is_static(pred):
        return static_ifexp(as_predicate(pred), true_fn, false_fn)
    return true_fn() if pred else false_fn()


# -- logical operators and comparisons -----------------------------------------------------------
# ``x and y`` / ``x or y`` with a static ``x`` give the operand Python would return (``[0] and
# 999999`` is ``[0]``, not Paddle's 999999); as a ``cond`` output has one dtype, operands of
# different dtypes give their common dtype (``bool_tensor and int_tensor`` is int64).
def convert_logical_and(x_fn, y_fn):
    """``x and y`` with Python's value and short-circuit; a static ``x`` builds a ``cond`` so
    ``y``'s ops run only when ``x`` is true."""
    x = x_fn()
    if is_static(x):
        return static_logical(x, y_fn, x_is_result_when=False)
    return x if not x else y_fn()


def convert_logical_or(x_fn, y_fn):
    """``x or y`` with Python's value and short-circuit (see :func:`convert_logical_and`)."""
    x = x_fn()
    if is_static(x):
        return static_logical(x, y_fn, x_is_result_when=True)
    return x if x else y_fn()


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


# -- dict entries set on one path --------------------------------------------------------------
# An entry a static ``cond`` sets on one path only holds a placeholder on the other and carries
# a bound flag (``carry.entry_flag``): ``key in d`` is that flag, ``d.get(key, default)`` the
# entry or the default, chosen at run time.
def _flag_of_entry(container, key):
    if not isinstance(container, dict):
        return None
    try:
        value = container[key] if key in container else None
    except TypeError:  # an unhashable key: Python's own error comes from the plain test
        return None
    return None if value is None else entry_flag(value)


def convert_in(item, container, negate=False):
    """``item in container`` (``not in`` when ``negate``): for a dict entry set on some paths
    only, its bound flag (a bool Variable), else Python's answer."""
    flag = _flag_of_entry(container, item)
    if flag is not None:
        return layers().logical_not(flag) if negate else flag
    return (item not in container) if negate else (item in container)


def dict_get(d, key, default=None):
    """``d.get(key, default)``: for an entry set on some paths only, the entry or ``default``
    as the run takes it (a ``cond`` for a Tensor ``default`` of the entry's rank; else a
    value that is one of the two, which the function may return or test)."""
    flag = _flag_of_entry(d, key)
    if flag is None:
        return d.get(key, default)
    entry = d[key]
    if is_static(default) and is_static(entry) and \
            len(default.shape or ()) == len(entry.shape or ()):
        return static_ifexp(as_predicate(flag), lambda: entry, lambda: default)
    lay = layers()
    return PathUnion(lay.cast(lay.logical_not(flag), "int64"), [entry, default], flag)


# -- while / for ----------------------------------------------------------------------------------
def convert_while_loop(cond_fn, body_fn, loop_vars=(), targets=None):
    """``while cond_fn(): body_fn()``; from the first static condition on, the rest of the
    loop is a ``while_loop`` op carrying ``loop_vars`` (the modified names live at the loop
    head or after the loop) and the attributes / items ``targets`` the body assigns."""
    pred = cond_fn()
    while True:
        pred = _truth(pred)
        if is_static(pred):
            restore = restore_others(body_fn, loop_vars)
            get_args, set_args, names = carried(body_fn, loop_vars, targets)
            try:
                static_while(cond_fn, body_fn, get_args, set_args, names)
            except NeedsPeel:
                # a variable None before the loop and a Tensor after a trip: the first trip
                # is an ``if`` on the condition, with the loop (now typed) after it inside
                restore()

                def first_trip():
                    body_fn()
                    convert_while_loop(cond_fn, body_fn, loop_vars, targets)

                # NOTE: the names are the body's closure cells (``first_trip`` has none)
                get_args, set_args, names = carried(body_fn, loop_vars, targets)
                static_ifelse(as_predicate(pred), first_trip, lambda: None, get_args,
                              set_args, names, names)
                return
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
    get_args, set_args, names = carried(body_fn, names, targets)
    static_for_loop(it, start, extra_test, body_fn, names, get_args, set_args)
    restore()

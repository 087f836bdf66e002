"""What every runtime helper shares: telling static values from the rest, undefined names,
reading the names a construct modifies, and turning values into static Variables.

* :func:`is_static` -- a static ``Variable`` (a value in a Program being built) takes the
  static path; anything else (Python values, numpy arrays, eager Tensors) runs plain Python.
* :class:`UndefinedVar` -- the value of a name not assigned on the path taken; any use
  raises ``UnboundLocalError`` naming it. :func:`check_defined` applies that to a result.
  :class:`PendingReturn` -- the return value of a function every path of which ends in a
  ``return``, before one has run: under a Tensor condition it may stand for any value (see
  ``control_flow.carry.placeholder``), since the return flag guards every read of it.
* :func:`closure_state` -- branch and loop bodies are generated functions that rebind the
  enclosing function's names through ``nonlocal``; their closure cells give
  ``(get_args, set_args)`` over those names (a name with no value yet reads as undefined).
* :class:`PathUnion` -- a value that is one of several structures, chosen at run time (paths
  under a Tensor condition that return different things).
* :func:`to_variable` -- values crossing a ``cond`` / ``while_loop`` boundary: Python
  numbers become constants, eager tensors and arrays are ``assign``-ed.
* :func:`is_weak` / :func:`mark_weak` -- a constant made from a Python number stands for
  that number, which eager mode promotes as a *weak* scalar (``float32_tensor * i`` stays
  float32): such constants get the ``weak`` flag of core's static Variables, which its dtype
  promotion honours.
* :func:`translating` -- whether a declarative function is being translated now
  (:func:`translation_guard` around it).
"""
import contextlib

import numpy as np

import core
import core.layers
from core import static
from core.dtypes import dtype_name as _name_of_dtype
from core.static import Variable

from . import origin_info

__all__ = [
    "PathUnion",
    "Deleted",
    "PendingReturn",
    "alternatives",
    "UndefinedVar",
    "selector_of",
    "check_defined",
    "closure_state",
    "dtype_name",
    "install_origin_provider",
    "is_static",
    "is_pending",
    "is_union",
    "is_undefined",
    "is_weak",
    "kind",
    "layers",
    "mark_weak",
    "number_dtype",
    "promoted_dtype",
    "to_variable",
    "translating",
    "translation_guard",
    "where",
]


def is_static(value):
    """True for a static Variable (a value in a Program being built)."""
    return isinstance(value, Variable)


def layers():
    """``core.layers``, the functional API the helpers build ops with."""
    return core.layers


_translation = {"depth": 0}


def translating():
    """True while a declarative function is being translated into its Program."""
    return _translation["depth"] > 0


@contextlib.contextmanager
def translation_guard():
    """Marks the code inside as the translation of a declarative function."""
    _translation["depth"] += 1
    try:
        yield
    finally:
        _translation["depth"] -= 1


class UndefinedVar:
    """The value of a name that has not been assigned on the path taken.

    Any use (attribute, operator, call, truth value, iteration, ``str``) raises
    ``UnboundLocalError`` naming the variable and the statement that left it undefined.
    """

    __slots__ = ("_d2s_name", "_d2s_where")

    def __init__(self, name):
        object.__setattr__(self, "_d2s_name", name)
        origin = origin_info.current_user_origin()
        object.__setattr__(self, "_d2s_where", f" at {origin[0]}:{origin[1]}" if origin else "")

    def _d2s_fail(self, *args, **kwargs):
        raise UnboundLocalError(
            f"local variable '{self._d2s_name}' is used but has no value: it is assigned only "
            f"on some paths of the control flow{self._d2s_where} (one branch of an if, or a "
            "loop that did not run); assign it before that statement")

    def __getattr__(self, attr):
        self._d2s_fail()

    def __repr__(self):
        return f"<undefined variable {self._d2s_name!r}>"


def _use_undefined(self, *args, **kwargs):
    self._d2s_fail()  # the subclass's own message (``Deleted``)


for _dunder in ("__bool__", "__call__", "__iter__", "__len__", "__getitem__", "__setitem__",
                "__str__", "__format__", "__int__", "__float__", "__index__", "__neg__",
                "__pos__", "__abs__", "__invert__", "__contains__", "__setattr__", "__hash__"):
    setattr(UndefinedVar, _dunder, _use_undefined)
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(UndefinedVar, f"__{_op}__", _use_undefined)
    setattr(UndefinedVar, f"__r{_op}__", _use_undefined)


class Deleted(UndefinedVar):
    """The value of a name after ``del name`` (the ``unbound`` pass rewrites the statement to
    ``name = _d2s.Deleted('name')``): any use raises ``UnboundLocalError`` as Python does, and
    a static ``cond`` that deletes it on one path only carries its bound flag."""

    __slots__ = ()

    def _d2s_fail(self, *args, **kwargs):
        raise UnboundLocalError(
            f"local variable '{self._d2s_name}' is used but has no value: `del "
            f"{self._d2s_name}`{self._d2s_where} removed it on the path taken")



class PendingReturn(UndefinedVar):
    """The return value of a function whose every path ends in a ``return``, before a
    ``return`` has run (the ``return`` pass's initial value). Used like any
    :class:`UndefinedVar` it raises; a static ``cond`` / ``while_loop`` that sets it on one
    path gives it a placeholder of the same structure on the others."""

    __slots__ = ()


def is_undefined(value):
    return isinstance(value, UndefinedVar)


def is_pending(value):
    return isinstance(value, PendingReturn)


def check_defined(result):
    """``result`` (a function's return value); an undefined value (or one inside a returned
    tuple/list) raises, as returning an unbound name does in Python."""
    for value in result if isinstance(result, (tuple, list)) else (result,):
        if isinstance(value, UndefinedVar):
            value._d2s_fail()
    return result


def closure_state(fn, names):
    """``(get_args, set_args)`` over ``names`` through ``fn``'s closure cells."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    missing = [n for n in names if n not in cells]
    if missing:
        raise RuntimeError(f"generated function {fn.__name__} does not share {missing}")
    chosen = [cells[n] for n in names]

    def get_args():
        values = []
        for name, cell in zip(names, chosen):
            try:
                values.append(cell.cell_contents)
            except ValueError:
                values.append(UndefinedVar(name))
        return tuple(values)

    def set_args(values):
        for cell, value in zip(chosen, values):
            cell.cell_contents = value

    return get_args, set_args


class PathUnion:
    """What a function returns when its paths under a Tensor condition return different
    structures (a tuple on one, a Tensor or None on another): every path's value
    (``alternatives``, static leaves filled with placeholders on the other paths) and an int64
    ``selector`` Variable saying at run time which one the path taken returned. The
    declarative call returns that alternative; anything else done with it is an error."""

    __slots__ = ("selector", "alternatives", "truth")

    def __init__(self, selector, alternatives, truth=None):
        object.__setattr__(self, "selector", selector)
        object.__setattr__(self, "alternatives", list(alternatives))
        #: the value's truth where it is known (``x or None``: a bool Variable; ``x and None``:
        #: the Python False, the same on every path), else None
        object.__setattr__(self, "truth", truth)

    def __getattr__(self, attr):
        raise AttributeError(
            f"this value is {len(self.alternatives)} different structures on different paths "
            "of a Tensor condition (the paths return different things); it can only be "
            f"returned from the declarative function, not used (.{attr})")

    def __repr__(self):
        return f"<one of {len(self.alternatives)} path results>"

    def __bool__(self):
        raise TypeError(f"the truth value of a value that is one of {len(self.alternatives)} "
                        "things chosen at run time is not known while the program is built; "
                        "use it directly as an if / while condition, or return it")


def _union_operand(self, *args):
    shapes = ", ".join(str(getattr(a, "shape", type(a).__name__)) for a in self.alternatives)
    raise TypeError(
        f"this value differs in structure or rank between the paths of a Tensor condition "
        f"({shapes}){where()}; it can only be returned from the declarative function: give "
        "it one rank on every path (e.g. broadcast or reshape it in the branch that does not "
        "change it) to compute with it")


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lt", "le",
            "gt", "ge", "eq", "ne", "and", "or", "xor"):
    setattr(PathUnion, f"__{_op}__", _union_operand)
    setattr(PathUnion, f"__r{_op}__", _union_operand)
for _op in ("neg", "pos", "abs", "iter", "len"):
    setattr(PathUnion, f"__{_op}__", _union_operand)


def _union_item(self, key):
    """``value[key]`` of a value that is one of several containers (a list a Tensor
    condition's paths filled with different things) under a Python key: the item of each
    alternative, chosen by the same selector (itself, where every path holds the same
    object). A Tensor key, a Tensor alternative or a path lacking the key cannot be chosen
    at run time this way: the error says what can be done instead."""
    if isinstance(key, (bool, int, str, slice)) and all(
            isinstance(a, (list, tuple, dict)) for a in self.alternatives):
        try:
            items = [a[key] for a in self.alternatives]
        except (IndexError, KeyError, TypeError):
            items = None
        if items is not None:
            if all(item is items[0] for item in items):
                return items[0]
            return PathUnion(self.selector, items)
    return _union_operand(self)


PathUnion.__getitem__ = _union_item


def is_union(value):
    return isinstance(value, PathUnion)


def union_setitem(value, key, item):
    """``value[key] = item`` on a PathUnion of lists / dicts under a Python key: a PathUnion
    of copies with the item set (the alternatives are other paths' values: none is changed in
    place), or the one container when the copies are then alike (the same items on every
    path). A Tensor key or another kind of alternative: a TypeError saying what to do."""
    if not isinstance(key, (bool, int, str)) or not all(
            isinstance(a, (list, dict)) for a in value.alternatives):
        raise TypeError(
            f"cannot assign item {key!r} of a value that is one of "
            f"{len(value.alternatives)} different things on the paths of a Tensor condition "
            "(a list or dict the branches filled differently); assign it in each branch, or "
            "give it one structure before the if")
    new = []
    for alt in value.alternatives:
        alt = type(alt)(alt)
        try:
            alt[key] = item
        except IndexError:
            raise IndexError(f"list assignment index {key} out of range on a path of a Tensor "
                             "condition") from None
        new.append(alt)
    first = new[0]
    if all(alike(a, first) for a in new[1:]):
        return first
    return PathUnion(value.selector, new)


def alike(a, b):
    """Whether containers ``a`` and ``b`` hold the same objects (keys, items, in order)."""
    if type(a) is not type(b) or len(a) != len(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(a[k] is b[k] for k in a)
    return all(x is y for x, y in zip(a, b))


def alternatives(value):
    """The alternatives of a :class:`PathUnion`, else ``[value]``."""
    return value.alternatives if isinstance(value, PathUnion) else [value]


def selector_of(value):
    """The selector of a :class:`PathUnion`, else None (alternative 0)."""
    return value.selector if isinstance(value, PathUnion) else None


_NUMBER_DTYPES = ((bool, "bool"), (int, "int64"), (float, "float32"))


def dtype_name(value):
    """The dtype name (``'float32'``) of a tensor-like ``value``."""
    return _name_of_dtype(value.dtype)


def number_dtype(value):
    """The dtype name a Python number becomes on its own (bool, int64, float32)."""
    return next(d for t, d in _NUMBER_DTYPES if isinstance(value, t))


def is_weak(value):
    """True for a Python number, or a Variable marked as standing for one."""
    return isinstance(value, (bool, int, float)) or bool(getattr(value, "weak", False))


def stand_in(value):
    """The Python number a weak static Variable stands for, as a value of its kind (``False``,
    ``0``, ``0.0``); None for anything else."""
    if is_static(value) and getattr(value, "weak", False):
        return _STAND_IN.get(np.dtype(value.dtype).kind)
    return None


def mark_weak(var, weak=True):
    """Mark static Variable ``var`` as standing for a Python number."""
    if is_static(var):
        var.weak = bool(weak)
    return var


_KINDS = "biuf"  # bool < integer < float, as numpy promotes
_STAND_IN = {"b": False, "i": 0, "u": 0, "f": 0.0}  # a Python scalar of each kind


def _np_dtype(value):
    return np.dtype(number_dtype(value)) if isinstance(value, (bool, int, float)) else \
        np.dtype(value.dtype)


def promoted_dtype(a, b):
    """The dtype name eager code gives ``a`` combined with ``b`` (each a Python number or a
    tensor; a weak Variable stands for a Python number): numpy-2 promotion, where a weak value
    promotes as a Python scalar of its kind (``float32`` with ``2`` is ``float32``, ``int64``
    with ``2.5`` is ``float64``) and two weak values give the number dtype of the higher kind
    (``1`` and ``2.5``: ``float32``). None unless both are bool, integer or float."""
    da, db = _np_dtype(a), _np_dtype(b)
    if da.kind not in _KINDS or db.kind not in _KINDS:
        return None
    weak_a, weak_b = is_weak(a), is_weak(b)
    if weak_a and weak_b:
        return _name_of_dtype(da if _KINDS.index(da.kind) >= _KINDS.index(db.kind) else db)
    if weak_a:
        return _name_of_dtype(np.result_type(db, _STAND_IN[da.kind]))
    if weak_b:
        return _name_of_dtype(np.result_type(da, _STAND_IN[db.kind]))
    return _name_of_dtype(np.result_type(da, db))


def to_variable(value, like=None):
    """A static Variable for ``value`` (a Variable, eager tensor, ndarray or Python number);
    a Python number takes the dtype it promotes to with ``like`` when ``like`` is a tensor
    (:func:`promoted_dtype`: never a narrower kind, so ``2.5`` beside an int tensor stays
    2.5), and stays weak unless ``like`` is a strong tensor. None for anything else."""
    if is_static(value):
        return value
    if is_undefined(value):
        return None
    if isinstance(value, (bool, int, float)):
        if like is not None and hasattr(like, "dtype"):
            dtype = promoted_dtype(value, like) or dtype_name(like)
        else:
            dtype = number_dtype(value)
        return mark_weak(layers().fill_constant([], dtype, value), like is None or is_weak(like))
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return layers().assign(value)
    return None


def kind(value):
    """A short description of ``value`` for error messages (``'a Tensor'``, ``'list'``)."""
    if is_undefined(value):
        return "undefined"
    if value is None:
        return "None"
    if isinstance(value, PathUnion):
        return f"one of {len(value.alternatives)} structures"
    if isinstance(value, (tuple, list, dict)):
        return f"a {type(value).__name__} of {len(value)}"
    return "a Tensor" if is_static(value) or hasattr(value, "dtype") else type(value).__name__


def where():
    """`` (file:line)`` of the user's statement being converted, or ``''``."""
    origin = origin_info.current_user_origin()
    return f" ({origin[0]}:{origin[1]})" if origin else ""


def install_origin_provider():
    """Make static ops record the user's line (``core.static.builder.set_origin_provider``)."""
    if _origin_state["installed"] or core.in_dynamic_mode():
        return
    static.set_origin_provider(origin_info.current_user_origin)
    _origin_state["installed"] = True


_origin_state = {"installed": False}

"""What crosses a static ``cond`` / ``while_loop`` (see the package docstring): the carried
names and attribute / item targets, nested values split into leaves and their placeholders,
the bound flags of one-path names and their run-time check, the predicate, and undoing a
trace before tracing again.
"""
import weakref

from core import in_dynamic_mode
from core.static import default_main_program, structure

from ..convert_state import (UndefinedVar, closure_state, dtype_name, is_static, is_undefined,
                             layers, mark_weak, where)
from ..tensor_list import is_array


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

    def present(self):
        """The entries whose owner is bound now (before the construct): the owner of
        another is a name the construct itself binds (``d = {}; d['k'] = v`` in a branch),
        which carries the object with its items."""
        kept = []
        for entry in self.entries:
            try:
                entry[0]()
            except UnboundLocalError:
                continue
            except Exception:  # the read fails again where the user's code reads it
                pass
            kept.append(entry)
        return self if len(kept) == len(self.entries) else Targets(*kept)

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


def carried(fn, names, targets):
    """``(get, set, names)``: the names ``names`` that generated body ``fn`` rebinds (through
    its closure cells), then the attributes / items ``targets`` (a :class:`Targets` or None)."""
    get_args, set_args = closure_state(fn, names)
    return with_targets(get_args, set_args, names,
                        None if targets is None else targets.present())


def undo(program, point, set_args, values):
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
# Variable -> the Python bool its truth is on every path (``x and 0``: False)
_known_truths = _ByIdentity()


def set_known_truth(var, truth):
    """Record that ``var``'s truth is the Python bool ``truth`` on every path."""
    _known_truths[var] = bool(truth)


def known_truth(value):
    """The Python bool recorded by :func:`set_known_truth` for ``value``, else None."""
    return _known_truths.get(value) if _known_truths and is_static(value) else None


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


def entry_flag(value):
    """The bound flag of ``value`` when a static leaf of it holds a value only on some paths
    (a dict entry set under a Tensor condition), else None."""
    if not _maybe_unbound:
        return None
    for leaf in _static_leaves(value):
        info = _flag_of(leaf)
        if info is not None:
            return info[0]
    return None


def flag_info(leaf):
    """``(bound flag, name, "assigned at" text)`` of a static leaf bound on some paths only
    (visible from the current block), else None."""
    return _flag_of(leaf) if is_static(leaf) and _maybe_unbound else None


def _name_info(value, name):
    """The flag info recorded for the name ``name`` on a static leaf of ``value``, else None."""
    if _maybe_unbound:
        for leaf in _static_leaves(value):
            info = _flag_of(leaf)
            if info is not None and info[1] == name:
                return info
    return None


def has_name_flag(value, name):
    """True when a static leaf of ``value`` has a bound flag recorded for the name ``name``."""
    return _name_info(value, name) is not None


def name_flag(value, name):
    """The bound flag of the name ``name`` holding ``value`` on the path just traced: False
    for an undefined value, the flag recorded for that name, else True. A leaf inside the
    value with a flag of its own (a dict entry set on one path, recorded under its item
    label) does not make the name itself maybe unbound."""
    if is_undefined(value):
        return layers().fill_constant([], "bool", False)
    info = _name_info(value, name)
    return layers().fill_constant([], "bool", True) if info is None else info[0]


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
    if not _maybe_unbound:
        return value
    for leaf in _static_leaves(value):
        info = _flag_of(leaf)
        # a leaf of a container read whole is checked only for the container's own flag (a
        # dict entry set on one path has its own, checked where the entry is read)
        if info is not None and (info[1] == name or is_static(value)):
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

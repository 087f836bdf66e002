"""Building a ``while_loop`` for a ``while`` whose condition is static and for a ``for`` over a
static iterable (the package docstring describes the mechanism).
"""
import collections

from core.static import default_main_program, structure

from ..convert_state import (dtype_name, is_pending, is_static, is_undefined, is_union, is_weak,
                             kind, layers, mark_weak, number_dtype, to_variable, where)
from ..tensor_list import ArrayDtypeChanged, is_array, is_guessed, list_to_array, mark_guessed
from .carry import (as_predicate, assigned_where, bound_flag, flatten, is_maybe_unbound,
                    mark_maybe_unbound, placeholder, template, undo)
from .cond import ListLengthDiffers, static_logical


def static_for_loop(it, start, extra_test, body_fn, names, get_args, set_args):
    """``for`` over static iterable ``it`` (a ``convert_iter.StaticIter``) from index
    ``start``, stopping when ``extra_test()`` is false: a ``while_loop`` over an index."""
    # the index stands for a Python int (what range / enumerate give eagerly): weak, so
    # ``float32_tensor * i`` stays float32 as in eager mode
    index = [mark_weak(layers().fill_constant([], "int64", start))]
    length = it.length

    def cond_fn():
        more = index[0] < length
        if extra_test is None:
            return more
        return static_logical(more, extra_test, x_is_result_when=False)  # more and extra_test

    def loop_body():
        body_fn(it.item(index[0]))
        index[0] = index[0] + 1

    def get_all():
        return tuple(get_args()) + (index[0],)

    def set_all(values):
        set_args(values[:-1])
        index[0] = values[-1]

    static_while(cond_fn, loop_body, get_all, set_all, tuple(names) + ("__index",))


# -- the static loop ------------------------------------------------------------------------------
# Loop variables cross into the op as Variables: Python numbers become constants, Python lists
# tensor arrays (``tensor_list``). What a Python number stands for is only known from the body,
# so when a loop variable comes back from the body with another type the loop is traced again
# with a better initial value:
# * a Python number whose body result has another dtype starts as a constant of that dtype;
# * a Python number or 0-d value whose body result has rank > 0 (``s = 0; for v in x: s = s +
#   v``) starts broadcast to the result's shape and dtype, which equals eager for any
#   elementwise accumulation (a loop that runs no iteration gives that broadcast value);
# * an empty list's tensor array, its element dtype guessed, takes the dtype appended.
# Anything else (a dtype change of a Tensor, a rank change of a Tensor of rank > 0, unknown
# dims) is left to ``while_loop``'s own error. A tuple or dict splits into one loop variable
# per leaf (:class:`_Slots`) and must keep its structure. A name first bound in the body and
# used after the loop, or a pending return value the body sets, enters as a placeholder of the
# structure the body gives it; such a name also gets a bound-flag loop variable.
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


def _check_array_items(values, label):
    """A list a tensor loop changes the length of becomes a tensor array, which holds tensors
    (and numbers): a clear error for any other item it holds before the loop."""
    for k, v in enumerate(values):
        if not (is_static(v) or _is_number(v) or (hasattr(v, "shape") and hasattr(v, "dtype"))):
            raise TypeError(
                f"list '{label}' changes length in a loop whose condition is a Tensor, so the "
                f"loop holds it as a tensor array, but its item {k} before the loop is "
                f"{type(v).__name__} {v!r:.60}: a tensor array holds Tensors and numbers -- "
                f"make the items Tensors (paddle.to_tensor) or keep the list out of the loop")


def _initial(value, fix):
    """The Variable a loop variable enters the loop as (None: not a Tensor; kept as is)."""
    if isinstance(value, list):
        return list_to_array(value, None if fix is None else fix.dtype)
    if fix is None:
        return to_variable(value)
    lay = layers()
    if _is_number(value):
        return mark_weak(lay.fill_constant(list(fix.shape or ()), fix.dtype, value), fix.weak)
    var = original = to_variable(value)
    if dtype_name(var) != fix.dtype:
        var = lay.cast(var, fix.dtype)
    if fix.shape:
        var = lay.expand(lay.reshape(var, [1] * len(fix.shape)), list(fix.shape))
    return var if var is original else mark_weak(var, fix.weak)


def _needed_fix(before, after, fix):
    """The :data:`_Fix` loop variable ``before`` (its value before the loop) should enter
    the loop with, given its body result ``after`` (a Variable); None when it is right."""
    if isinstance(before, list) or not _is_scalar(before):
        return None
    shape = tuple(after.shape or ())
    # a Python number, or a Variable standing for one (a number a cond chose): its type
    # may change in the body, as a Python name's may
    number = _is_number(before) or (is_static(before) and is_weak(before))
    if (shape and not _known(shape)) or (not shape and not number):
        return None  # left to while_loop: a 0-d tensor keeps its dtype
    observed = _Fix(dtype_name(after), shape or None, number and is_weak(after))
    if observed == (fix or _Fix(_entry_dtype(before), None, number)):
        return None
    return observed


def _dtype_change_error(name, before, var, where_):
    """A Tensor loop variable whose body gives it another dtype (``float32_x += int32_i`` is
    float64 eagerly): eagerly its dtype after the loop depends on the trip count."""
    label = "the return value" if name.startswith("__return_value") else f"variable '{name}'"
    return TypeError(
        f"{label} is {dtype_name(before)} before a loop whose condition is a Tensor{where_} "
        f"and {dtype_name(var)} after its body (as eagerly, where the dtype after the loop "
        "depends on how many times it runs); a static loop variable keeps one dtype -- cast "
        f"it to {dtype_name(var)} before the loop, or the body's result back to "
        f"{dtype_name(before)}")


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


# Containers split into loop variables. A list is split too (one loop variable per item)
# unless the body changes its length: then that name's lists are tensor arrays
# (``_NeedsArray``, ``tensor_list``).
_LOOP_KINDS = (tuple, dict)


class NeedsPeel(TypeError):
    """A loop variable is None before a Tensor loop and a Tensor after one trip of its body
    (``cache = None`` ... ``cache = y``): ``convert_while_loop`` runs the first trip as a
    Tensor ``if`` around the loop, after which it is a Tensor (eagerly the first trip sees
    None, the later ones the Tensor)."""


class _NeedsArray(Exception):
    """The body changes the length of a list in name ``index``: its lists become tensor
    arrays."""

    def __init__(self, index):
        super().__init__(index)
        self.index = index


class _Slots:
    """The loop's names split into leaves (``convert_flatten``): one loop variable
    per leaf, keyed ``(name index, leaf index)``. The lists of the names ``arrays`` are leaves
    (tensor arrays); other names' lists are split like tuples."""

    def __init__(self, names, values, arrays=frozenset()):
        self.names, self.trees, self.counts = names, [], []
        self.keys, self.labels, self.before = [], [], []
        self.kinds = [_LOOP_KINDS if k in arrays else structure.ALL for k in range(len(names))]
        for k, value in enumerate(values):
            leaves, tree = flatten(value, self.kinds[k])
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
            leaves, got = flatten(value, self.kinds[k])
            if got != tree and self.kinds[k] is not _LOOP_KINDS and \
                    flatten(value, _LOOP_KINDS)[1] == flatten(
                        structure.pack(tree, [None] * self.counts[k]), _LOOP_KINDS)[1]:
                raise _NeedsArray(k)  # only a list's length differs
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


def static_while(cond_fn, body_fn, get_args, set_args, names, fixes=None, attempt=0,
                  templates=None, flagged=frozenset(), arrays=frozenset()):
    """The ``while_loop`` of ``while cond_fn(): body_fn()`` carrying ``names`` (read / written
    by ``get_args`` / ``set_args``), split into leaves. ``fixes`` (entry types of loop
    variables), ``templates`` (placeholders of names the body first binds) and ``flagged``
    (names carrying a bound flag) and ``arrays`` (names whose lists change length: tensor
    arrays) are what earlier traces learnt; ``attempt`` counts them."""
    init_values = get_args()
    where_ = where()
    fixes, templates = dict(fixes or {}), dict(templates or {})
    for k, value in enumerate(init_values):
        if k not in flagged and is_maybe_unbound(value):  # carry its bound flag through
            body2, get2, set2, names2, finish = _with_bound_flag(
                k, body_fn, get_args, set_args, names, where_, bound_flag(value))
            static_while(cond_fn, body2, get2, set2, names2, fixes, attempt, templates,
                          flagged | {k}, arrays)
            finish()
            return
    program = default_main_program()
    point = program.checkpoint()
    slots = _Slots(names, [placeholder(templates[k]) if k in templates and is_undefined(v)
                           else v for k, v in enumerate(init_values)], arrays)
    init = list(slots.before)
    carried, constants = [], {}
    for s, value in enumerate(init):
        if isinstance(value, list):
            _check_array_items(value, slots.labels[s])
        var = _initial(value, fixes.get(slots.keys[s]))
        if var is None:
            constants[s] = value
        else:
            carried.append(s)
            init[s] = var

    # a loop that carries nothing (its state changes in place: ``increment(v, in_place=True)``,
    # or only an empty list it may grow) still needs one loop variable: a step count
    spare = [] if carried else [layers().fill_constant([], "int64", 0)]

    def merged(loop_vars):
        values = list(init)
        for s, v in zip(carried, loop_vars):
            values[s] = v
        return slots.join(values)

    def cond(*loop_vars):
        loop_vars = loop_vars[:len(carried)]
        set_args(merged(loop_vars))
        pred = cond_fn()
        if is_union(pred) and pred.truth is not None:
            pred = pred.truth
        return as_predicate(pred) if is_static(pred) else to_variable(bool(pred))

    def body(*loop_vars):
        loop_vars, step = loop_vars[:len(carried)], loop_vars[len(carried):]
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
                raise _NeedsTemplate(k, template(value, slots.kinds[k]))
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
                error = (
                    f"variable '{label}' is {kind(const)} before a loop whose condition is "
                    f"a Tensor{where_} and {kind(values[s])} after its body; in a static "
                    "program a loop variable must be a Tensor (or number) before the loop -- "
                    f"assign '{label}' a value of its final type before the loop")
                if const is None and is_static(values[s]):
                    raise NeedsPeel(error)
                raise TypeError(error)
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
            if dtype_name(var) != dtype_name(before) and not is_array(before):
                raise _dtype_change_error(slots.labels[s], before, var, where_)
            outs.append(var)
        return outs + [v + 1 for v in step]

    try:
        outs = layers().while_loop(cond, body, [init[s] for s in carried] + spare)
        outs = list(outs)[:len(carried)]
    except _Retrace as e:
        if attempt > 3 * len(slots.keys) + 2:
            raise RuntimeError(f"the loop{where_} keeps changing the types of its variables "
                               f"{list(names)}") from None
        fixes[e.index] = e.fix
    except _NeedsTemplate as e:
        templates[e.index] = e.tmpl
        if not is_pending(init_values[e.index]):  # a name the loop may leave unbound
            # NOTE: re-trace with one more loop variable, the name's bound flag (see below)
            undo(program, point, set_args, init_values)
            body2, get2, set2, names2, finish = _with_bound_flag(
                e.index, body_fn, get_args, set_args, names, where_)
            static_while(cond_fn, body2, get2, set2, names2, fixes, attempt + 1, templates,
                          flagged | {e.index}, arrays)
            finish()
            return
    except _NeedsArray as e:
        # NOTE: re-trace (once per name): the body changes a list's length, so the name's
        # lists enter the loop as tensor arrays
        arrays = arrays | {e.index}
    except NeedsPeel:
        undo(program, point, set_args, init_values)
        raise
    except ListLengthDiffers as e:
        # a Tensor ``if`` in the body leaves a loop variable's list with different lengths
        # on its paths (``a.pop()`` on one): the name's lists enter the loop as tensor arrays
        index = names.index(e.name) if e.name in names else None
        if index is None or index in arrays:
            raise
        arrays = arrays | {index}
    else:
        for s, out in zip(carried, outs):
            mark_weak(out, is_weak(init[s]))
        set_args(merged(list(outs)))
        return
    # NOTE: re-trace, each time with more known about the loop variables' entry types (at
    # most a few per variable: a Python number's dtype / rank from the body (_Retrace), an
    # undefined name's structure (_NeedsTemplate)). What a body makes of
    # a Python value is only known by running it, and the loop variables must be typed before.
    undo(program, point, set_args, init_values)
    return static_while(cond_fn, body_fn, get_args, set_args, names, fixes, attempt + 1,
                         templates, flagged, arrays)

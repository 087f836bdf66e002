"""Runtime helpers called by converted code (available there as ``_d2s``).

Each helper decides at run time, from the actual values, which path to take:

* a static ``Variable`` (a value in a Program being built) -> the static op
  (``core.layers.cond``, ``while_loop``, ``cast``, ``shape``, ``Print``, ``Assert``, ...);
* anything else -- Python values, numpy arrays, eager Tensors (whose ``bool()`` works) ->
  plain Python, with exactly Python's semantics.

Control flow: branch and loop bodies are generated functions without arguments that rebind
the enclosing function's names through ``nonlocal``; ``names`` lists the names a construct
may modify. The runtime reads and rebinds them through those functions' closure cells
(:func:`_state`), so a name with no value yet reads as an :class:`UndefinedVar` instead of
failing. The Tensor paths are the ``_static_*`` functions; values crossing a ``cond`` /
``while_loop`` boundary are normalised by ``_to_variable`` (Python numbers become constants,
eager tensors are ``assign``-ed).
"""
import builtins
import functools
import operator
import types

from . import origin_info

__all__ = [
    "UndefinedVar",
    "convert_assert",
    "convert_call",
    "convert_cast",
    "convert_compare",
    "convert_enumerate",
    "convert_for_loop",
    "convert_ifelse",
    "convert_ifexp",
    "convert_len",
    "convert_list_append",
    "convert_list_pop",
    "convert_logical_and",
    "convert_logical_not",
    "convert_logical_or",
    "convert_print",
    "convert_range",
    "convert_shape",
    "convert_while_loop",
    "convert_zip",
    "install_origin_provider",
    "is_static",
]


def is_static(value):
    """True for a static Variable (it has a ``block``; eager tensors have none)."""
    if type(value) is UndefinedVar:
        return False
    return getattr(value, "block", None) is not None and hasattr(value, "persistable") and \
        not _is_eager_tensor(value)


def _is_eager_tensor(value):
    from core.tensor import Tensor

    return isinstance(value, Tensor)


def _layers():
    import core.layers

    return core.layers


class UndefinedVar:
    """The value of a name that has not been assigned on the path taken.

    Any use (attribute, operator, call, truth value, iteration, ``str``) raises
    ``UnboundLocalError`` naming the variable and the statement that left it undefined.
    """

    __slots__ = ("_d2s_name", "_d2s_where")

    def __init__(self, name):
        object.__setattr__(self, "_d2s_name", name)
        where = origin_info.current_user_origin()
        object.__setattr__(self, "_d2s_where", f" at {where[0]}:{where[1]}" if where else "")

    def _d2s_fail(self, *args, **kwargs):
        raise UnboundLocalError(
            f"local variable '{self._d2s_name}' is used but has no value: it is assigned only "
            f"on some paths of the control flow{self._d2s_where} (one branch of an if, or a "
            "loop that did not run); assign it before that statement")

    def __getattr__(self, attr):
        self._d2s_fail()

    def __repr__(self):
        return f"<undefined variable {self._d2s_name!r}>"


for _dunder in ("__bool__", "__call__", "__iter__", "__len__", "__getitem__", "__setitem__",
                "__str__", "__format__", "__int__", "__float__", "__index__", "__neg__",
                "__pos__", "__abs__", "__invert__", "__contains__", "__setattr__", "__hash__"):
    setattr(UndefinedVar, _dunder, UndefinedVar._d2s_fail)
for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(UndefinedVar, f"__{_op}__", UndefinedVar._d2s_fail)
    setattr(UndefinedVar, f"__r{_op}__", UndefinedVar._d2s_fail)


def is_undefined(value):
    return type(value) is UndefinedVar


def check_defined(result):
    """``result`` (a function's return value); an undefined value (or one inside a returned
    tuple/list) raises, as returning an unbound name does in Python."""
    for value in result if isinstance(result, (tuple, list)) else (result,):
        if type(value) is UndefinedVar:
            value._d2s_fail()
    return result


def _state(fn, names):
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


# -- if / else ------------------------------------------------------------------------------------
def convert_ifelse(pred, true_fn, false_fn, names=(), live=()):
    """``if pred: true_fn() else: false_fn()``; a static ``pred`` builds a ``cond`` op whose
    outputs are the ``live`` names among the modified ``names``."""
    if is_static(pred):
        get_args, set_args = _state(true_fn, names)
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


_NUMBER_DTYPES = ((bool, "bool"), (int, "int64"), (float, "float32"))


def _dtype_name(value):
    from core.dtypes import dtype_name

    return dtype_name(value.dtype)


def _to_variable(value, like=None):
    """A static Variable for ``value`` (a Variable, eager tensor, ndarray or Python number);
    Python numbers take ``like``'s dtype when ``like`` is a tensor."""
    if is_static(value):
        return value
    if is_undefined(value):
        return None
    layers = _layers()
    if isinstance(value, (bool, int, float)):
        if like is not None and hasattr(like, "dtype"):
            dtype = _dtype_name(like)
        else:
            dtype = next(d for t, d in _NUMBER_DTYPES if isinstance(value, t))
        return layers.fill_constant([], dtype, value)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return layers.assign(value)
    return None


def _kind(value):
    if is_undefined(value):
        return "undefined"
    if value is None:
        return "None"
    return "a Tensor" if is_static(value) or hasattr(value, "dtype") else type(value).__name__


def _branch_error(name, sides, values, where):
    if name.startswith("__return_value"):
        return TypeError(
            f"under a Tensor condition{where} the function returns {_kind(values[0])} on one "
            f"path and {_kind(values[1])} on another; in a static program every path must "
            "return Tensors of the same structure")
    return TypeError(
        f"variable '{name}' is {_kind(values[0])} after the {sides[0]} branch but "
        f"{_kind(values[1])} after the {sides[1]} branch of an if whose condition is a "
        f"Tensor{where}; in a static program both branches must give it a Tensor (or leave "
        "it unchanged) -- assign it before the if or in both branches")


def _where():
    origin = origin_info.current_user_origin()
    return f" ({origin[0]}:{origin[1]})" if origin else ""


def _static_ifelse(pred, true_fn, false_fn, get_args, set_args, names, live):
    init = tuple(get_args())
    where = _where()
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
                    var = _to_variable(value, init[k])
                    if var is None:
                        passthrough[k] = value
                        continue
                    outs.append(var)
                    continue
                other = first[1][k]
                if k in passthrough:
                    if value is not other:
                        raise _branch_error(names[k], (first[0], side), (other, value), where)
                    continue
                var = _to_variable(value, other if hasattr(other, "dtype") else init[k])
                if var is None:
                    raise _branch_error(names[k], (first[0], side), (other, value), where)
                outs.append(var)
            return tuple(outs)
        return run

    outs = _layers().cond(pred, branch(true_fn, "true"), branch(false_fn, "false"))
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
            var = _to_variable(value, first[0] if first else None)
            if var is None:
                raise TypeError(f"a conditional expression with a Tensor condition{_where()} "
                                f"must give Tensors or numbers on both sides, got {_kind(value)}")
            first.append(var)
            return var
        return run

    return _layers().cond(pred, branch(true_fn), branch(false_fn))


# -- loops ----------------------------------------------------------------------------------------
def convert_while_loop(cond_fn, body_fn, loop_vars=()):
    """``while cond_fn(): body_fn()``; from the first static condition on, the rest of the
    loop is a ``while_loop`` op carrying ``loop_vars`` (the modified names live at the loop
    head or after the loop)."""
    pred = cond_fn()
    while True:
        if is_static(pred):
            get_args, set_args = _state(body_fn, loop_vars)
            _static_while(cond_fn, body_fn, get_args, set_args, loop_vars)
            return
        if not pred:
            return
        body_fn()
        pred = cond_fn()


class _DtypeChanged(Exception):
    """A loop variable made from a Python number / empty list needs another dtype: the loop
    is traced again with that dtype (``index`` or the ``array`` it concerns)."""

    def __init__(self, index, dtype, array=None):
        super().__init__(index, dtype)
        self.index, self.dtype, self.array = index, dtype, array


def _static_while(cond_fn, body_fn, get_args, set_args, names, dtypes=None):
    init = list(get_args())
    where = _where()
    dtypes = dict(dtypes or {})
    carried, constants = [], {}
    for k, value in enumerate(init):
        if isinstance(value, list):
            value = init[k] = _list_to_array(value, dtypes.get(k))
        if isinstance(value, (bool, int, float)) and k in dtypes:
            var = _layers().fill_constant([], dtypes[k], value)
        else:
            var = _to_variable(value)
        if var is None:
            constants[k] = value
        else:
            carried.append(k)
            init[k] = var

    def merged(loop_vars):
        values = list(init)
        for k, v in zip(carried, loop_vars):
            values[k] = v
        return tuple(values)

    def cond(*loop_vars):
        set_args(merged(loop_vars))
        pred = cond_fn()
        return pred if is_static(pred) else _to_variable(bool(pred))

    def body(*loop_vars):
        set_args(merged(loop_vars))
        for k, v in zip(carried, loop_vars):
            if id(init[k]) in _guessed_arrays:
                _guessed_arrays.add(id(v))
        try:
            body_fn()
        except _DtypeChanged as e:
            for k, v in zip(carried, loop_vars):
                if e.array is not None and v is e.array:
                    raise _DtypeChanged(k, e.dtype) from None
            raise
        values = get_args()
        for k, const in constants.items():
            if values[k] is not const:
                raise TypeError(
                    f"variable '{names[k]}' is {_kind(const)} before a loop whose condition is "
                    f"a Tensor{where} and {_kind(values[k])} after its body; in a static "
                    "program a loop variable must be a Tensor (or number) before the loop -- "
                    f"assign '{names[k]}' a value of its final type before the loop")
        outs = []
        for k, before in zip(carried, loop_vars):
            var = _to_variable(values[k], before)
            if var is None:
                raise TypeError(f"variable '{names[k]}' becomes {_kind(values[k])} inside a "
                                f"loop whose condition is a Tensor{where}; it must stay a Tensor")
            if isinstance(init_values[k], (bool, int, float)) and var.dtype != before.dtype:
                raise _DtypeChanged(k, _dtype_name(var))
            outs.append(var)
        return outs

    init_values = get_args()
    try:
        outs = _layers().while_loop(cond, body, [init[k] for k in carried])
    except _DtypeChanged as e:
        set_args(init_values)
        index = e.index if e.array is None else next(
            (k for k, v in enumerate(init) if v is e.array), None)
        if index is None or index in dtypes:
            raise
        dtypes[index] = e.dtype
        return _static_while(cond_fn, body_fn, get_args, set_args, names, dtypes)
    set_args(merged(list(outs)))


def convert_for_loop(iterable, extra_test, body_fn, loop_vars=()):
    """``for item in iterable: body_fn(item)`` stopping when ``extra_test()`` is false (loops
    with ``break``/``return``). A static iterable (Variable, static range/enumerate/zip) loops
    with a ``while_loop`` over an index; a Python ``range`` whose extra test turns static
    continues as one from the current index."""
    if isinstance(iterable, _StaticIter) or is_static(iterable):
        _static_for(_as_static_iter(iterable), 0, extra_test, body_fn, loop_vars)
        return
    items = iterable if isinstance(iterable, range) else builtins.iter(iterable)
    for k, item in enumerate(items):
        if extra_test is not None:
            ok = extra_test()
            if is_static(ok):
                if not isinstance(iterable, range):
                    raise TypeError(
                        f"a break/return under a Tensor condition{_where()} inside a loop over "
                        f"a Python {type(iterable).__name__} is not supported; loop over a "
                        "range or a Tensor instead")
                _static_for(_StaticIter(len(iterable), functools.partial(
                    _range_item, iterable.start, iterable.step)), k, extra_test, body_fn,
                    loop_vars)
                return
            if not ok:
                return
        body_fn(item)


def _static_for(it, start, extra_test, body_fn, names):
    get_args, set_args = _state(body_fn, names)
    index = [_layers().fill_constant([], "int64", start)]
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


def _range_item(start, step, i):
    return start + i * step


class _StaticIter:
    """A sequence with a (possibly static) length and an item function of a static index."""

    def __init__(self, length, item):
        self.length, self.item = length, item


def _as_static_iter(value):
    if isinstance(value, _StaticIter):
        return value
    if is_static(value):
        n = value.shape[0]
        if n is None or n < 0:
            n = _layers().shape(value)[0]
        return _StaticIter(n, value.__getitem__)
    if isinstance(value, range):
        return _StaticIter(len(value), functools.partial(_range_item, value.start, value.step))
    if isinstance(value, (list, tuple)):
        raise TypeError("a Python list cannot be zipped/enumerated with a static Tensor in a "
                        f"loop{_where()}; stack it into a Tensor first")
    return _StaticIter(len(value), value.__getitem__)


def convert_range(*args):
    """``range(...)``; with a static bound, a static iterable for ``convert_for_loop``."""
    if not any(is_static(a) for a in args):
        return builtins.range(*(operator.index(a) for a in args))
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if isinstance(step, (int,)) and step < 0:
        length = (start - stop - step - 1) // (-step)
    else:
        length = (stop - start + step - 1) // step
    length = _layers().elementwise_max(_to_variable(length), _to_variable(0, length))
    return _StaticIter(length, functools.partial(_range_item, start, step))


def convert_enumerate(iterable, start=0):
    if not (isinstance(iterable, _StaticIter) or is_static(iterable)):
        return builtins.enumerate(iterable, start)
    it = _as_static_iter(iterable)
    return _StaticIter(it.length, lambda i: (i + start, it.item(i)))


def convert_zip(*iterables):
    if not any(isinstance(i, _StaticIter) or is_static(i) for i in iterables):
        return builtins.zip(*iterables)
    its = [_as_static_iter(i) for i in iterables]
    length = its[0].length
    for it in its[1:]:
        length = _layers().elementwise_min(_to_variable(length), _to_variable(it.length))
    return _StaticIter(length, lambda i: tuple(it.item(i) for it in its))


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
    layers = _layers()
    pred = x if _dtype_name(x) == "bool" else layers.cast(x, "bool")
    holder = []

    def take_y():
        y = y_fn()
        var = _to_variable(y, x)
        if var is None:
            raise TypeError(f"'and'/'or' with a Tensor on the left{_where()} needs a Tensor or "
                            f"number on the right, got {_kind(y)}")
        if _dtype_name(var) != _dtype_name(x):
            import numpy as np

            from core.dtypes import dtype_name

            common = dtype_name(np.result_type(x.dtype, var.dtype))
            holder.append(common)
            var = layers.cast(var, common) if _dtype_name(var) != common else var
        if list(var.shape) != list(x.shape) and _numel(var.shape) == 1 == _numel(x.shape):
            var = layers.reshape(var, list(x.shape))
        return var

    def take_x():
        if holder and holder[0] != _dtype_name(x):
            return layers.cast(x, holder[0])
        return layers.assign(x)

    if x_is_result_when:
        return layers.cond(pred, take_x, take_y)
    return layers.cond(pred, take_y, take_x)


def _numel(shape):
    n = 1
    for d in shape:
        n = n * d if d is not None and d >= 0 else -1
    return n


def convert_logical_not(x):
    """``not x``: ``logical_not`` for a static ``x`` (cast to bool first), else Python."""
    if is_static(x):
        layers = _layers()
        return layers.logical_not(x if _dtype_name(x) == "bool" else layers.cast(x, "bool"))
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


# -- builtins: len, casts, print, assert, shape ------------------------------------------------
def convert_len(x):
    """``len(x)``: a static Variable's first dim (``shape`` op when unknown), a tensor
    array's ``array_length``, else Python's ``len``."""
    if is_static(x):
        if _is_array(x):
            return _layers().array_length(x)
        n = x.shape[0] if len(x.shape) else None
        if n is None:
            raise TypeError(f"len() of a 0-d Tensor{_where()}")
        return n if n >= 0 else _layers().shape(x)[0]
    return builtins.len(x)


_CASTS = {"int": (builtins.int, "int64"), "float": (builtins.float, "float32"),
          "bool": (builtins.bool, "bool")}


def convert_cast(x, kind):
    """``int(x)``/``float(x)``/``bool(x)``: a ``cast`` op for a static Variable, else Python."""
    py, dtype = _CASTS[kind]
    if is_static(x):
        return _layers().cast(x, dtype)
    return py(x)


def convert_print(*args, **kwargs):
    """``print``: a ``Print`` op for each static Variable argument, else Python's print."""
    if any(is_static(a) for a in args):
        for a in args:
            if is_static(a):
                _layers().Print(a)
            else:
                builtins.print(a, **{k: v for k, v in kwargs.items() if k != "end"})
        return None
    return builtins.print(*args, **kwargs)


def convert_assert(cond, message=None):
    """``assert cond, message()``: an ``Assert`` op for a static condition, else Python;
    ``message`` is a thunk, called only when the assertion fails."""
    if is_static(cond):
        _layers().Assert(cond if _dtype_name(cond) == "bool" else _layers().cast(cond, "bool"))
        return
    if not cond:
        raise AssertionError() if message is None else AssertionError(message())


def convert_shape(x):
    """``x.shape``: known dims of a static Variable stay ints, unknown ones (-1) come from the
    ``shape`` op; anything else returns its own ``.shape``."""
    if not is_static(x):
        return x.shape
    dims = list(x.shape)
    if all(d is not None and d >= 0 for d in dims):
        return dims
    shape_var = _layers().shape(x)
    return [shape_var[i] if (d is None or d < 0) else d for i, d in enumerate(dims)]


# -- lists inside loops -> tensor arrays ---------------------------------------------------------
_guessed_arrays = set()  # ids of arrays made from empty lists with a guessed dtype


def _is_array(x):
    return "ARRAY" in str(getattr(x, "type", "")).upper()


def _list_to_array(values, dtype=None):
    """A tensor array holding ``values`` (the static loop form of a Python list); an empty
    list's element dtype is ``dtype``, else float32 until an append says otherwise."""
    layers = _layers()
    if values:
        dtype = _dtype_name(_to_variable(values[0]))
    array = layers.create_array(dtype or "float32")
    if not values and dtype is None:
        _guessed_arrays.add(id(array))
    for k, v in enumerate(values):
        layers.array_write(_to_variable(v), _to_variable(k), array=array)
    return array


def convert_list_append(target, value):
    """``target.append(value)``; on a tensor array, ``array_write`` at its end."""
    if _is_array(target):
        layers = _layers()
        var = _to_variable(value)
        if id(target) in _guessed_arrays and _dtype_name(var) != _dtype_name(target):
            raise _DtypeChanged(None, _dtype_name(var), array=target)
        layers.array_write(var, layers.array_length(target), array=target)
        return target
    target.append(value)
    return target


def convert_list_pop(target, *index):
    """``target.pop(*index)`` -> ``(target, item)``; a tensor array reads its last item."""
    if _is_array(target):
        layers = _layers()
        i = index[0] if index else layers.array_length(target) - 1
        return target, layers.array_read(target, _to_variable(i))
    return target, target.pop(*index)


# -- calls ---------------------------------------------------------------------------------------
_SKIP_MODULES = ("core", "translator", "numpy", "gast", "builtins", "functools", "inspect",
                 "typing", "collections", "itertools", "copy", "math", "operator", "abc")
_BUILTIN_MAP = {builtins.len: convert_len, builtins.print: convert_print,
                builtins.range: convert_range, builtins.enumerate: convert_enumerate,
                builtins.zip: convert_zip}


def _skipped_module(obj):
    module = getattr(obj, "__module__", None) or ""
    return module.split(".")[0] in _SKIP_MODULES


def convert_call(fn):
    """What converted code calls for ``fn(...)``: the converted ``fn`` for user functions,
    methods and Layers (converted once, cached); ``fn`` itself for builtins, library code,
    classes, ``not_to_static`` functions and what cannot be converted."""
    from . import convert

    try:
        mapped = _BUILTIN_MAP.get(fn)
    except TypeError:  # unhashable callable
        mapped = None
    if mapped is not None:
        return mapped
    if getattr(fn, "_d2s_not_to_static", False) or isinstance(fn, type):
        return fn
    if hasattr(fn, "dygraph_function"):
        return convert.convert_to_static(fn)
    if isinstance(fn, types.MethodType):
        func = fn.__func__
        if getattr(func, "_d2s_not_to_static", False) or _skipped_module(func) or \
                convert.is_converted(func):
            return fn
    elif isinstance(fn, types.FunctionType):
        if _skipped_module(fn) or convert.is_converted(fn) or fn.__name__ == "<lambda>":
            return fn
    elif callable(getattr(fn, "forward", None)):
        forward = type(fn).forward
        if _skipped_module(forward) or getattr(forward, "_d2s_not_to_static", False):
            return fn
        return _convert_or_keep(convert, fn.forward, fn)
    else:
        return fn
    return _convert_or_keep(convert, fn, fn)


def _convert_or_keep(convert, target, fallback):
    try:
        return convert.convert_to_static(target)
    except convert.ConversionError:
        return fallback


def install_origin_provider():
    """Make static ops record the user's line (``core.static.builder.set_origin_provider``)."""
    if _origin_state["installed"]:
        return
    import core

    if core.in_dynamic_mode():
        return
    builder = getattr(getattr(core, "static", None), "builder", None)
    setter = getattr(builder, "set_origin_provider", None)
    if setter is not None:
        setter(origin_info.current_user_origin)
        _origin_state["installed"] = True


_origin_state = {"installed": False}

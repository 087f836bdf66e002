"""Runtime helpers for builtins and attributes with a static form: ``len``, ``int`` / ``float`` /
``bool`` casts, ``x.item()``, ``x.numpy()``, ``print``, ``assert`` and ``x.shape``.

A static Variable argument gives the static op (``shape`` / ``array_length``, ``cast``,
``Assert``); anything else runs Python's builtin. ``print`` while a Program is built is a
``python_print`` op whatever its arguments, so the program prints on every run. ``x[i] = v``
(converted to ``x = convert_setitem(x, i, v)``; ``x[i] += v`` to ``convert_setitem_aug``) is
the ``setitem`` op on a static Variable, Python's item assignment on anything else. What eager
mode gives as a Python number -- ``len(x)``, ``int(t)``, ``float(t)``, an unknown dim of
``x.shape`` -- is a 0-d Variable marked weak (``convert_state.mark_weak``), so ``float32_tensor
/ x.shape[0]`` stays float32 as it does eagerly.
"""
import builtins
import operator

from core import mode
from core.indexing import setitem_value

from .convert_state import (dtype_name, is_static, is_union, layers, mark_weak, stand_in,
                            union_setitem, where)
from .tensor_list import convert_list_setitem, is_array

__all__ = ["cast_builtin", "convert_assert", "convert_cast", "convert_isinstance", "convert_item",
           "convert_len", "convert_numpy", "convert_print", "convert_setitem",
           "convert_setitem_aug", "convert_shape"]


def convert_setitem(target, index, value):
    """``target[index] = value``, giving the value the name ``target`` holds afterwards. In
    straight-line code (the program's global block) a static Variable takes the new value
    itself, so every name for it sees the change, as eagerly. Inside a ``cond`` / ``while``
    body the Variable -- possibly one the op itself holds, such as a loop variable -- is left
    as it is and the new value, a Variable of the body's block, is returned for the name,
    which the branch / loop carries out (another name for the same Variable keeps the old
    value there). Anything else -- an eager Tensor, a list, a dict -- is Python's
    ``target[index] = value`` on the same object, which is returned."""
    if is_array(target):  # a list filled in a loop whose condition is a Tensor
        return convert_list_setitem(target, index, value)
    if is_union(target):  # a list / dict the paths of a Tensor condition filled differently
        return union_setitem(target, index, value)
    if is_static(target) and target.block.program.current_block().idx != 0:
        return setitem_value(target, index, value)
    target[index] = value
    return target


# the augmented operators by gast name: ``operator.iadd`` and friends apply ``__iadd__`` when
# the value has one and ``__add__`` otherwise, exactly as ``x[i] += v`` does
_AUGMENTED = {"Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul,
              "Div": operator.itruediv, "FloorDiv": operator.ifloordiv, "Mod": operator.imod,
              "Pow": operator.ipow, "MatMult": operator.imatmul, "BitAnd": operator.iand,
              "BitOr": operator.ior, "BitXor": operator.ixor, "LShift": operator.ilshift,
              "RShift": operator.irshift}


def convert_setitem_aug(target, index, op, value):
    """``target[index] op= value`` (``op`` a gast operator name such as ``'Add'``), with
    ``target`` and ``index`` evaluated once: the item, the operator applied as Python applies
    it, and the result assigned back through :func:`convert_setitem`, whose value the name
    ``target`` takes."""
    return convert_setitem(target, index, _AUGMENTED[op](target[index], value))


def convert_len(x):
    """``len(x)``: a static Variable's first dim (``shape`` op when unknown), a tensor
    array's ``array_length``, else Python's ``len``."""
    if is_static(x):
        if is_array(x):
            return _scalar(layers().array_length(x))
        n = x.shape[0] if len(x.shape) else None
        if n is None:
            raise TypeError(f"len() of a 0-d Tensor{where()}")
        return n if n >= 0 else mark_weak(layers().shape(x)[0])
    return builtins.len(x)


def _scalar(var):
    """``var`` (one element) as a 0-d Variable standing for a Python number."""
    if var.shape is not None and len(var.shape) and all(d == 1 for d in var.shape):
        var = layers().reshape(var, [])
    return mark_weak(var)


_CASTS = {"int": builtins.int, "float": builtins.float, "bool": builtins.bool}


def _one_element(var, needs):
    """``var`` as a 0-d Variable; a ValueError saying ``needs`` (eager mode's words) when its
    shape shows more than one element (an unknown dim is checked when the program runs)."""
    shape = list(var.shape or ())
    if all(d is not None and d >= 0 for d in shape):
        size = 1
        for d in shape:
            size *= d
        if size != 1:
            raise ValueError(f"{needs} exactly one element, got shape {shape}{where()}")
    return layers().reshape(var, []) if shape else var


def _cast_dtype(x, kind):
    """The dtype of the 0-d Variable standing for ``int(x)`` / ``float(x)`` / ``bool(x)``: int64;
    x's own floating dtype for float (float32 when x is not floating: Python's float then
    promotes with tensors as float32 does); bool."""
    if kind == "int":
        return "int64"
    if kind == "float":
        name = dtype_name(x)
        return name if name.startswith(("float", "bfloat")) else "float32"
    return "bool"


def convert_cast(x, kind):
    """``int(x)``/``float(x)``/``bool(x)``: a ``cast`` op for a static Variable (a 0-d Variable
    standing for the Python number eager mode gives; ``int`` truncates toward zero as Python
    does), else Python."""
    if is_static(x):
        # one element, as a 0-d Variable like the Python number eager mode gives
        value = _one_element(x, f"{kind}() of a tensor needs")
        return mark_weak(layers().cast(value, _cast_dtype(x, kind)), kind != "bool")
    return _CASTS[kind](x)


def cast_builtin(kind):
    """What converted code calls for the builtin ``int`` / ``float`` / ``bool``: one argument
    goes through :func:`convert_cast`; any other call (``int('7', 8)``, ``float()``) is the
    builtin's."""
    py = _CASTS[kind]

    def cast(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            return convert_cast(args[0], kind)
        return py(*args, **kwargs)

    cast.__name__ = cast.__qualname__ = kind
    return cast


def convert_item(x):
    """``x.item()``: for a static Variable a 0-d Variable of its dtype standing for the Python
    number (weak, so ``float32_tensor + x.item()`` stays float32 as it does eagerly); for
    anything else its own ``item()``."""
    if is_static(x):
        return mark_weak(_one_element(x, "item() needs a tensor with"), dtype_name(x) != "bool")
    return x.item()


def convert_numpy(x):
    """``x.numpy()``: a static Variable stands for its own array (as in PaddlePaddle, whose
    translator drops ``.numpy()`` from converted code), so ``if t.numpy()[0] > 5`` or
    ``t.numpy() < 0`` is the tensor condition it means eagerly; anything else's own
    ``numpy()``."""
    if is_static(x):
        return x
    return x.numpy()


def convert_print(*args, sep=" ", end="\n", file=None, flush=False):
    """``print``: while a Program is built, a ``python_print`` op that writes, each time the
    program runs, what eager ``print`` writes (a static Variable shown as the eager Tensor of
    its run-time value), in program order -- Python values too, so nothing is printed only
    at translation; otherwise Python's print."""
    if not mode.in_dynamic_mode():
        return layers().python_print(*args, sep=sep, end=end, file=file, flush=flush)
    return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)


def convert_assert(cond, message=None):
    """``assert cond, message()``: an ``Assert`` op for a static condition (showing the
    message when it fails at run time), else Python; ``message`` is a thunk, called only when
    the assertion fails (for a static condition: once, while building). A static condition
    of more than one element is ambiguous, as its truth value is eagerly (a ValueError)."""
    if is_static(cond):
        lay = layers()
        cond = _one_element(cond, "bool() of a tensor needs")
        text, data = _static_message(message)
        lay.Assert(cond if dtype_name(cond) == "bool" else lay.cast(cond, "bool"), data=data,
                   name=text)
        return
    if not cond:
        raise AssertionError() if message is None else AssertionError(message())


def _static_message(message):
    """``(text, data)`` for the ``Assert`` op of a static ``assert``: the message is evaluated
    while the Program is built (it cannot wait for the failure); a static Tensor message is
    shown as the op's data. A message that fails to evaluate is left out."""
    if message is None:
        return None, None
    try:
        value = message()
    except Exception:  # Python would evaluate it only on failure
        return None, None
    if is_static(value):
        return None, [value]
    return str(value), None


def convert_shape(x):
    """``x.shape``: known dims of a static Variable stay ints, unknown ones (-1) come from the
    ``shape`` op; anything else returns its own ``.shape``."""
    if not is_static(x):
        return x.shape
    dims = list(x.shape)
    if all(d is not None and d >= 0 for d in dims):
        return dims
    shape_var = layers().shape(x)
    return [mark_weak(shape_var[i]) if (d is None or d < 0) else d for i, d in enumerate(dims)]


def convert_isinstance(obj, classinfo):
    """``isinstance(obj, classinfo)``; a static Variable standing for a Python number (a name
    a tensor ``if`` set to numbers on each path) answers as that number does: ``isinstance(b,
    int)`` is what eager code sees."""
    number = stand_in(obj)
    return builtins.isinstance(obj if number is None else number, classinfo)

"""Control-flow and program-plumbing ops: ``cond``, ``while``, tensor arrays, ``increment``,
``print``, ``python_print`` (Python's ``print`` at run time), ``assert`` and ``grad_sum``.

``cond`` and ``while`` hold sub-blocks (by index, in attrs) and are compiled by the executor
(``core/static/codegen.py``), not run through a kernel; their gradients are built by
``core/static/backward.py``. Eager mode never applies them: ``core.layers.cond`` and
``while_loop`` run plain Python there.

Attributes of the sub-block ops (variable names resolve from the sub-block, through parents):

* ``cond``: inputs ``Cond`` (one bool element), ``Input`` (every outer variable the branches
  read); outputs ``Out``; attrs ``true_block``, ``false_block`` (block indices),
  ``true_outs`` / ``false_outs`` (per output, the name each branch's result has).
* ``while``: inputs ``Condition`` (the first test), ``X`` (initial values of the loop
  variables, then every outer variable the body reads); outputs ``Out`` (final values),
  ``StepScopes`` (the saved iterations, for the gradient); attrs ``sub_block``, ``loop_vars``
  (the body's parameter names), ``body_outs`` (the body's results, same order), ``cond_out``
  (the body's next test), ``is_test``.

A tensor array is a Python list of arrays at run time; writing copies the list, so arrays are
values like any other.
"""
import sys

import numpy as np

from ..backend import as_numpy, place_of
from .registry import Meta, OpDef, register_op

__all__ = [
    "add_grads",
    "array_length",
    "cond",
    "create_array",
    "format_value",
    "grad_sum",
    "increment",
    "python_print",
    "read_from_array",
    "stream_key",
    "tensor_array_to_tensor",
    "tensor_text",
    "write_to_array",
]


def _index(i):
    """A Python int from an index given as an int or a one-element array."""
    return int(i.item()) if hasattr(i, "item") else int(i)


class _Plumbing(OpDef):
    checked_by_registry = False  # covered by tests/core/layers/test_control_flow.py


@register_op
class cond(_Plumbing):
    """Run ``true_block`` when Cond holds, else ``false_block``; compiled by the executor."""

    inputs = ("Cond", "Input*")
    outputs = ("Out*",)
    attrs = {"true_block": -1, "false_block": -1, "true_outs": [], "false_outs": []}


@register_op
class while_(_Plumbing):
    """Run ``sub_block`` while its condition holds; compiled by the executor."""

    type = "while"
    inputs = ("Condition", "X*")
    outputs = ("Out*", "StepScopes")
    nondiff_outputs = ("StepScopes",)
    attrs = {"sub_block": -1, "loop_vars": [], "body_outs": [], "cond_out": "",
             "is_test": False}


@register_op
class increment(_Plumbing):
    """``Out = X + step`` in X's dtype (a loop counter)."""

    attrs = {"step": 1.0}

    def infer(self, x, step):
        return Meta(tuple(x.shape), x.dtype)

    def fast_kernel(self, xp, metas, step):
        if metas[0] is None or metas[0].dtype is None:
            return None
        # NOTE: a numpy scalar step keeps a 0-d counter a numpy scalar (cheap arithmetic)
        one = metas[0].dtype.type(step) if xp is np else xp.asarray(step).astype(metas[0].dtype)
        return lambda x: x + one

    def forward(self, ctx, x, step):
        return x + ctx.xp.asarray(step).astype(x.dtype)

    def backward(self, ctx, ins, outs, douts, step):
        return (douts[0],)


@register_op
class create_array(_Plumbing):
    """An empty tensor array (a list) of element dtype ``dtype``."""

    inputs = ()
    attrs = {"dtype": "float32"}
    differentiable = False

    def infer(self, dtype):
        return Meta((), np.dtype(dtype))

    def forward(self, ctx, dtype):
        return []


@register_op
class write_to_array(_Plumbing):
    """A copy of tensor array ``Array`` (empty when absent) with X at position I; writing
    past the end pads with empty slots."""

    inputs = ("X", "I", "Array")
    nondiff_inputs = ("I",)

    def infer(self, x, i, array):
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, i, array):
        arr = [] if array is None else list(array)
        k = _index(i)
        if k < 0:
            raise IndexError(f"array_write: index {k} is negative")
        if k >= len(arr):
            arr.extend([None] * (k + 1 - len(arr)))
        arr[k] = x
        return arr

    def backward(self, ctx, ins, outs, douts, **_):
        x, i, array = ins
        k = _index(i)
        g = douts[0] or []
        gx = g[k] if k < len(g) and g[k] is not None else ctx.xp.zeros_like(x)
        garr = None
        if array is not None:
            garr = [g[j] if j < len(g) and j != k else None for j in range(len(array))]
        return gx, None, garr


@register_op
class read_from_array(_Plumbing):
    """Element I of tensor array X (a negative I counts from the end, as for the Python list an
    eager array is)."""

    inputs = ("X", "I")
    nondiff_inputs = ("I",)

    def infer(self, x, i):
        return Meta(tuple(x.shape), x.dtype)

    def forward(self, ctx, x, i):
        k = _index(i)
        k = k + len(x) if k < 0 else k
        if not 0 <= k < len(x) or x[k] is None:
            raise IndexError(f"array_read: index {k} is out of range for a tensor array of "
                             f"length {len(x)}" + ("" if k >= len(x) or k < 0 else
                                                   " (that slot was never written)"))
        return x[k]

    def backward(self, ctx, ins, outs, douts, **_):
        x, i = ins
        g = [None] * len(x)
        g[_index(i) % max(len(x), 1)] = douts[0]
        return g, None


@register_op
class array_length(_Plumbing):
    """The length of tensor array X as an int64 tensor of shape [1]."""

    differentiable = False

    def infer(self, x):
        return Meta((1,), np.dtype(np.int64))

    def forward(self, ctx, x):
        return ctx.xp.asarray([len(x)], dtype=np.int64)


@register_op
class tensor_array_to_tensor(_Plumbing):
    """The elements of tensor array X stacked (``use_stack``) or concatenated along ``axis``;
    OutIndex holds each element's size along ``axis`` (int32)."""

    outputs = ("Out", "OutIndex")
    nondiff_outputs = ("OutIndex",)
    attrs = {"axis": 0, "use_stack": False}

    def infer(self, x, axis, use_stack):
        shape = list(x.shape)
        if use_stack:
            shape.insert(axis if axis >= 0 else len(shape) + 1 + axis, -1)
        elif shape:
            shape[axis] = -1
        return Meta(tuple(shape), x.dtype), Meta((-1,), np.dtype(np.int32))

    def forward(self, ctx, x, axis, use_stack):
        xp = ctx.xp
        if not x or any(a is None for a in x):
            raise ValueError("tensor_array_to_tensor: the tensor array is empty or has unwritten "
                             "slots")
        if use_stack:
            return xp.stack(x, axis=axis), xp.ones(len(x), dtype=np.int32)
        sizes = xp.asarray([a.shape[axis] for a in x], dtype=np.int32)
        return xp.concatenate(x, axis=axis), sizes

    def backward(self, ctx, ins, outs, douts, axis, use_stack):
        x = ins[0]
        g = douts[0]
        xp = ctx.xp
        if use_stack:
            return ([xp.take(g, j, axis=axis) for j in range(len(x))],)
        bounds = np.cumsum([a.shape[axis] for a in x])[:-1].tolist()
        return (xp.split(g, bounds, axis=axis),)


@register_op
class grad_sum(_Plumbing):
    """The sum of gradient contributions X (tensor arrays elementwise; None counts as 0)."""

    inputs = ("X*",)
    differentiable = False

    def infer(self, xs):
        return Meta(tuple(xs[0].shape), xs[0].dtype)

    def forward(self, ctx, xs):
        total = xs[0]
        for x in xs[1:]:
            total = add_grads(total, x)
        return total


def add_grads(a, b):
    """The sum of two gradient contributions: None counts as 0, tensor arrays (lists) add
    elementwise, the shorter one padded with None."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, list):
        n = max(len(a), len(b))
        return [add_grads(a[j] if j < len(a) else None, b[j] if j < len(b) else None)
                for j in range(n)]
    return a + b


def format_value(value, name=None, message=None, summarize=20, print_tensor_name=True,
                 print_tensor_type=True, print_tensor_shape=True):
    """The text ``Print`` shows for one value (an array or a tensor array)."""
    lines = []
    if message:
        lines.append(str(message))
    if print_tensor_name and name:
        lines.append(f"  Variable: {name}")
    if isinstance(value, list):
        lines.append(f"  - tensor array of length {len(value)}")
        for k, a in enumerate(value):
            lines.append(f"  - [{k}]: " + ("<empty>" if a is None else _data_text(a, summarize)))
        return "\n".join(lines)
    if print_tensor_shape:
        lines.append(f"  - shape: {list(value.shape)}")
    if print_tensor_type:
        lines.append(f"  - dtype: {value.dtype}")
    lines.append(f"  - data: {_data_text(value, summarize)}")
    return "\n".join(lines)


def _data_text(a, summarize):
    flat = as_numpy(a).reshape(-1)
    n = flat.size if summarize is None or summarize < 0 else min(flat.size, summarize)
    text = " ".join(str(v) for v in flat[:n].tolist())
    return f"[{text}{' ...' if n < flat.size else ''}]"


@register_op
class print_(_Plumbing):
    """Print X when the executor reaches it (at most ``first_n`` times when >= 0); Out is X."""

    type = "print"
    attrs = {"first_n": -1, "message": "", "summarize": 20, "print_tensor_name": True,
             "print_tensor_type": True, "print_tensor_shape": True, "var_name": "",
             "print_phase": "both"}

    def infer(self, x, **attrs):
        return Meta(tuple(x.shape), x.dtype)

    def make_kernel(self, first_n, message, summarize, print_tensor_name, print_tensor_type,
                    print_tensor_shape, var_name, print_phase):
        """A kernel with its own call counter (for ``first_n``)."""
        count = [0]

        def kernel(ctx, x):
            if first_n < 0 or count[0] < first_n:
                count[0] += 1
                print(format_value(x, var_name, message, summarize, print_tensor_name,
                                   print_tensor_type, print_tensor_shape), flush=True)
            return x

        return kernel

    def forward(self, ctx, x, **attrs):
        return self.make_kernel(**attrs)(ctx, x)

    def backward(self, ctx, ins, outs, douts, **attrs):
        return (douts[0],)


def tensor_text(a, stop_gradient=True):
    """What ``str`` gives for an eager Tensor holding the array ``a`` (or a list of arrays, a
    tensor array: the list of their texts)."""
    if isinstance(a, list):
        return "[" + ", ".join(tensor_text(x, stop_gradient) for x in a) + "]"
    values = np.array2string(as_numpy(a), prefix="       ")
    return (f"Tensor(shape={list(a.shape)}, dtype={a.dtype.name}, place={place_of(a)}, "
            f"stop_gradient={bool(stop_gradient)},\n       {values})")


# streams a ``python_print`` writes to, by key: ``stdout`` / ``stderr`` are looked up when the
# op runs (as ``print`` does); another file object is kept here under ``file:<id>``
_STREAMS = {}


def stream_key(file):
    """The ``stream`` attribute of a ``python_print`` writing to ``file`` (None: stdout)."""
    if file is None or file is sys.stdout:
        return "stdout"
    if file is sys.stderr:
        return "stderr"
    if not callable(getattr(file, "write", None)):
        raise TypeError(f"print(): argument 'file' must have a write() method, got "
                        f"{type(file).__name__}")
    key = f"file:{id(file)}"
    _STREAMS[key] = file
    return key


def _stream(key):
    if key == "stdout":
        return sys.stdout
    if key == "stderr":
        return sys.stderr
    if key not in _STREAMS:
        raise RuntimeError(f"python_print: the file object this program printed to ({key}) "
                           "belongs to another process; print to stdout or stderr instead")
    return _STREAMS[key]


def _python_number(a):
    """The Python number a one-element array stands for (bool, int or float by its dtype)."""
    value = as_numpy(a).reshape(()).item()
    kind = np.dtype(a.dtype).kind
    return bool(value) if kind == "b" else int(value) if kind in "iu" else float(value)


@register_op
class python_print(_Plumbing):
    """Write what Python's ``print`` writes for values known when the program runs: the text
    ``segments[0] + str(X[0]) + segments[1] + ... + segments[n]`` (``sep`` and ``end``
    already in the segments), each X shown as an eager Tensor of its run-time value (with the
    ``stop_gradient`` flag recorded per input) or, where ``numbers`` says so, as the Python
    number it stands for; to ``stream`` (``stdout``, ``stderr``)."""

    inputs = ("X*",)
    outputs = ()
    attrs = {"segments": [""], "stop_gradient": [], "numbers": [], "stream": "stdout",
             "flush": False}
    differentiable = False

    def infer(self, xs, **attrs):
        return ()

    def forward(self, ctx, xs, segments, stop_gradient, numbers, stream, flush):
        if len(segments) != len(xs) + 1:
            raise ValueError(f"python_print: {len(xs)} values need {len(xs) + 1} text "
                             f"segments, got {len(segments)}")
        parts = [segments[0]]
        for k, x in enumerate(xs):
            if k < len(numbers) and numbers[k]:
                text = str(_python_number(x))
            else:
                text = tensor_text(x, stop_gradient[k] if k < len(stop_gradient) else True)
            parts += [text, segments[k + 1]]
        print("".join(parts), end="", file=_stream(stream), flush=bool(flush))
        return ()


def assert_message(cond_name, data, names, summarize, message):
    parts = [f"Assert failed: condition '{cond_name}' is False" +
             (f" ({message})" if message else "")]
    for n, d in zip(names, data):
        parts.append(format_value(d, n, None, summarize))
    return "\n".join(parts)


@register_op
class assert_(_Plumbing):
    """Raise AssertionError (with the values of Data) when Cond is False."""

    type = "assert"
    inputs = ("Cond", "Data*")
    outputs = ()
    attrs = {"summarize": 20, "message": "", "cond_name": "", "data_names": []}
    differentiable = False

    def infer(self, cond, data, **attrs):
        return ()

    def forward(self, ctx, cond, data, summarize, message, cond_name, data_names):
        if not bool(ctx.xp.all(cond)):
            raise AssertionError(assert_message(cond_name, data, data_names, summarize, message))
        return ()

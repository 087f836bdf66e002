"""``translator.check``: run a function eagerly and converted on the same inputs, compare.

Eager execution is the meaning of the code, so any difference is a translation problem. The
usual one is a Python value read while translating and frozen into the Program: a global
counter, ``time.time()``, a list the function (or its caller) changes between calls. To catch
those the check works in the order a user's program does: it translates first, then runs the
original function eagerly, then runs the translated Program.

Both runs get fresh copies of the same input arrays; with ``grads`` the floating inputs need a
gradient and the sum of the floating outputs is differentiated in both runs, so the gradients
of the inputs and of the Layer parameters the Program reads are compared too.

Where the results differ, the check finds the first op that computed a different value: the
eager run is observed op by op (``core.dispatch.set_eager_observer``; each op tagged with the
user's line that applied it), the Program is run once more fetching the outputs of its
top-level ops, and ops are paired by user line, op type and occurrence. The first op of the
Program whose value differs from its eager partner is reported with the user's line that built
it, and, when one of its inputs is a constant of the Program, that constant's value (a Python
value frozen at translation time).

Random ops (dropout) draw from different streams eagerly and in a Program; check a model in
``eval()`` mode. Running the check clears the gradients of the parameters involved.
"""
import linecache
import os
import sys

import numpy as np

import core
from core import dispatch as _dispatch
from core import static as _static
from core.tensor import Tensor

from .input_spec import flatten, pack, signature_of
from .program_translator import StaticFunction

__all__ = ["CheckResult", "Difference", "check"]

_INTERNAL = (os.path.dirname(os.path.abspath(core.__file__)) + os.sep,
             os.path.dirname(os.path.abspath(__file__)) + os.sep)  # core's and ours
_CONSTANT_OPS = ("fill_constant", "assign_value")


class Difference:
    """One compared value that differs: ``what`` (``'output 0'``, ``'gradient of x'``,
    ``'gradient of parameter linear_0.w_0'``), ``eager`` and ``converted`` (arrays or Python
    values), ``max_abs`` (largest absolute difference, None when not comparable)."""

    __slots__ = ("what", "eager", "converted", "max_abs", "reason")

    def __init__(self, what, eager, converted, reason):
        self.what, self.eager, self.converted, self.reason = what, eager, converted, reason
        self.max_abs = _max_abs(eager, converted)

    def __str__(self):
        return f"{self.what}: {self.reason}"


class FirstOp:
    """Where the runs part: ``op_type``, ``filename``, ``line``, ``source`` (the user's line
    that built the op), ``eager`` and ``converted`` values (None for a side that has no such
    op), ``frozen`` (``[(op type, value)]`` of the Program constants it reads) and ``note``."""

    __slots__ = ("op_type", "filename", "line", "source", "eager", "converted", "frozen",
                 "note")

    def __init__(self, op_type, origin, eager, converted, frozen=(), note=""):
        self.op_type = op_type
        origin = origin or (None, None, "")
        self.filename, self.line, self.source = origin[0], origin[1], origin[2]
        self.eager, self.converted, self.frozen = eager, converted, list(frozen)
        self.note = note

    def __str__(self):
        where = f"{self.filename}:{self.line}: {self.source}" if self.filename else "(no origin)"
        if self.note:
            return f"first difference: '{self.op_type}' at {where}\n    {self.note}"
        text = (f"first differing op: '{self.op_type}' built at {where}\n"
                f"    eager     {_short(self.eager)}\n    converted {_short(self.converted)}")
        if self.frozen:
            consts = ", ".join(f"{v}" for _, v in self.frozen)
            text += (f"\n    it reads constant(s) fixed when the function was translated: "
                     f"{consts} -- a Python value read at translation time is frozen into the "
                     "Program; pass it as a Tensor argument or compute it with tensor ops")
        return text


class CheckResult:
    """What :func:`check` found: ``ok``, ``differences`` (a list of :class:`Difference`),
    ``first_op`` (a :class:`FirstOp` or None) and a readable ``str()``."""

    def __init__(self, name, differences, first_op, compared):
        self.name, self.differences, self.first_op = name, differences, first_op
        self.compared = compared
        self.ok = not differences

    def __bool__(self):
        return self.ok

    def __str__(self):
        if self.ok:
            return f"{self.name}: eager and converted agree ({self.compared} value(s) compared)"
        lines = [f"{self.name}: eager and converted differ in {len(self.differences)} of "
                 f"{self.compared} values"]
        lines += [f"  {d}" for d in self.differences]
        if self.first_op is not None:
            lines.append("  " + str(self.first_op).replace("\n", "\n  "))
        return "\n".join(lines)


def _short(value):
    if isinstance(value, np.ndarray):
        flat = np.array2string(value.ravel()[:6], precision=5, separator=", ")
        more = " ..." if value.size > 6 else ""
        return f"{value.dtype}{list(value.shape)} {flat}{more}"
    return repr(value)


def _max_abs(a, b):
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape:
        if a.size == 0:
            return 0.0
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return None


def _compare(what, eager, converted, rtol, atol, out):
    if isinstance(eager, Tensor):
        eager = eager.numpy()
    if isinstance(converted, Tensor):
        converted = converted.numpy()
    if isinstance(eager, np.ndarray) or isinstance(converted, np.ndarray):
        a, b = np.asarray(eager), np.asarray(converted)
        if a.shape != b.shape:
            out.append(Difference(what, a, b, f"shape {list(a.shape)} eager, {list(b.shape)} "
                                  "converted"))
        elif a.dtype != b.dtype:
            out.append(Difference(what, a, b, f"dtype {a.dtype} eager, {b.dtype} converted"))
        elif not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            d = Difference(what, a, b, "")
            d.reason = f"values differ (max abs difference {d.max_abs:.3g})"
            out.append(d)
    elif not _same(eager, converted):
        out.append(Difference(what, eager, converted, f"{eager!r} eager, {converted!r} converted"))


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _copies(values, grads):
    """Fresh eager tensors for the tensor leaves of ``values`` (floating ones need a gradient
    with ``grads``), in the same structure."""
    leaves = []
    for v in flatten(values):
        if isinstance(v, (Tensor, np.ndarray)):
            array = np.array(v.numpy() if isinstance(v, Tensor) else v)
            floating = array.dtype.kind == "f"
            v = core.to_tensor(array, stop_gradient=not (grads and floating))
        leaves.append(v)
    return pack(values, leaves)


class _EagerLog:
    """The eager ops a run applied: ``[(user file, user line, op type, output arrays)]``."""

    def __init__(self):
        self.ops = []

    def __call__(self, op, attrs, results):
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
            frame = frame.f_back
        if frame is None:
            return
        arrays = []
        for r in results:
            for t in r if isinstance(r, list) else (r,):
                arrays.append(np.array(t.numpy()) if isinstance(t, Tensor) else None)
        self.ops.append((os.path.abspath(frame.f_code.co_filename), frame.f_lineno, op.type,
                         arrays))


def _differentiate(outputs):
    floats = [o for o in flatten(outputs) if isinstance(o, Tensor) and not o.stop_gradient
              and o.dtype.kind == "f"]
    if not floats:
        return False
    total = floats[0].sum()
    for o in floats[1:]:
        total = total + o.sum()
    total.backward()
    return True


def _copy(array):
    return None if array is None else np.array(array)


def _run(fn, values, params, grads, observer=None):
    for _, p in params:
        p.clear_gradient()
    old = _dispatch.set_eager_observer(observer) if observer is not None else None
    try:
        outputs = fn(values)
    finally:
        if observer is not None:
            _dispatch.set_eager_observer(old)
    results = {"outputs": flatten(outputs) if isinstance(outputs, (list, tuple, dict))
               else [outputs]}
    if grads and _differentiate(outputs):
        tensors = [v for v in flatten(values) if isinstance(v, Tensor)]
        results["inputs"] = [_copy(t.gradient()) for t in tensors]
        results["params"] = [_copy(p.gradient()) for _, p in params]
    for _, p in params:
        p.clear_gradient()
    return results


def _first_op(concrete, values, eager_log, rtol, atol):
    """The first top-level op of the Program whose outputs differ from its eager partner."""
    program = concrete.main_program
    block = program.global_block()
    candidates = []
    for op in block.ops:
        if not op.origin or op.type in _CONSTANT_OPS:
            continue
        names = [n for n in op.output_arg_names if n in block.vars and
                 not block.vars[n].persistable]
        if names:
            candidates.append((op, names))
    fetch = list(dict.fromkeys(n for _, names in candidates for n in names))
    tensors = signature_of(values, None)[1]
    feed = {v.name: np.asarray(t.numpy()) for v, t in zip(concrete.inputs, tensors)}
    scope = _static.Scope()
    for name, p in concrete.parameters:
        scope.var(name).get_tensor().set(np.asarray(p.numpy()), core.CPUPlace())
    try:
        fetched = _static.Executor(core.CPUPlace()).run(program, feed=feed, fetch_list=fetch,
                                                        scope=scope)
    except Exception:  # a value the executor cannot fetch (tensor arrays): no localisation
        return None
    static_values = dict(zip(fetch, fetched))
    eager_by_key = {}
    for filename, line, op_type, arrays in eager_log.ops:
        eager_by_key.setdefault((filename, line, op_type), []).append(arrays)
    seen = {}
    for op, _names in candidates:
        key = (os.path.abspath(op.origin[0]), op.origin[1], op.type)
        k = seen[key] = seen.get(key, -1) + 1
        partners = eager_by_key.get(key, [])
        if k >= len(partners):
            continue
        out_names = op.output_arg_names
        for name, eager in zip(out_names, partners[k]):
            if name not in static_values or eager is None:
                continue
            conv = np.asarray(static_values[name])
            if eager.shape != conv.shape or not np.allclose(eager, conv, rtol=rtol, atol=atol,
                                                            equal_nan=True):
                return FirstOp(op.type, op.origin, eager, conv, _frozen_inputs(block, op))
    return _unpaired(eager_log, block)


def _unpaired(eager_log, block):
    """The first eager op at a line and of a type the Program has fewer of: the translation
    took another path there (a Python condition or value read when translating)."""
    counts, sources = {}, {}
    for op in [op for b in block.program.blocks for op in b.ops]:
        if op.origin:
            key = (os.path.abspath(op.origin[0]), op.origin[1], op.type)
            counts[key] = counts.get(key, 0) + 1
            sources[key] = op.origin[2]
    seen = {}
    for filename, line, op_type, arrays in eager_log.ops:
        key = (filename, line, op_type)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > counts.get(key, 0):
            source = sources.get(key) or linecache.getline(filename, line).strip()
            return FirstOp(op_type, (filename, line, source), arrays[0] if arrays else None,
                           None, note="the eager run applied this op here, the Program has no "
                           "such op: that code took another path when the function was "
                           "translated (a Python condition or value read at translation time)")
    return None


def _frozen_inputs(block, op):
    producers = {}
    for other in block.ops:
        for n in other.output_arg_names:
            producers[n] = other
    found = []
    for n in op.input_arg_names:
        p = producers.get(n)
        if p is not None and p.type in _CONSTANT_OPS:
            value = p.attr("value") if p.type == "fill_constant" else "an array"
            if p.type == "assign_value":
                value = _constant_array(p)
            found.append((p.type, value))
    return found


def _constant_array(op):
    for name in ("fp32_values", "int64_values", "int32_values", "bool_values", "values"):
        try:
            v = op.attr(name)
        except (KeyError, AttributeError, ValueError):
            continue
        if v:
            return v
    return "an array"


def check(func, *example_args, rtol=1e-5, atol=1e-6, grads=True, **example_kwargs):
    """Run ``func`` (a function, a ``declarative`` function or a bound Layer method) eagerly and
    converted on copies of the example arguments and compare outputs and, with ``grads``, the
    gradients of the floating inputs and of the parameters the Program reads. Returns a
    :class:`CheckResult` (true when everything agrees within ``rtol`` / ``atol``); where
    values differ it names the first op that differs and the user's line that built it."""
    static = func if isinstance(func, StaticFunction) else StaticFunction(func)
    fresh = StaticFunction(static.dygraph_function, static.input_spec, static.instance)
    binder = fresh.binder
    values = binder.bind(example_args, example_kwargs)
    first = (static.instance,) if static.instance is not None else ()
    name = getattr(static.dygraph_function, "__qualname__", repr(func))

    converted_values = _copies(values, grads)
    # translate first, as a program's first call does; the eager run comes after
    concrete = fresh.get_concrete_program(*converted_values)
    params = list(concrete.parameters)
    eager_values = _copies(values, grads)
    log = _EagerLog()
    eager = _run(lambda vs: binder.call(static.dygraph_function, vs, first), eager_values,
                 params, grads, log)
    conv = _run(lambda vs: concrete(signature_of(vs, fresh.input_spec)[1]), converted_values,
                params, grads)

    diffs, compared = [], 0
    if len(eager["outputs"]) != len(conv["outputs"]):
        diffs.append(Difference("outputs", len(eager["outputs"]), len(conv["outputs"]),
                                f"{len(eager['outputs'])} values eager, "
                                f"{len(conv['outputs'])} converted"))
    for k, (a, b) in enumerate(zip(eager["outputs"], conv["outputs"])):
        compared += 1
        _compare(f"output {k}", a, b, rtol, atol, diffs)
    if "inputs" in eager and "inputs" in conv:
        arg_names = _leaf_names(binder.names, values)
        for k, (a, b) in enumerate(zip(eager["inputs"], conv["inputs"])):
            compared += 1
            _compare(f"gradient of {arg_names[k]}", a, b, rtol, atol, diffs)
        for (pname, _), a, b in zip(params, eager["params"], conv["params"]):
            compared += 1
            _compare(f"gradient of parameter {pname}", a, b, rtol, atol, diffs)
    first_op = _first_op(concrete, converted_values, log, rtol, atol) if diffs else None
    return CheckResult(name, diffs, first_op, compared)


def _leaf_names(names, values):
    out = []
    for name, value in zip(names, values):
        leaves = [v for v in flatten(value) if isinstance(v, (Tensor, np.ndarray))]
        if len(leaves) == 1 and not isinstance(value, (list, tuple, dict)):
            out.append(name)
        else:
            out.extend(f"{name}[{i}]" for i in range(len(leaves)))
    return out

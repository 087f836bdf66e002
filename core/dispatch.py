"""The one dispatch helper: apply a registered op eagerly or append it to the current block.

``apply(op_type, inputs, attrs)`` takes one entry per input slot of the op (a tensor, a list
of tensors for a ``*`` slot, a Python scalar or ndarray constant, or None for an absent
optional input) and returns the op's outputs: one value when the op has one output slot,
else a tuple with one entry per slot (a list for a ``*`` slot).

* Eager mode: the kernel runs now on the inputs' arrays; outputs are Tensors; when any input
  needs a gradient (and :class:`~core.autograd.no_grad` is not active) one tape node is
  recorded. An exception from the kernel is re-raised as :class:`~core.errors.OpError`
  naming the op and its inputs.
  An observer set with :func:`set_eager_observer` is told of each eager op and its outputs.
* Static mode: :func:`core.static.builder.append_op` infers the outputs' shapes and dtypes,
  creates their Variables and appends the operator to the current block. Under ``no_grad``
  the outputs are ``stop_gradient``, so no gradient flows through the op, as eagerly.
"""
import numpy as np

from . import mode as _mode
from .autograd import Node, _grad_state
from .backend import CPUPlace, array_module_of, default_place, get_array_module, place_of
from .errors import describe_value, op_error_of
from .operator_mixin import register as _register_operators
from .ops.registry import KernelContext, get_op, slot_name
from .static.builder import append_op

__all__ = ["apply", "eager_apply", "kernel_context", "register_tensor_type",
           "set_eager_observer"]

_observer = [None]  # called as fn(op, attrs, results) after each eager op, when set

_contexts = {}
_numpy_context = KernelContext(np, CPUPlace())


def kernel_context(xp, place):
    """The shared forward context for module ``xp`` on ``place``."""
    key = (xp.__name__, place)
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = _contexts[key] = KernelContext(xp, place)
    return ctx


def apply(op_type, inputs, attrs=None, outputs=None):
    """Run (eager) or append (static) op ``op_type``; see the module docstring.

    ``outputs`` optionally maps an output slot index to an existing tensor / Variable that
    receives that output in place (running statistics of batch_norm, ``increment``, optimizer
    state): eager mode replaces that tensor's data, static mode makes the operator write the
    existing variable.
    """
    op = get_op(op_type)
    if _mode._state["dynamic"]:
        return eager_apply(op, inputs, attrs, outputs)
    return append_op(op, inputs, op.full_attrs(attrs), outputs, grad=_grad_state["enabled"])


def _arrays_of(op, inputs, Tensor):
    arrays, requires, first = [], False, None
    for k, v in enumerate(inputs):
        if isinstance(v, Tensor):
            arrays.append(v._data)
            if not v.stop_gradient:
                requires = True
            if first is None:
                first = v._data
        elif isinstance(v, (list, tuple)):
            lst = []
            for t in v:
                if isinstance(t, Tensor):
                    lst.append(t._data)
                    if not t.stop_gradient:
                        requires = True
                    if first is None:
                        first = t._data
                else:
                    _reject_variable(op, k, t)
                    lst.append(t)
            arrays.append(lst)
        else:
            _reject_variable(op, k, v)
            arrays.append(v)
    return arrays, requires, first


_NUMBERS = (bool, int, float)


def _reject_variable(op, k, v):
    """A non-Tensor input must be a constant the op set supports: a real Python number, an
    ndarray (of a supported dtype), or None."""
    if v is None or type(v) in _NUMBERS:
        return
    dtype = getattr(v, "dtype", None)
    if dtype is not None and hasattr(v, "shape") and getattr(dtype, "kind", "?") in "biuf" and \
            getattr(v, "block", None) is None:
        return  # a numpy / cupy array or numpy scalar of a real dtype
    slot = slot_name(op.inputs[k])
    if getattr(v, "block", None) is not None and hasattr(v, "persistable"):
        raise TypeError(
            f"op '{op.type}' input '{slot}' is a static Variable "
            f"('{v.name}') but the op runs in eager mode; build it inside a static program "
            "(core.enable_static() / program_guard) or pass eager tensors")
    what = getattr(getattr(v, "dtype", None), "name", None) or type(v).__name__
    raise TypeError(f"op '{op.type}' input '{slot}' got a {what} value ({v!r:.60}); expected a "
                    "tensor, a real number or a numeric ndarray (complex numbers, strings and "
                    "other objects are not supported)")


# The eager tensor class and its constructor ``wrap(data, node, out_idx)``: core.tensor, which
# imports this module, registers them (register_tensor_type).
_Tensor = _wrap = None


def register_tensor_type(cls, wrap):
    """Make eager results instances of ``cls``, built by ``wrap(data, node, out_idx)``."""
    global _Tensor, _wrap
    _Tensor, _wrap = cls, wrap


def _output_plan(op):
    """Per-op constants of the output loop: (single output slot?, differentiable per slot)."""
    plan = op.__dict__.get("_output_plan")
    if plan is None:
        plan = op._output_plan = (len(op.outputs) == 1, tuple(
            slot_name(s) not in op.nondiff_outputs for s in op.outputs))
    return plan


def eager_apply(op, inputs, attrs=None, outputs=None):
    """Run ``op`` now on eager tensors; record the tape when a gradient is needed."""
    if len(inputs) != len(op.inputs):
        raise TypeError(f"op '{op.type}' takes inputs {op.inputs}, got {len(inputs)} values")
    attrs = op.full_attrs(attrs)
    arrays, requires, first = _arrays_of(op, inputs, _Tensor)
    if type(first) is np.ndarray:
        ctx = _numpy_context
    else:
        if first is not None:
            xp, place = array_module_of(first), place_of(first)
        else:
            place = default_place()
            xp = get_array_module(place)
        ctx = kernel_context(xp, place)
    try:
        kernel = op.kernel_for(ctx.xp, None, attrs)
        # NOTE: kernel(ctx, *arrays, **attrs) spelled out for forward, the common case
        outs = kernel.fn(ctx, *arrays, **attrs) if kernel.takes == "attrs" else \
            kernel(ctx, *arrays, **attrs)
    except (ValueError, TypeError, IndexError, ArithmeticError) as e:
        names = ", ".join(f"{slot_name(s)}={describe_value(a)}"
                          for s, a in zip(op.inputs, arrays))
        raise op_error_of(f"op '{op.type}' failed on inputs ({names}) with attrs {attrs}: "
                          f"{type(e).__name__}: {e}", e) from e
    single, diff_slots = _output_plan(op)
    if single:
        outs = (outs,)
    grad = requires and op.differentiable and _grad_state["enabled"]
    node = Node(op, inputs, arrays, outs, attrs) if grad else None
    wrap = _wrap
    results = []
    for k, out in enumerate(outs):
        if outputs and k in outputs:
            target = outputs[k]
            target._data = out
            results.append(target)
            continue
        n = node if grad and diff_slots[k] else None
        if isinstance(out, (list, tuple)):
            results.append([wrap(a, n, (k, j)) for j, a in enumerate(out)])
        else:
            results.append(wrap(out, n, (k, None)))
    if _observer[0] is not None:
        _observer[0](op, attrs, results)
    return results[0] if single else tuple(results)


def set_eager_observer(fn):
    """Call ``fn(op, attrs, results)`` after every eager op (``results``: one entry per output
    slot, a Tensor or a list of Tensors), or stop with None; returns the previous observer.
    Diagnostic tools use it to see which ops an eager run applied, and where."""
    old, _observer[0] = _observer[0], fn
    return old


_register_operators(apply=apply)

"""``paddle.grad``: the gradients of outputs with respect to chosen inputs, as values.

Eagerly it walks the tape from the outputs (:func:`core.autograd.partial_grads`) without
touching any tensor's ``.grad``; in a static program (and in converted code) it appends the
backward ops of :func:`core.static.backward.gradients` and returns their Variables.
"""
from . import mode as _mode
from .autograd import partial_grads
from .checks import is_variable_like
from .static.backward import gradients
from .tensor import Tensor

__all__ = ["grad"]


def _tensors(value, arg, allow_none=False):
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    for t in items:
        if not (is_variable_like(t) or (allow_none and t is None)):
            raise TypeError(f"grad(): argument '{arg}' must be a Tensor or a list of Tensors"
                            f"{' (or None)' if allow_none else ''}, got {type(t).__name__}")
    return items


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """``paddle.grad``: a list with the gradient of the sum of ``outputs`` (each weighted by
    its entry of ``grad_outputs``; None: ones) with respect to each of ``inputs``. An input
    the outputs do not depend on is an error, or None with ``allow_unused``. Eagerly the graph
    is freed unless ``retain_graph`` (default: ``create_graph``); ``no_grad_vars`` pass no
    gradient on. Higher-order gradients (``create_graph=True``) are not supported eagerly."""
    outs = _tensors(outputs, "outputs")
    ins = _tensors(inputs, "inputs")
    seeds = [None] * len(outs) if grad_outputs is None else \
        _tensors(grad_outputs, "grad_outputs", allow_none=True)
    if len(seeds) != len(outs):
        raise ValueError(f"grad(): {len(outs)} outputs but {len(seeds)} grad_outputs")
    if not only_inputs:
        raise ValueError("grad(): only_inputs=False is not supported (as in PaddlePaddle)")
    no_grad = [] if no_grad_vars is None else _tensors(no_grad_vars, "no_grad_vars")
    if _mode.in_dynamic_mode():
        if create_graph:
            raise NotImplementedError("grad(): create_graph=True (a differentiable gradient, "
                                      "for higher-order gradients) is not supported eagerly")
        for o in outs:
            if o.stop_gradient:
                raise RuntimeError(f"grad(): output '{o.name}' has stop_gradient=True: no "
                                   "input of its computation needs a gradient")
        arrays = []
        for o, s in zip(outs, seeds):
            if s is not None and list(s.shape) != list(o.shape):
                raise ValueError(f"grad(): grad_outputs entry of shape {list(s.shape)} for an "
                                 f"output of shape {list(o.shape)}")
            arrays.append(None if s is None else s._data.astype(o.dtype, copy=False))
        got = partial_grads(outs, arrays, ins, retain_graph=bool(
            create_graph if retain_graph is None else retain_graph), no_grad=no_grad)
        result = [None if g is None else Tensor(g) for g in got]
    else:
        result = gradients(outs, ins, None if grad_outputs is None else seeds, no_grad or None)
    if not allow_unused:
        for k, g in enumerate(result):
            if g is None:
                raise ValueError(f"grad(): input {k} ('{ins[k].name}') is not reached from the "
                                 "outputs; pass allow_unused=True to get None for it")
    return result

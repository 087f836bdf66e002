"""``paddle.summary(net, input_size)``: run ``net`` once on zeros and print, per sublayer, its
output shape and parameter count; return ``{'total_params', 'trainable_params'}``."""
import numpy as np

import core
from core.static import InputSpec

__all__ = ["summary"]

_CONTAINERS = ("Sequential", "LayerList", "LayerDict", "ParameterList")


def _specs(input_size, dtypes):
    """``input_size`` (a shape tuple, an InputSpec, or a list of either) as ``[(shape,
    dtype)]``; unknown dims (None, -1) become 1."""
    if isinstance(input_size, InputSpec):
        items = [input_size]
    elif isinstance(input_size, (list, tuple)) and input_size and all(
            isinstance(d, (int, type(None))) for d in input_size):
        items = [tuple(input_size)]
    elif isinstance(input_size, (list, tuple)):
        items = list(input_size)
    else:
        raise TypeError(f"summary: input_size must be a shape tuple, an InputSpec or a list of "
                        f"them, got {type(input_size).__name__}")
    if dtypes is None:
        dtypes = [None] * len(items)
    elif isinstance(dtypes, str):
        dtypes = [dtypes] * len(items)
    specs = []
    for item, dtype in zip(items, dtypes):
        if isinstance(item, InputSpec):
            shape, dtype = list(item.shape), dtype or item.dtype
        else:
            shape = list(item)
        shape = [1 if d is None or d < 0 else int(d) for d in shape]
        specs.append((shape, np.dtype(dtype or "float32")))
    return specs


def _count(layer):
    total = trainable = 0
    for p in layer.parameters(include_sublayers=False):
        n = int(np.prod(p.shape))
        total += n
        if not p.stop_gradient:
            trainable += n
    return total, trainable


def _shape_of(value):
    if isinstance(value, (list, tuple)):
        return [_shape_of(v) for v in value]
    return list(getattr(value, "shape", []))


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the table and return ``{'total_params': N, 'trainable_params': M}``; ``input``
    (tensors) may be given instead of ``input_size``."""
    if input is None and input_size is None:
        raise ValueError("summary: give input_size (e.g. (1, 1, 28, 28)) or input")
    rows, hooks = [], []
    counts = {}

    def hook(layer, inputs, outputs):
        kind = type(layer).__name__
        counts[kind] = counts.get(kind, 0) + 1
        rows.append((f"{kind}-{counts[kind]}", _shape_of(inputs[0]) if inputs else [],
                     _shape_of(outputs), *_count(layer)))

    for layer in net.sublayers():
        if type(layer).__name__ not in _CONTAINERS:
            hooks.append(layer.register_forward_post_hook(hook))
    training = net.training
    net.eval()
    try:
        with core.no_grad():
            if input is None:
                args = [core.to_tensor(np.zeros(shape, dtype)) for shape, dtype in
                        _specs(input_size, dtypes)]
            else:
                args = list(input) if isinstance(input, (list, tuple)) else [input]
            net(*args)
    finally:
        for h in hooks:
            h.remove()
        if training:
            net.train()
    total = sum(_count(layer)[0] for layer in [net, *net.sublayers()])
    trainable = sum(_count(layer)[1] for layer in [net, *net.sublayers()])
    _print_table(rows, total, trainable)
    return {"total_params": total, "trainable_params": trainable}


def _print_table(rows, total, trainable):
    width = 80
    head = f"{'Layer (type)':>16}  {'Input Shape':>20}  {'Output Shape':>20}  {'Param #':>12}"
    lines = ["-" * width, head, "=" * width]
    for name, ins, outs, n, _ in rows:
        lines.append(f"{name:>16}  {ins!s:>20}  {outs!s:>20}  {n:>12,}")
    lines += ["=" * width, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * width]
    print("\n".join(lines))

"""Input specifications and call signatures of declarative functions.

:class:`InputSpec` (defined in :mod:`core.static.input_spec`, re-exported here) declares one
tensor input of a ``declarative`` function: its shape (``None``
or ``-1`` for a dimension that may vary), dtype and feed name. A function translated from specs
gets one Program for every call whose tensors fit them.

The rest of the module turns the arguments of a call into a *signature*: a hashable key of the
program cache. Tensors (and ndarrays) become specs - their exact shape and dtype, or the
declared spec they fit - and everything else is a Python value compared by value (numbers,
strings, None, nested lists / tuples / dicts of those) or, for other objects, by identity. The
same walk produces the flat list of tensor leaves that are fed to the Program.
"""
import copy
import dataclasses

import numpy as np

from core.static.input_spec import InputSpec
from core.tensor import Tensor, data_of

__all__ = ["InputSpec", "flatten", "pack", "signature_of", "to_specs"]


def _is_dataclass_instance(item):
    return dataclasses.is_dataclass(item) and not isinstance(item, type)


def flatten(structure):
    """The leaves of a nested list / tuple / dict / dataclass structure, depth first (dicts by
    sorted key, a dataclass instance by its fields in declaration order)."""
    leaves = []
    stack = [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            stack.extend(item[k] for k in reversed(_sorted_keys(item)))
        elif _is_dataclass_instance(item):
            stack.extend(getattr(item, f.name) for f in reversed(dataclasses.fields(item)))
        else:
            leaves.append(item)
    return leaves


def _rebuilt_dataclass(item, values):
    """A shallow copy of the dataclass instance ``item`` with its fields set to ``values``
    (set directly, so frozen classes and fields outside ``__init__`` are rebuilt too)."""
    out = copy.copy(item)
    for f, v in zip(dataclasses.fields(item), values):
        object.__setattr__(out, f.name, v)
    return out


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def pack(structure, leaves):
    """``structure`` with its leaves replaced, in :func:`flatten` order, by ``leaves``; its
    containers are rebuilt (new lists, tuples, dicts; a copy of a dataclass instance whose
    leaves change)."""
    it = iter(leaves)

    def build(item):
        if isinstance(item, (list, tuple)):
            items = [build(v) for v in item]
            if isinstance(item, list):
                return items
            return type(item)(*items) if hasattr(item, "_fields") else tuple(items)
        if isinstance(item, dict):
            out = {}
            for k in _sorted_keys(item):
                out[k] = build(item[k])
            return {k: out[k] for k in item}
        if _is_dataclass_instance(item):
            old = [getattr(item, f.name) for f in dataclasses.fields(item)]
            new = [build(v) for v in old]
            if all(a is b for a, b in zip(old, new)):
                return item  # nothing replaced: the caller's own object
            return _rebuilt_dataclass(item, new)
        return next(it)

    return build(structure)


def _value_key(value):
    """A hashable key comparing a Python argument by value, or by identity if it has none."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, np.generic):
        return (type(value).__name__, value.item())
    if isinstance(value, type):
        return ("type", value.__module__, value.__qualname__)
    return ("id", type(value).__name__, id(value))


def signature_of(values, declared=None):
    """``(key, tensors)`` for the argument ``values`` of a call (one per parameter).

    ``key`` is a hashable signature: per tensor leaf its shape, dtype and stop_gradient (or
    the declared spec it fits), per other leaf its value; ``tensors`` are the tensor leaves
    in :func:`flatten` order. ``declared`` optionally gives a spec (or a nested structure of
    specs) per value; a tensor must fit its declared spec (a clear error names the argument
    otherwise).
    """
    parts, tensors = [], []
    for i, value in enumerate(values):
        d = declared[i] if declared is not None and i < len(declared) else None
        if d is None and type(value) is Tensor:  # NOTE: what _walk gives, without its tests
            array = data_of(value)
            parts.append(("t", array.shape, array.dtype, value.stop_gradient))
            tensors.append(value)
            continue
        _walk(value, d, parts, tensors, i)
    return tuple(parts), tensors


def _walk(value, declared, parts, tensors, where):
    t = type(value)
    if t is Tensor or isinstance(value, (Tensor, np.ndarray)):
        shape = tuple(value.shape)
        dtype = value.dtype
        sg = value.stop_gradient if t is not np.ndarray else True
        if declared is None:
            parts.append(("t", shape, dtype, sg))
        else:
            if not isinstance(declared, InputSpec) or not declared.fits(shape, dtype):
                raise ValueError(
                    f"argument {where}: a tensor of shape {list(shape)} and dtype "
                    f"{np.dtype(dtype)} does not fit the declared input_spec {declared!r}")
            parts.append(("s", declared.shape, declared.dtype.str, declared.name, sg))
        tensors.append(value)
    elif t is InputSpec:
        parts.append(("s", value.shape, value.dtype.str, value.name, value.stop_gradient))
        tensors.append(value)
    elif isinstance(value, (list, tuple)):
        parts.append((t.__name__, len(value)))
        sub = declared if isinstance(declared, (list, tuple)) else ()
        for j, v in enumerate(value):
            _walk(v, sub[j] if j < len(sub) else None, parts, tensors, f"{where}[{j}]")
    elif isinstance(value, dict):
        keys = _sorted_keys(value)
        parts.append(("dict", tuple(_value_key(k) for k in keys)))
        sub = declared if isinstance(declared, dict) else {}
        for k in keys:
            _walk(value[k], sub.get(k), parts, tensors, f"{where}[{k!r}]")
    else:
        if declared is not None:
            raise ValueError(f"argument {where}: input_spec declares {declared!r} but the "
                             f"call passed {type(value).__name__} {value!r}")
        parts.append(_value_key(value))


def to_specs(values, declared=None):
    """``values`` with every tensor leaf replaced by its :class:`InputSpec` (the declared one,
    with the tensor's stop_gradient, when there is one); specs and other leaves stay."""
    def convert(value, d):
        if isinstance(value, (Tensor, np.ndarray)):
            sg = value.stop_gradient if isinstance(value, Tensor) else True
            if isinstance(d, InputSpec):
                return InputSpec(d.shape, d.dtype, d.name, sg)
            return InputSpec(tuple(value.shape), value.dtype, None, sg)
        if isinstance(value, (list, tuple)):
            sub = d if isinstance(d, (list, tuple)) else ()
            items = [convert(v, sub[j] if j < len(sub) else None) for j, v in enumerate(value)]
            if isinstance(value, list):
                return items
            return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
        if isinstance(value, dict):
            sub = d if isinstance(d, dict) else {}
            return {k: convert(v, sub.get(k)) for k, v in value.items()}
        return value

    return [convert(v, declared[i] if declared is not None and i < len(declared) else None)
            for i, v in enumerate(values)]

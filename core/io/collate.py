"""Turning samples into batches: :func:`default_collate_fn` stacks the fields of a list of
samples, and :func:`conform_to` shapes a stacked field like the static ``data`` variable it
feeds (fluid's ``DataFeeder`` rule).

A sample is a tuple or list of fields, a dict of fields, or a single field; a field is a
number, an ndarray, an eager Tensor or a nested list of numbers. A batch is the same structure
with each field stacked along a new first axis into an ndarray.
"""
import numbers

import numpy as np

__all__ = ["conform_to", "default_collate_fn", "to_array"]


def to_array(value):
    """``value`` (number, ndarray, Tensor, nested list) as an ndarray; Python floats become
    float32 (the framework's default float), ints int64."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):
        return np.asarray(value.numpy())
    if isinstance(value, bool):
        return np.asarray(value)
    if isinstance(value, numbers.Integral):
        return np.asarray(value, dtype=np.int64)
    if isinstance(value, numbers.Real):
        return np.asarray(value, dtype=np.float32)
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.generic):
        arr = arr.astype(np.float32)
    if arr.dtype == object:
        raise TypeError(f"a sample field must be a number, an array or a (nested) list of "
                        f"numbers, got {type(value).__name__}")
    return arr


def _stack(fields, where):
    arrays = [to_array(f) for f in fields]
    first = arrays[0]
    for k, a in enumerate(arrays):
        if a.shape != first.shape:
            raise ValueError(f"{where}: sample {k} has shape {list(a.shape)} but sample 0 has "
                             f"shape {list(first.shape)}; samples of a batch must agree")
    return np.stack(arrays)


def default_collate_fn(samples):
    """A batch from a list of samples (see the module docstring)."""
    if not samples:
        raise ValueError("collate: a batch needs at least one sample")
    first = samples[0]
    if isinstance(first, dict):
        return {k: _stack([s[k] for s in samples], f"collate field '{k}'") for k in first}
    if isinstance(first, (tuple, list)):
        n = len(first)
        for k, s in enumerate(samples):
            if not isinstance(s, (tuple, list)) or len(s) != n:
                raise ValueError(f"collate: sample {k} does not have the {n} fields sample 0 "
                                 f"has: {type(s).__name__} of length "
                                 f"{len(s) if hasattr(s, '__len__') else '?'}")
        return [_stack([s[i] for s in samples], f"collate field {i}") for i in range(n)]
    return [_stack(samples, "collate")]


def as_fields(batch, where):
    """A batch from a batch generator (an array, or a tuple/list/dict of arrays) as a list or
    dict of ndarrays."""
    if isinstance(batch, dict):
        return {k: to_array(v) for k, v in batch.items()}
    if isinstance(batch, (tuple, list)):
        return [to_array(v) for v in batch]
    if isinstance(batch, np.ndarray) or hasattr(batch, "numpy"):
        return [to_array(batch)]
    raise TypeError(f"{where}: a batch must be an array or a tuple/list/dict of arrays, got "
                    f"{type(batch).__name__}")


def conform_to(array, var):
    """``array`` cast to ``var``'s dtype and, when the element count allows, reshaped to its
    declared shape (``-1`` in the first dim taking the batch size)."""
    if var.dtype is not None and array.dtype != var.dtype:
        array = array.astype(var.dtype)
    shape = list(var.shape or [])
    if shape and list(array.shape) != shape and array.ndim >= 1:
        want = [array.shape[0] if (k == 0 and d == -1) else d for k, d in enumerate(shape)]
        if want.count(-1) <= 1:
            known = int(np.prod([d for d in want if d != -1]))
            if known and array.size % known == 0 and (
                    -1 in want or known == array.size):
                array = array.reshape(want)
    return array

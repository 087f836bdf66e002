"""Passing batches from worker processes through shared memory.

A worker writes every array of a batch into one ``multiprocessing.shared_memory`` block and
sends only its name and a small layout (the batch's structure, and each array's offset, shape
and dtype) through the result queue; the main process copies the arrays out and unlinks the
block. The bytes of a batch are never pickled.
"""
from multiprocessing import shared_memory

import numpy as np

__all__ = ["discard", "read_batch", "write_batch"]

_ALIGN = 64


def _flatten(batch, arrays):
    if isinstance(batch, dict):
        return ("dict", [(k, _flatten(v, arrays)) for k, v in batch.items()])
    if isinstance(batch, (list, tuple)):
        return ("list", [_flatten(v, arrays) for v in batch])
    arr = np.ascontiguousarray(batch)
    if arr.dtype == object:
        raise TypeError("a batch passed between processes must hold arrays of numbers, got an "
                        "object array")
    arrays.append(arr)
    return ("array", len(arrays) - 1)


def write_batch(batch):
    """``(block name, layout)`` of a new shared-memory block holding ``batch``."""
    arrays = []
    tree = _flatten(batch, arrays)
    metas, off = [], 0
    for a in arrays:
        metas.append((off, a.shape, a.dtype.str))
        off += (a.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
    shm = shared_memory.SharedMemory(create=True, size=max(off, 1))
    try:
        for a, (o, _, _) in zip(arrays, metas):
            np.ndarray(a.shape, a.dtype, buffer=shm.buf, offset=o)[...] = a
        name = shm.name
    finally:
        shm.close()
    return name, (tree, metas)


def _build(tree, arrays):
    kind, body = tree
    if kind == "dict":
        return {k: _build(v, arrays) for k, v in body}
    if kind == "list":
        return [_build(v, arrays) for v in body]
    return arrays[body]


def read_batch(name, layout):
    """The batch in block ``name`` (copied out; the block is unlinked)."""
    tree, metas = layout
    shm = shared_memory.SharedMemory(name=name)
    try:
        arrays = [np.ndarray(shape, np.dtype(dt), buffer=shm.buf, offset=o).copy()
                  for o, shape, dt in metas]
    finally:
        shm.close()
        shm.unlink()
    return _build(tree, arrays)


def discard(name):
    """Unlink block ``name`` without reading it (a batch nobody will use)."""
    try:
        shm = shared_memory.SharedMemory(name=name)
    except FileNotFoundError:
        return
    shm.close()
    shm.unlink()

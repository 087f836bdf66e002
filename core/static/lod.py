"""Variable-length batches: what PaddlePaddle calls LoD tensors, as padded tensors plus lengths.

PaddlePaddle stores a batch of sequences as packed rows plus offsets (a LoD tensor). Here the
ops see a padded tensor ``[batch, time, ...]`` and an int64 ``lengths`` tensor ``[batch]``
(see :mod:`core.ops.sequence`). This module (``core.static.lod``) converts between the two:

* :func:`create_lod_tensor` makes the seeds' LoD tensor (packed rows and one level of
  sequence lengths, a :class:`core.static.LoDTensor`);
* :func:`pad_rows` / :func:`pack_rows` turn packed rows into a padded batch and back;
* a ``core.static.data(name, shape, lod_level=1)`` variable is the padded batch; its lengths
  are the data variable ``name + LENGTH_SUFFIX``, and the executor fills both from a fed
  LoD tensor (or a ``(padded, lengths)`` pair);
* :func:`set_lengths` / :func:`lengths_of` remember which lengths belong to a tensor or
  Variable, so the sequence functions of ``core.layers`` find them without a ``length``
  argument for data variables, fed LoD tensors and the outputs of sequence functions and
  ``embedding``.
"""
import weakref

import numpy as np

from .data import LENGTH_SUFFIX
from .scope import LoDTensor, check_recursive_lengths

__all__ = ["LENGTH_SUFFIX", "LoDTensor", "create_lod_tensor", "lengths_of", "pack_rows",
           "pad_rows", "set_lengths", "split_feed", "split_lod_feeds"]

# id(tensor or Variable) -> (weak reference to it, its lengths). Keyed by id: tensors compare
# elementwise, so they cannot be dictionary keys themselves.
_LENGTHS = {}


def create_lod_tensor(data, recursive_seq_lens, place=None):
    """A LoD tensor of packed rows with one level of sequence lengths.

    ``data``: an ndarray (or tensor) of packed rows ``[sum(lengths), ...]``; a list of
    sequences of ints (each becomes rows of an int64 ``[N, 1]`` array, as in the seeds); or a
    LoD tensor (copied, lengths replaced). ``recursive_seq_lens``: ``[[len_0, len_1, ...]]``.
    ``place`` is accepted for compatibility (the rows stay host arrays until fed).
    """
    if isinstance(data, LoDTensor):
        rows = np.array(data.numpy())
    elif isinstance(data, list) and data and all(isinstance(s, (list, tuple)) for s in data):
        want = [len(s) for s in data]
        lens = check_recursive_lengths(recursive_seq_lens, (sum(want),), "create_lod_tensor")
        if list(lens) != want:
            raise ValueError(f"create_lod_tensor: 'recursive_seq_lens' {list(lens)} does not "
                             f"match the lengths of the sequences in 'data' {want}")
        rows = np.array([v for s in data for v in s], dtype=np.int64).reshape(-1, 1)
    else:
        rows = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        if rows.ndim == 0:
            raise ValueError("create_lod_tensor: 'data' must hold rows [N, ...], got a scalar")
    out = LoDTensor(value=rows)
    out._lens = check_recursive_lengths(recursive_seq_lens, rows.shape, "create_lod_tensor")
    return out


def pad_rows(rows, lengths, pad_value=0):
    """Packed ``rows`` ``[sum(lengths), ...]`` as a padded batch ``[batch, max(lengths),
    ...]`` (``pad_value`` after each sequence) and int64 ``lengths``."""
    lengths = np.asarray(lengths, dtype=np.int64)
    rows = np.asarray(rows)
    if int(lengths.sum()) != rows.shape[0]:
        raise ValueError(f"pad_rows: lengths {lengths.tolist()} add up to {int(lengths.sum())}, "
                         f"but there are {rows.shape[0]} rows")
    time = int(lengths.max()) if lengths.size else 0
    out = np.full((lengths.size, time) + rows.shape[1:], pad_value, dtype=rows.dtype)
    mask = np.arange(time)[None, :] < lengths[:, None]
    out[mask] = rows
    return out, lengths


def pack_rows(padded, lengths):
    """The valid steps of a padded batch, packed: ``[sum(lengths), ...]``."""
    padded, lengths = np.asarray(padded), np.asarray(lengths, dtype=np.int64)
    mask = np.arange(padded.shape[1])[None, :] < lengths[:, None]
    return padded[mask]


def split_feed(name, value):
    """``(padded, lengths)`` from what is fed to a ``lod_level=1`` variable: a LoD tensor with
    sequence lengths, or a ``(padded array, lengths)`` pair."""
    if isinstance(value, LoDTensor):
        lens = value.recursive_sequence_lengths()
        if not lens:
            raise ValueError(f"feed '{name}': the variable was declared with lod_level=1, so it "
                             f"needs sequence lengths; make the value with "
                             f"core.create_lod_tensor(data, [[len_0, len_1, ...]], place)")
        return pad_rows(value.numpy(), lens[0])
    if isinstance(value, tuple) and len(value) == 2:
        padded, lengths = (np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in value)
        if lengths.ndim != 1 or padded.ndim < 2 or lengths.shape[0] != padded.shape[0]:
            raise ValueError(f"feed '{name}': a (padded, lengths) pair needs padded [batch, "
                             f"time, ...] and lengths [batch], got shapes {list(padded.shape)} "
                             f"and {list(lengths.shape)}")
        return padded, lengths.astype(np.int64)
    raise TypeError(f"feed '{name}': the variable was declared with lod_level=1; feed a LoD "
                    f"tensor (core.create_lod_tensor) or a (padded, lengths) pair, got "
                    f"{type(value).__name__}")


def split_lod_feeds(program, feed):
    """In ``feed`` (a dict, changed in place), replace each value fed to a ``lod_level=1``
    data variable by its padded batch and add its lengths under ``name@LENGTH``."""
    gb = program.global_block()
    for name in list(feed):
        value = feed[name]
        companion = name + LENGTH_SUFFIX
        if companion in gb.vars and companion not in feed:
            feed[name], feed[companion] = split_feed(name, value)
        elif isinstance(value, LoDTensor) and value.recursive_sequence_lengths():
            raise ValueError(f"feed '{name}': a LoD tensor with sequence lengths was fed to a "
                             f"variable declared without lod_level=1; declare it with "
                             f"core.static.data(..., lod_level=1)")


def set_lengths(x, lengths):
    """Remember ``lengths`` as the sequence lengths of tensor / Variable ``x``; returns x."""
    key = id(x)
    _LENGTHS[key] = (weakref.ref(x, lambda _, key=key: _LENGTHS.pop(key, None)), lengths)
    return x


def lengths_of(x):
    """The sequence lengths that belong to ``x``, or None: remembered by :func:`set_lengths`,
    or, for a static Variable, the ``LENGTH_SUFFIX`` companion of a ``lod_level=1`` data
    variable."""
    entry = _LENGTHS.get(id(x))
    if entry is not None and entry[0]() is x:
        return entry[1]
    block = getattr(x, "block", None)
    name = getattr(x, "name", None)
    if block is not None and isinstance(name, str):
        return block.program.global_block().vars.get(name + LENGTH_SUFFIX)
    return None

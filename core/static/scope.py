"""Scopes: where the executor keeps persistable values (parameters, optimizer state) between
runs.

A :class:`Scope` maps variable names to arrays (numpy on CPUPlace, cupy on CUDAPlace; a tensor
array is a list of arrays). ``scope.var(name)`` / ``scope.find_var(name)`` give a handle whose
``get_tensor()`` is a :class:`LoDTensor` view with ``set(array, place)``, ``__array__`` and
``shape()``, as in Paddle.
"""
import contextlib

import numpy as np

from ..backend import as_numpy, to_place
from .eager_types import is_eager_tensor

__all__ = ["LoDTensor", "Scope", "check_recursive_lengths", "global_scope", "scope_guard"]


def check_recursive_lengths(recursive_seq_lens, rows_shape, who="set_recursive_sequence_lengths"):
    """One level of sequence lengths ``[[n_0, n_1, ...]]`` (non-negative ints adding up to the
    number of rows ``rows_shape[0]``) as a tuple of ints."""
    if not isinstance(recursive_seq_lens, (list, tuple)) or len(recursive_seq_lens) != 1 or \
            not isinstance(recursive_seq_lens[0], (list, tuple, np.ndarray)):
        raise ValueError(f"{who}: 'recursive_seq_lens' must be one level of lengths, "
                         f"[[len_0, len_1, ...]] (nested levels are not supported), got "
                         f"{recursive_seq_lens!r}")
    lens = tuple(int(n) for n in recursive_seq_lens[0])
    if any(n < 0 for n in lens):
        raise ValueError(f"{who}: sequence lengths must be >= 0, got {list(lens)}")
    rows = rows_shape[0] if rows_shape else 0
    if sum(lens) != rows:
        raise ValueError(f"{who}: the sequence lengths {list(lens)} add up to {sum(lens)}, but "
                         f"the data has {rows} rows (shape {list(rows_shape)})")
    return lens


class LoDTensor:
    """A view of one scope entry (or a fetched value when ``return_numpy=False``), or a batch
    of variable-length sequences made by :func:`core.create_lod_tensor`: packed rows plus
    one level of sequence lengths (``recursive_sequence_lengths()``), which the executor
    feeds to a ``data(..., lod_level=1)`` variable as a padded batch and its lengths."""

    __slots__ = ("_name", "_scope", "_value", "_lens")

    def __init__(self, scope=None, name=None, value=None):
        self._scope = scope
        self._name = name
        self._value = value
        self._lens = None

    def recursive_sequence_lengths(self):
        """``[[len_0, len_1, ...]]`` (one level), or ``[]`` when no lengths are set."""
        return [] if self._lens is None else [list(self._lens)]

    def set_recursive_sequence_lengths(self, recursive_seq_lens):
        """Set the sequence lengths: ``[[len_0, len_1, ...]]``; they must add up to the
        number of rows."""
        self._lens = check_recursive_lengths(recursive_seq_lens, self.shape())

    def has_valid_recursive_sequence_lengths(self):
        rows = self.shape()
        return self._lens is not None and bool(rows) and sum(self._lens) == rows[0]

    def lod(self):
        """The lengths as offsets: ``[[0, len_0, len_0 + len_1, ...]]``."""
        if self._lens is None:
            return []
        return [[0] + np.cumsum(self._lens, dtype=np.int64).tolist()]

    def set_lod(self, lod):
        """Set the lengths from offsets ``[[0, o_1, o_2, ...]]`` (non-decreasing, from 0)."""
        if not isinstance(lod, (list, tuple)) or len(lod) != 1 or \
                not isinstance(lod[0], (list, tuple)) or not lod[0] or lod[0][0] != 0:
            raise ValueError(f"set_lod: 'lod' must be one level of offsets starting at 0, "
                             f"[[0, o_1, ...]], got {lod!r}")
        offsets = [int(o) for o in lod[0]]
        lens = [b - a for a, b in zip(offsets, offsets[1:])]
        if any(n < 0 for n in lens):
            raise ValueError(f"set_lod: offsets must not decrease, got {offsets}")
        self.set_recursive_sequence_lengths([lens])

    def _get(self):
        if self._scope is None:
            return self._value
        return self._scope._vars.get(self._name)

    @property
    def array(self):
        """The underlying array (numpy or cupy), or None when the variable holds nothing."""
        return self._get()

    def set(self, array, place=None):
        """Store ``array`` (copied to ``place`` when given)."""
        if is_eager_tensor(array):
            array = array._data
        elif isinstance(array, LoDTensor):
            array = array._get()
        if not hasattr(array, "shape"):
            array = np.asarray(array)
        if place is not None:
            array = to_place(array, place)
        if self._scope is None:
            self._value = array
        else:
            self._scope._vars[self._name] = array

    def shape(self):
        v = self._get()
        return [] if v is None else list(v.shape)

    def _dtype(self):
        v = self._get()
        return None if v is None else v.dtype

    def _is_initialized(self):
        return self._get() is not None

    def numpy(self):
        v = self._get()
        if v is None:
            raise ValueError(f"variable '{self._name}' holds no value")
        return as_numpy(v)

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr.astype(dtype) if dtype is not None else arr

    def __repr__(self):
        v = self._get()
        what = "uninitialised" if v is None else f"{v.dtype}{list(v.shape)}"
        return f"LoDTensor({self._name or ''} {what})"


class _ScopeVar:
    """A named entry of a Scope (``scope.var(name)``)."""

    __slots__ = ("_name", "_scope")

    def __init__(self, scope, name):
        self._scope = scope
        self._name = name

    def name(self):
        return self._name

    def get_tensor(self):
        return LoDTensor(self._scope, self._name)

    def is_initialized(self):
        return self._scope._vars.get(self._name) is not None

    def set_value(self, array, place=None):
        self.get_tensor().set(array, place)


class Scope:
    """Name -> array storage for the executor."""

    def __init__(self):
        self._vars = {}

    def var(self, name):
        """The entry ``name``, created (empty) when absent."""
        self._vars.setdefault(name, None)
        return _ScopeVar(self, name)

    def find_var(self, name):
        """The entry ``name``, or None when it was never created."""
        if name not in self._vars:
            return None
        return _ScopeVar(self, name)

    def erase(self, names):
        for n in names:
            self._vars.pop(n, None)

    def local_var_names(self):
        return list(self._vars)

    def _get(self, name):
        return self._vars.get(name)

    def _set(self, name, value):
        self._vars[name] = value

    def __contains__(self, name):
        return self._vars.get(name) is not None

    def __repr__(self):
        return f"Scope({len(self._vars)} vars)"


_scopes = [Scope()]


def global_scope():
    """The scope ``Executor.run`` uses when none is given."""
    return _scopes[-1]


@contextlib.contextmanager
def scope_guard(scope):
    """Make ``scope`` the global scope inside the block."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard expects a Scope, got {type(scope).__name__}")
    _scopes.append(scope)
    try:
        yield scope
    finally:
        _scopes.pop()

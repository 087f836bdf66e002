"""``InputSpec``: the shape, dtype and name of one tensor input of a program
(``paddle.static.InputSpec``); ``translator`` re-exports it for ``declarative(input_spec=...)``."""
import numpy as np

from .. import dtypes as _dtypes
from .data import dims_of

__all__ = ["InputSpec"]


class InputSpec:
    """The shape, dtype and name of one tensor input.

    ``shape`` is a list or tuple whose entries are ints, ``None`` or ``-1`` (unknown: any size
    fits). ``dtype`` is a dtype name or numpy dtype. ``name`` becomes the feed name of the
    input in the translated Program (the argument's name when None).
    """

    __slots__ = ("shape", "dtype", "name", "stop_gradient")

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=True):
        if isinstance(shape, int):
            shape = (shape,)
        self.shape = tuple(dims_of(shape, "InputSpec: shape"))
        self.dtype = _dtypes.convert_dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"InputSpec: name must be a str or None, got {name!r}")
        self.name = name
        self.stop_gradient = bool(stop_gradient)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The exact spec of an eager tensor (or ndarray)."""
        return cls(tuple(tensor.shape), tensor.dtype, name or getattr(tensor, "_name", None),
                   getattr(tensor, "stop_gradient", True))

    from_numpy = from_tensor

    def batch(self, batch_size):
        """This spec with a leading batch dimension (None for a variable one)."""
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name, self.stop_gradient)

    def unbatch(self):
        """This spec without its leading dimension."""
        if not self.shape:
            raise ValueError(f"unbatch() of a 0-d InputSpec {self!r}")
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def fits(self, shape, dtype):
        """True when a tensor of ``shape`` and ``dtype`` may be fed for this spec."""
        if np.dtype(dtype) != self.dtype or len(shape) != len(self.shape):
            return False
        return all(d == -1 or d == s for d, s in zip(self.shape, shape))

    def key(self):
        return ("spec", self.shape, self.dtype.str, self.name, self.stop_gradient)

    def __eq__(self, other):
        return isinstance(other, InputSpec) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        shape = [None if d == -1 else d for d in self.shape]
        return f"InputSpec(shape={shape}, dtype={self.dtype.name}, name={self.name!r})"

"""Parameter initializers (``fluid.initializer``).

An initializer does not touch memory itself: :meth:`Initializer.op_spec` names the creation op
(``fill_constant``, ``uniform_random``, ``gaussian_random``, ``truncated_gaussian_random``,
``assign_value``) and its attributes that produce the initial value. Eager parameters run that
op at once; static parameters get it in the startup program. One definition serves both.

Fan-in and fan-out follow Paddle: a 2-D weight ``[in, out]`` (fully connected) has
``fan_in = in``, ``fan_out = out``; a conv filter ``[out, in, kh, kw]`` has
``fan_in = in * kh * kw`` and ``fan_out = out * kh * kw``; a 1-D shape has both equal to its
length and a 0-d shape has both 1.
"""
import math

import numpy as np

from .dtypes import convert_dtype, dtype_name

__all__ = [
    "MSRA",
    "Constant",
    "ConstantInitializer",
    "Initializer",
    "MSRAInitializer",
    "Normal",
    "NormalInitializer",
    "NumpyArrayInitializer",
    "TruncatedNormal",
    "TruncatedNormalInitializer",
    "Uniform",
    "UniformInitializer",
    "Xavier",
    "XavierInitializer",
    "compute_fans",
]


def compute_fans(shape):
    """``(fan_in, fan_out)`` of a parameter of ``shape``, as Paddle computes them."""
    shape = [int(s) for s in shape]
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def _shape_list(shape, who):
    try:
        shape = [int(s) for s in shape]
    except TypeError:
        raise TypeError(f"{who}.op_spec(): 'shape' must be a list of int, got {shape!r}") \
            from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{who}.op_spec(): 'shape' must be fully known (no -1) to initialize "
                         f"a parameter, got {shape}")
    return shape


def _check_float(dtype, who):
    d = convert_dtype(dtype)
    if d.kind != "f":
        raise TypeError(f"{who} initializes floating-point parameters only; got dtype {d.name}")
    return d.name


class Initializer:
    """Base class: subclasses implement :meth:`op_spec`."""

    def op_spec(self, shape, dtype):
        """``(op_type, attrs)`` of the creation op that makes the initial value."""
        raise NotImplementedError(f"{type(self).__name__} does not define op_spec")

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Constant(Initializer):
    """Every element equals ``value``."""

    def __init__(self, value=0.0, force_cpu=False):
        self.value = float(value)

    def op_spec(self, shape, dtype):
        return "fill_constant", {"shape": _shape_list(shape, "Constant"),
                                 "dtype": dtype_name(dtype), "value": self.value}


class Uniform(Initializer):
    """Uniform on ``[low, high)``; ``seed`` 0 uses the global random state."""

    def __init__(self, low=-1.0, high=1.0, seed=0):
        if not low <= high:
            raise ValueError(f"Uniform: 'low' ({low}) must not exceed 'high' ({high})")
        self.low, self.high, self.seed = float(low), float(high), int(seed)

    def op_spec(self, shape, dtype):
        return "uniform_random", {"shape": _shape_list(shape, "Uniform"),
                                  "dtype": _check_float(dtype, "Uniform"), "min": self.low,
                                  "max": self.high, "seed": self.seed}


class Normal(Initializer):
    """Gaussian with mean ``loc`` and standard deviation ``scale``."""

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        if scale < 0:
            raise ValueError(f"Normal: 'scale' must be >= 0, got {scale}")
        self.loc, self.scale, self.seed = float(loc), float(scale), int(seed)

    def op_spec(self, shape, dtype):
        return "gaussian_random", {"shape": _shape_list(shape, "Normal"),
                                   "dtype": _check_float(dtype, "Normal"), "mean": self.loc,
                                   "std": self.scale, "seed": self.seed}


class TruncatedNormal(Normal):
    """Gaussian truncated to two standard deviations around ``loc``."""

    def op_spec(self, shape, dtype):
        _, attrs = super().op_spec(shape, dtype)
        return "truncated_gaussian_random", attrs


class Xavier(Initializer):
    """Glorot: uniform on ``+-sqrt(6 / (fan_in + fan_out))`` or normal with
    ``std = sqrt(2 / (fan_in + fan_out))``; fans from the shape unless given."""

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        self.uniform, self.fan_in, self.fan_out, self.seed = bool(uniform), fan_in, fan_out, \
            int(seed)

    def op_spec(self, shape, dtype):
        shape = _shape_list(shape, type(self).__name__)
        f_in, f_out = compute_fans(shape)
        f_in = f_in if self.fan_in is None else self.fan_in
        f_out = f_out if self.fan_out is None else self.fan_out
        if self.uniform:
            limit = math.sqrt(6.0 / float(f_in + f_out))
            return Uniform(-limit, limit, self.seed).op_spec(shape, dtype)
        return Normal(0.0, math.sqrt(2.0 / float(f_in + f_out)), self.seed).op_spec(shape, dtype)


class MSRA(Initializer):
    """He / Kaiming: uniform on ``+-sqrt(6 / fan_in)`` or normal with ``std = sqrt(2 / fan_in)``."""

    def __init__(self, uniform=True, fan_in=None, seed=0):
        self.uniform, self.fan_in, self.seed = bool(uniform), fan_in, int(seed)

    def op_spec(self, shape, dtype):
        shape = _shape_list(shape, type(self).__name__)
        f_in = compute_fans(shape)[0] if self.fan_in is None else self.fan_in
        if self.uniform:
            limit = math.sqrt(6.0 / float(f_in))
            return Uniform(-limit, limit, self.seed).op_spec(shape, dtype)
        return Normal(0.0, math.sqrt(2.0 / float(f_in)), self.seed).op_spec(shape, dtype)


class NumpyArrayInitializer(Initializer):
    """Exactly the given array (its shape must match the parameter's)."""

    def __init__(self, value):
        self.value = np.array(value)

    def op_spec(self, shape, dtype):
        shape = _shape_list(shape, "NumpyArrayInitializer")
        if list(self.value.shape) != shape:
            raise ValueError(f"NumpyArrayInitializer: the array has shape "
                             f"{list(self.value.shape)} but the parameter has shape {shape}")
        d = convert_dtype(dtype)
        values = self.value.astype(d).reshape(-1).tolist()
        return "assign_value", {"shape": shape, "dtype": d.name, "values": values}

    def __repr__(self):
        return f"NumpyArrayInitializer(shape={list(self.value.shape)})"


ConstantInitializer = Constant
UniformInitializer = Uniform
NormalInitializer = Normal
TruncatedNormalInitializer = TruncatedNormal
XavierInitializer = Xavier
MSRAInitializer = MSRA

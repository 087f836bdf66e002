"""PaddlePaddle 2.x random tensors: ``paddle.rand``, ``randn``, ``randint``, ``randperm``,
``uniform``, ``normal``, ``standard_normal``.

They are the ``uniform_random`` / ``gaussian_random`` ops with 2.x argument names (plus a floor
and a cast for integers, and an argsort of uniform samples for a permutation), so they draw
from the generator ``core.seed`` seeds and work eagerly and in static programs.
"""
import numpy as np

from . import layers as _L
from .dtypes import get_default_dtype
from .tensor_search import argsort

__all__ = ["normal", "rand", "randint", "randn", "randperm", "standard_normal", "uniform"]


def _float_dtype(dtype, api):
    dtype = np.dtype(dtype or get_default_dtype())
    if dtype.kind != "f":
        raise TypeError(f"{api}(): argument 'dtype' must be a float type, got {dtype.name}")
    return dtype.name


def rand(shape, dtype=None, name=None):
    """``paddle.rand``: uniform samples in [0, 1) (the default dtype, float32, unless named)."""
    return _L.uniform_random(shape, _float_dtype(dtype, "rand"), 0.0, 1.0)


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):
    """``paddle.uniform``: uniform samples in [min, max); ``seed`` 0 uses the global seed."""
    return _L.uniform_random(shape, _float_dtype(dtype, "uniform"), min, max, seed)


def randn(shape, dtype=None, name=None):
    """``paddle.randn``: standard normal samples (the default dtype, float32, unless named)."""
    return _L.gaussian_random(shape, 0.0, 1.0, dtype=_float_dtype(dtype, "randn"))


standard_normal = randn


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """``paddle.normal``: normal samples of ``shape`` with the float ``mean`` and ``std``."""
    if shape is None:
        raise ValueError("normal(): argument 'shape' is required (tensor means are not "
                         "supported)")
    return _L.gaussian_random(shape, float(mean), float(std))


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """``paddle.randint``: integers drawn uniformly from [low, high) (from [0, low) when
    ``high`` is None), int64 by default."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    if low >= high:
        raise ValueError(f"randint(): argument 'high' ({high}) must be greater than 'low' "
                         f"({low})")
    dtype = np.dtype(dtype or "int64")
    if dtype.kind not in "iu":
        raise TypeError(f"randint(): argument 'dtype' must be an integer type, got {dtype.name}")
    samples = _L.uniform_random(list(shape), "float64", float(low), float(high))
    # NOTE: a float64 draw below ``high`` can round up to it; the clip keeps the bound open
    return _L.cast(_L.clip(_L.floor(samples), float(low), float(high - 1)), dtype.name)


def randperm(n, dtype="int64", name=None):
    """``paddle.randperm``: a random permutation of 0 .. n-1."""
    n = int(n)
    if n < 1:
        raise ValueError(f"randperm(): argument 'n' must be >= 1, got {n}")
    order = argsort(_L.uniform_random([n], "float64", 0.0, 1.0))
    return order if np.dtype(dtype) == np.int64 else _L.cast(order, dtype)

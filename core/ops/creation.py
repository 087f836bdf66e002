"""Creation ops (fill_constant, fill_any_like, range, linspace) and random ops
(uniform_random, gaussian_random, truncated_gaussian_random); ``fill_constant_tensor``,
``uniform_random_tensor`` and ``gaussian_random_tensor`` take their shape from a 1-D int
tensor known only at run time (Paddle's ShapeTensor).

None has a gradient. ``shape`` is a list of ints and ``dtype`` a dtype name; the output has
exactly that dtype. Random ops draw from ``ctx.rng()`` when ``seed`` is 0, else from a fresh
generator seeded with ``seed`` (so a fixed seed gives the same values on every run).
"""
import math

from ..dtypes import convert_dtype
from ..random import make_generator
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["range_length", "shape_from_tensor"]


class _Create(OpDef):
    inputs = ()
    differentiable = False

    def infer(self, shape, dtype, **attrs):
        return Meta(tuple(int(d) for d in shape), convert_dtype(dtype))


@register_op
class fill_constant(_Create):
    """A tensor of ``shape`` and ``dtype`` filled with ``value``."""

    attrs = {"shape": [], "dtype": "float32", "value": 0.0}

    def forward(self, ctx, shape, dtype, value):
        return ctx.xp.full(tuple(shape), value, dtype=convert_dtype(dtype))


@register_op
class fill_any_like(OpDef):
    """A tensor of X's shape filled with ``value``; ``dtype`` None means X's dtype."""

    attrs = {"value": 0.0, "dtype": None}
    differentiable = False

    def infer(self, x, value, dtype):
        return Meta(tuple(x.shape), convert_dtype(x.dtype if dtype is None else dtype))

    def forward(self, ctx, x, value, dtype):
        d = x.dtype if dtype is None else convert_dtype(dtype)
        return ctx.xp.full(x.shape, value, dtype=d)


def range_length(start, end, step):
    """Number of elements of ``arange(start, end, step)`` (numpy's formula)."""
    if step == 0:
        raise ShapeError("op 'range': step must not be 0")
    return max(math.ceil((end - start) / step), 0)


@register_op
class range(_Create):
    """``start, start + step, ...`` up to (not including) ``end``."""

    attrs = {"start": 0, "end": 1, "step": 1, "dtype": "int64"}

    def infer(self, start, end, step, dtype):
        return Meta((range_length(start, end, step),), convert_dtype(dtype))

    def forward(self, ctx, start, end, step, dtype):
        range_length(start, end, step)
        return ctx.xp.arange(start, end, step, dtype=convert_dtype(dtype))


@register_op
class range_tensor(OpDef):
    """``range`` whose ``Start``, ``End`` and ``Step`` are one-element tensors, read when the
    op runs (``arange(n)`` with a tensor ``n`` in a static program): its length is known only
    then."""

    inputs = ("Start", "End", "Step")
    attrs = {"dtype": "int64"}
    differentiable = False

    def infer(self, start, end, step, dtype):
        for slot, v in (("Start", start), ("End", end), ("Step", step)):
            if any(d not in (1, -1) for d in v.shape):
                raise ShapeError(f"op 'range_tensor': {slot} must hold one element, got shape "
                                 f"{list(v.shape)}")
        return Meta((-1,), convert_dtype(dtype))

    def forward(self, ctx, start, end, step, dtype):
        bounds = [v.reshape(-1)[0].item() for v in (start, end, step)]
        range_length(*bounds)
        return ctx.xp.arange(*bounds, dtype=convert_dtype(dtype))


@register_op
class linspace(_Create):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""

    attrs = {"start": 0.0, "stop": 1.0, "num": 1, "dtype": "float32"}

    def infer(self, start, stop, num, dtype):
        return Meta((int(num),), convert_dtype(dtype))

    def forward(self, ctx, start, stop, num, dtype):
        return ctx.xp.linspace(start, stop, int(num)).astype(convert_dtype(dtype), copy=False)


def _generator(ctx, seed):
    return ctx.rng() if seed == 0 else make_generator(ctx.xp, seed)


@register_op
class uniform_random(_Create):
    """Uniform samples in ``[min, max)``."""

    attrs = {"shape": [], "dtype": "float32", "min": -1.0, "max": 1.0, "seed": 0}
    random = True

    def forward(self, ctx, shape, dtype, min, max, seed):
        # NOTE: Generator.random (float64 in [0, 1)) exists in numpy and cupy alike; scaling it
        # keeps one code path for both.
        u = _generator(ctx, seed).random(tuple(shape))
        return (min + (max - min) * u).astype(convert_dtype(dtype), copy=False)


@register_op
class gaussian_random(_Create):
    """Normal samples with ``mean`` and ``std``."""

    attrs = {"shape": [], "dtype": "float32", "mean": 0.0, "std": 1.0, "seed": 0}
    random = True

    def forward(self, ctx, shape, dtype, mean, std, seed):
        z = _generator(ctx, seed).standard_normal(tuple(shape))
        return (mean + std * z).astype(convert_dtype(dtype), copy=False)


@register_op
class truncated_gaussian_random(_Create):
    """Normal samples with ``mean`` and ``std``; draws beyond 2 std are redrawn."""

    attrs = {"shape": [], "dtype": "float32", "mean": 0.0, "std": 1.0, "seed": 0}
    random = True

    def forward(self, ctx, shape, dtype, mean, std, seed):
        gen = _generator(ctx, seed)
        z = gen.standard_normal(tuple(shape))
        bad = ctx.xp.abs(z) > 2.0
        n_bad = int(bad.sum())
        while n_bad:  # NOTE: each round keeps ~95% of the redraws, so this ends quickly
            z[bad] = gen.standard_normal(n_bad)
            bad = ctx.xp.abs(z) > 2.0
            n_bad = int(bad.sum())
        return (mean + std * z).astype(convert_dtype(dtype), copy=False)


def shape_from_tensor(target, shape, what):
    """The run-time dims held by the 1-D int array ``target``, checked against the static
    view ``shape`` (-1 where the tensor decides)."""
    dims = [int(d) for d in target.reshape(-1).tolist()]
    if len(dims) != len(shape) or any(d < 0 for d in dims) or \
            any(s != -1 and s != d for s, d in zip(shape, dims)):
        raise ShapeError(f"{what}: the shape tensor holds {dims}, expected {len(shape)} "
                         f"non-negative dims matching {list(shape)} (-1: any)")
    return dims


class _CreateByTensor(OpDef):
    """A creation op whose ``shape`` is the 1-D int tensor ``ShapeTensor``; the ``shape`` attr
    is the static view (-1 where the tensor decides)."""

    inputs = ("ShapeTensor",)
    differentiable = False
    base = None

    def infer(self, target, shape, dtype, **attrs):
        if len(target.shape) != 1 or target.shape[0] not in (-1, len(shape)):
            raise ShapeError(f"{self.type}: the shape tensor has shape {list(target.shape)}, "
                             f"expected [{len(shape)}]")
        return Meta(tuple(int(d) for d in shape), convert_dtype(dtype))

    def forward(self, ctx, target, shape, **attrs):
        dims = shape_from_tensor(target, shape, self.type)
        return self.base.forward(self, ctx, dims, **attrs)


@register_op
class fill_constant_tensor(_CreateByTensor):
    """``fill_constant`` with the shape read from ``ShapeTensor``."""

    attrs = {"shape": [], "dtype": "float32", "value": 0.0}
    base = fill_constant


@register_op
class uniform_random_tensor(_CreateByTensor):
    """``uniform_random`` with the shape read from ``ShapeTensor``."""

    attrs = {"shape": [], "dtype": "float32", "min": -1.0, "max": 1.0, "seed": 0}
    random = True
    base = uniform_random


@register_op
class gaussian_random_tensor(_CreateByTensor):
    """``gaussian_random`` with the shape read from ``ShapeTensor``."""

    attrs = {"shape": [], "dtype": "float32", "mean": 0.0, "std": 1.0, "seed": 0}
    random = True
    base = gaussian_random

"""``interpolate``: nearest, linear, bilinear, trilinear and bicubic resizing, as Paddle's
``*_interp_v2`` kernels define them.

Every method is separable: along each spatial axis the output is a fixed linear map of the
input, an ``[out, in]`` matrix built from Paddle's source-index rule for that axis. The
forward pass applies the matrices axis by axis (one GEMM each) and the gradient applies their
transposes, so there is no loop over pixels and the gradient is exact.

Paddle's rules, with ``ratio = (in - 1) / (out - 1)`` under ``align_corners`` and otherwise
``1 / scale`` when a scale is given or ``in / out`` (kept in float32, as Paddle keeps it):

* nearest: source ``int(ratio * i + 0.5)`` with ``align_corners``, else ``int(ratio * i)``;
* linear family: with ``align_mode == 0`` and no ``align_corners`` the half-pixel source
  ``max(ratio * (i + 0.5) - 0.5, 0)``, otherwise ``ratio * i``; the two neighbours
  ``floor``, ``floor + 1`` (clamped to the last index) weighted by the fraction;
* bicubic: source ``ratio * i`` with ``align_corners``, else ``ratio * (i + 0.5) - 0.5``
  (``align_mode`` is not used); Keys' cubic with ``A = -0.75`` over the four neighbours,
  indices clamped to the edge.

When every output size equals the input size the result is a copy of the input.
"""
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["interpolate", "interp_ratio"]

_METHODS = {"nearest": (1, 2, 3), "linear": (1,), "bilinear": (2,), "trilinear": (3,),
            "bicubic": (2,)}
_FIRST = ("NCW", "NCHW", "NCDHW")
_LAST = ("NWC", "NHWC", "NDHWC")


def _spatial_axes(ndim, data_format):
    if data_format in _FIRST:
        return list(range(2, ndim))
    return list(range(1, ndim - 1))


def interp_ratio(xp, size_in, size_out, scale, align_corners):
    """Paddle's float32 ratio from output to input coordinates along one axis."""
    f32 = xp.float32
    if size_out <= 1:
        return f32(0)
    if align_corners:
        return f32(size_in - 1) / f32(size_out - 1)
    if scale is not None and scale > 0:
        return f32(1.0 / scale)
    return f32(size_in) / f32(size_out)


def _cubic(xp, t):
    """Keys' cubic weights of the four neighbours at fraction ``t`` (A = -0.75)."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _matrix(xp, method, size_in, size_out, scale, align_corners, align_mode):
    """The ``[size_out, size_in]`` float64 map of one axis."""
    ratio32 = interp_ratio(xp, size_in, size_out, scale, align_corners)
    ratio = float(ratio32)
    i = xp.arange(size_out)
    rows = xp.arange(size_out)
    mat = xp.zeros((size_out, size_in), dtype=xp.float64)
    if method == "nearest":
        src = (i * ratio32).astype(xp.float32).astype(xp.float64)
        idx = xp.minimum((src + 0.5 if align_corners else src).astype(xp.int64), size_in - 1)
        mat[rows, idx] = 1.0
        return mat
    if method == "bicubic":
        src = i * ratio if align_corners else ratio * (i + 0.5) - 0.5
        base = xp.floor(src)
        t = src - base
        base = base.astype(xp.int64)
        for k, w in enumerate(_cubic(xp, t)):
            idx = xp.clip(base - 1 + k, 0, size_in - 1)
            mat[rows, idx] += w
        return mat
    if align_mode == 0 and not align_corners:
        src = xp.maximum(ratio * (i + 0.5) - 0.5, 0.0).astype(xp.float32).astype(xp.float64)
    else:
        src = (i * ratio32).astype(xp.float32).astype(xp.float64)
    lo = src.astype(xp.int64)
    hi = xp.minimum(lo + 1, size_in - 1)
    frac = src - lo
    mat[rows, lo] += 1.0 - frac
    mat[rows, hi] += frac
    return mat


def _check(shape, interp_method, out_shape, scale, data_format):
    if interp_method not in _METHODS:
        raise ShapeError(f"interpolate: interp_method must be one of {sorted(_METHODS)}, got "
                         f"{interp_method!r}")
    if data_format not in _FIRST + _LAST:
        raise ShapeError(f"interpolate: data_format must be one of {list(_FIRST + _LAST)}, "
                         f"got {data_format!r}")
    d = len(shape) - 2
    if d not in _METHODS[interp_method] or len(data_format) != len(shape):
        raise ShapeError(f"interpolate: {interp_method} interpolation of a {len(shape)}-D X "
                         f"(shape {list(shape)}) in {data_format} is not defined")
    if len(out_shape) != d or min(out_shape) < 1:
        raise ShapeError(f"interpolate: out_shape must hold {d} sizes >= 1, got "
                         f"{list(out_shape)}")
    if scale and len(scale) != d:
        raise ShapeError(f"interpolate: scale must be empty or hold {d} factors, got "
                         f"{list(scale)}")
    return _spatial_axes(len(shape), data_format)


def _apply(xp, x, mats, axes):
    for ax, m in zip(axes, mats):
        moved = xp.moveaxis(x, ax, -1)
        x = xp.moveaxis(xp.matmul(moved, m.T), -1, ax)
    return x


@register_op
class interpolate(OpDef):
    """Resize the spatial axes of ``X`` to ``out_shape`` with ``interp_method``."""

    attrs = {"interp_method": "bilinear", "out_shape": [1, 1], "scale": [],
             "align_corners": True, "align_mode": 1, "data_format": "NCHW"}

    def infer(self, x, interp_method, out_shape, scale, align_corners, align_mode,
              data_format):
        axes = _check(x.shape, interp_method, out_shape, scale, data_format)
        shape = list(x.shape)
        for ax, o in zip(axes, out_shape):
            shape[ax] = int(o)
        return Meta(tuple(shape), x.dtype)

    def _mats(self, xp, x, interp_method, out_shape, scale, align_corners, align_mode,
              data_format, dtype):
        axes = _check(x.shape, interp_method, out_shape, scale, data_format)
        sizes = [x.shape[a] for a in axes]
        if list(sizes) == [int(o) for o in out_shape]:
            return axes, None
        scales = list(scale) if scale else [None] * len(axes)
        mats = [_matrix(xp, interp_method, s, int(o), sc, align_corners,
                        align_mode).astype(dtype)
                for s, o, sc in zip(sizes, out_shape, scales)]
        return axes, mats

    def forward(self, ctx, x, **attrs):
        axes, mats = self._mats(ctx.xp, x, dtype=x.dtype, **attrs)
        if mats is None:
            return x.copy()
        return ctx.xp.ascontiguousarray(_apply(ctx.xp, x, mats, axes))

    def backward(self, ctx, ins, outs, douts, **attrs):
        x = ins[0]
        axes, mats = self._mats(ctx.xp, x, dtype=x.dtype, **attrs)
        if mats is None:
            return (douts[0].astype(x.dtype, copy=True),)
        dx = _apply(ctx.xp, douts[0], [m.T for m in mats], axes)
        return (ctx.xp.ascontiguousarray(dx).astype(x.dtype, copy=False),)

"""Neural-network ops: ``dropout`` and ``lookup_table`` (embedding) here; convolution, pooling
and normalisation live in ``conv.py``, ``pool.py`` and ``norm.py``."""
import numpy as np

from ..random import make_generator
from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["dropout", "lookup_table"]

_MODES = ("downgrade_in_infer", "upscale_in_train")


def _check_dropout(p, impl):
    if not 0.0 <= p <= 1.0:
        raise ShapeError(f"dropout: dropout_prob must be in [0, 1], got {p}")
    if impl not in _MODES:
        raise ShapeError(f"dropout: dropout_implementation must be one of {list(_MODES)}, got "
                         f"{impl!r}")


@register_op
class dropout(OpDef):
    """Zero each element with probability ``dropout_prob`` in training.

    ``downgrade_in_infer``: training keeps survivors as they are, inference scales by
    ``1 - p``. ``upscale_in_train``: training scales survivors by ``1 / (1 - p)``, inference is
    the identity. ``Mask`` (uint8, 1 = kept) is what the backward pass multiplies by.
    """

    outputs = ("Out", "Mask")
    attrs = {"dropout_prob": 0.5, "is_test": False, "seed": 0,
             "dropout_implementation": "downgrade_in_infer"}
    nondiff_outputs = ("Mask",)
    random = True

    def infer(self, x, dropout_prob, is_test, seed, dropout_implementation):
        _check_dropout(dropout_prob, dropout_implementation)
        return Meta(tuple(x.shape), x.dtype), Meta(tuple(x.shape), np.dtype(np.uint8))

    def forward(self, ctx, x, dropout_prob, is_test, seed, dropout_implementation):
        xp = ctx.xp
        _check_dropout(dropout_prob, dropout_implementation)
        if is_test:
            mask = xp.ones(x.shape, dtype=xp.uint8)
            if dropout_implementation == "upscale_in_train":
                return x.copy(), mask
            return (x * x.dtype.type(1 - dropout_prob)).astype(x.dtype, copy=False), mask
        gen = make_generator(xp, seed) if seed else ctx.rng()
        # NOTE: draws are float32 whatever x's dtype, so a seed gives the same mask for a
        # float32 run and its float64 gradient check.
        keep = gen.random(x.shape, dtype=xp.float32) >= dropout_prob
        out = x * keep
        if dropout_implementation == "upscale_in_train":
            out = out * x.dtype.type(_upscale(dropout_prob))
        return out.astype(x.dtype, copy=False), keep.astype(xp.uint8)

    def backward(self, ctx, ins, outs, douts, dropout_prob, is_test, seed,
                 dropout_implementation):
        dout, x = douts[0], ins[0]
        upscale = dropout_implementation == "upscale_in_train"
        if is_test:
            dx = dout if upscale else dout * x.dtype.type(1 - dropout_prob)
        else:
            dx = dout * outs[1]
            if upscale:
                dx = dx * x.dtype.type(_upscale(dropout_prob))
        return (dx.astype(x.dtype, copy=False),)


def _upscale(p):
    # NOTE: p == 1 drops everything; the factor is then irrelevant and must not be inf.
    return 0.0 if p >= 1.0 else 1.0 / (1.0 - p)


@register_op
class lookup_table(OpDef):
    """Embedding lookup: ``Out[..., :] = W[Ids[...], :]`` for integer ``Ids`` of any shape.

    ``padding_idx`` (-1: none) names a row that reads as zeros and receives no gradient.
    The gradient of ``W`` is dense; repeated ids accumulate.
    """

    inputs = ("W", "Ids")
    attrs = {"padding_idx": -1}
    nondiff_inputs = ("Ids",)

    def infer(self, w, ids, padding_idx):
        if len(w.shape) != 2:
            raise ShapeError(f"lookup_table: W must be 2-D [vocab, dim], got {list(w.shape)}")
        if np.dtype(ids.dtype).kind not in "iu":
            raise ShapeError(f"lookup_table: Ids must be an integer tensor, got {ids.dtype}")
        return Meta(tuple(ids.shape) + (w.shape[1],), w.dtype)

    def forward(self, ctx, w, ids, padding_idx):
        xp = ctx.xp
        if w.ndim != 2:
            raise ShapeError(f"lookup_table: W must be 2-D [vocab, dim], got {list(w.shape)}")
        if ids.dtype.kind not in "iu":
            raise ShapeError(f"lookup_table: Ids must be an integer array, got {ids.dtype}")
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= w.shape[0]):
            raise IndexError(f"lookup_table: Ids must lie in [0, {w.shape[0]}) (rows of W "
                             f"{list(w.shape)}), got values in [{int(ids.min())}, "
                             f"{int(ids.max())}]")
        out = xp.take(w, ids, axis=0)
        if padding_idx != -1:
            out[ids == padding_idx] = 0
        return out

    def backward(self, ctx, ins, outs, douts, padding_idx):
        xp = ctx.xp
        w, ids = ins
        dw = xp.zeros_like(w)
        xp.add.at(dw, ids.reshape(-1), douts[0].reshape(-1, w.shape[1]))
        if padding_idx != -1:
            dw[padding_idx] = 0
        return dw, None

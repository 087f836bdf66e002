"""Beam search ops over padded batches: ``gather_tree``, ``beam_search`` and
``beam_search_decode``.

PaddlePaddle's fluid beam search keeps the live hypotheses of each source sentence in a LoD
tensor whose levels say which row came from which. Here a batch of ``batch`` sources always
has ``batch * beam_size`` rows, source ``b`` owning rows ``b * beam_size ... b * beam_size +
beam_size - 1``; a row whose last id is ``end_id`` is finished and keeps its score. Which row
each selected hypothesis extends is an explicit ``ParentIdx`` output (a global row number),
and ``beam_search_decode`` takes those parents instead of reading them from LoD levels.
None of the ops has a gradient: they move integer ids and already computed scores.
"""
import numpy as np

from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = []


def _known(*dims):
    return all(d is not None and d >= 0 for d in dims)


def _check_int(meta, op, slot):
    if np.dtype(meta.dtype).kind not in "iu":
        raise ShapeError(f"op '{op}': {slot} must hold integers, got {np.dtype(meta.dtype).name}")


def _parent_error(op, slot, bad, bound):
    return ValueError(f"op '{op}': {slot} holds {int(bad)}, outside [0, {bound}) (a parent "
                      f"index must name a hypothesis of the previous step)")


@register_op
class gather_tree(OpDef):
    """The full id sequence of every beam: ``Ids`` and ``Parents`` are ``[max_time, batch,
    beam]``; step ``t`` of beam ``k`` in the result is the id its ancestor chose at ``t``,
    found by following ``Parents`` (indices into the beam dim) back from the last step."""

    inputs = ("Ids", "Parents")
    differentiable = False

    def infer(self, ids, parents):
        for slot, m in (("Ids", ids), ("Parents", parents)):
            _check_int(m, "gather_tree", slot)
            if len(m.shape) != 3:
                raise ShapeError(f"op 'gather_tree': {slot} must be [max_time, batch, beam], "
                                 f"got shape {list(m.shape)}")
        for a, b in zip(ids.shape, parents.shape):
            if _known(a, b) and a != b:
                raise ShapeError(f"op 'gather_tree': Ids {list(ids.shape)} and Parents "
                                 f"{list(parents.shape)} must have the same shape")
        return Meta(tuple(ids.shape), np.dtype(ids.dtype))

    def forward(self, ctx, ids, parents):
        xp = ctx.xp
        if ids.shape != parents.shape or ids.ndim != 3:
            raise ValueError(f"op 'gather_tree': Ids {list(ids.shape)} and Parents "
                             f"{list(parents.shape)} must both be [max_time, batch, beam]")
        out = xp.empty_like(ids)
        steps, beam = ids.shape[0], ids.shape[2]
        if steps == 0 or ids.size == 0:
            return out
        if int(parents.min()) < 0 or int(parents.max()) >= beam:
            bad = parents.min() if int(parents.min()) < 0 else parents.max()
            raise _parent_error("gather_tree", "Parents", bad, beam)
        out[-1] = ids[-1]
        parent = parents[-1].astype(np.int64)
        # NOTE: one vectorised gather per step, walking back from the last one.
        for t in range(steps - 2, -1, -1):
            out[t] = xp.take_along_axis(ids[t], parent, axis=1)
            parent = xp.take_along_axis(parents[t], parent, axis=1).astype(np.int64)
        return out


def _rows_beam(n, beam_size, op):
    if beam_size < 1:
        raise ShapeError(f"op '{op}': beam_size must be >= 1, got {beam_size}")
    if _known(n) and n % beam_size:
        raise ShapeError(f"op '{op}': the number of rows ({n}) must be batch * beam_size "
                         f"(beam_size={beam_size})")


@register_op
class beam_search(OpDef):
    """One step of fluid's beam search over ``batch * beam_size`` rows.

    Row ``i`` extends hypothesis ``i`` (last id ``PreIds[i]``, score ``PreScores[i]``) by the
    candidates ``Ids[i, j]`` scored ``Scores[i, j]`` (``Ids`` None: candidate ``j`` is id
    ``j``); with ``is_accumulated`` False a candidate's score is ``PreScores[i] +
    log(Scores[i, j])``. A finished row (``PreIds[i] == end_id``) has one candidate, ``end_id``
    with its own score. Per source the ``beam_size`` best candidates are kept, best first
    (ties: the lower row, then the lower candidate); ``ParentIdx`` is the row each extends.
    """

    inputs = ("PreIds", "PreScores", "Ids", "Scores")
    outputs = ("SelectedIds", "SelectedScores", "ParentIdx")
    attrs = {"beam_size": 1, "end_id": 0, "level": 0, "is_accumulated": True}
    differentiable = False

    def infer(self, pre_ids, pre_scores, ids, scores, beam_size, end_id, level,
              is_accumulated):
        if len(scores.shape) != 2:
            raise ShapeError(f"op 'beam_search': Scores must be [batch * beam_size, K], got "
                             f"shape {list(scores.shape)}")
        n = scores.shape[0]
        _rows_beam(n, beam_size, "beam_search")
        _check_int(pre_ids, "beam_search", "PreIds")
        for slot, m in (("PreIds", pre_ids), ("PreScores", pre_scores)):
            if len(m.shape) not in (1, 2) or (len(m.shape) == 2 and m.shape[1] != 1) or \
                    (_known(n, m.shape[0]) and m.shape[0] != n):
                raise ShapeError(f"op 'beam_search': {slot} must be [{n}, 1] (one entry per "
                                 f"row of Scores {list(scores.shape)}), got {list(m.shape)}")
        if ids is not None:
            _check_int(ids, "beam_search", "Ids")
            if len(ids.shape) != 2 or any(_known(a, b) and a != b
                                          for a, b in zip(ids.shape, scores.shape)):
                raise ShapeError(f"op 'beam_search': Ids {list(ids.shape)} must have the shape "
                                 f"of Scores {list(scores.shape)}")
        dt = np.dtype(scores.dtype)
        return (Meta((n, 1), np.dtype(np.int64)), Meta((n, 1), dt),
                Meta((n,), np.dtype(np.int64)))

    def forward(self, ctx, pre_ids, pre_scores, ids, scores, beam_size, end_id, level,
                is_accumulated):
        xp = ctx.xp
        n, k = scores.shape
        if beam_size < 1 or n % beam_size:
            raise ValueError(f"op 'beam_search': {n} rows of Scores are not batch * beam_size "
                             f"(beam_size={beam_size})")
        pre_ids = pre_ids.reshape(n).astype(np.int64)
        pre_scores = pre_scores.reshape(n).astype(scores.dtype)
        cand_ids = (xp.broadcast_to(xp.arange(k, dtype=np.int64), (n, k)) if ids is None
                    else ids.astype(np.int64))
        cand = scores if is_accumulated else pre_scores[:, None] + xp.log(scores)
        done = (pre_ids == end_id)[:, None]
        first = xp.arange(k) == 0
        cand_ids = xp.where(done, np.int64(end_id), cand_ids)
        cand = xp.where(done, pre_scores[:, None], cand).astype(scores.dtype)
        valid = ~done | first
        batch = n // beam_size
        cand = cand.reshape(batch, beam_size * k)
        valid = valid.reshape(batch, beam_size * k)
        # NOTE: two stable sorts make a lexicographic order: valid first, then the higher
        # score, then the lower position (a valid -inf score still beats an invalid slot).
        order = xp.argsort(-cand, axis=1, kind="stable")
        inval = (~xp.take_along_axis(valid, order, axis=1)).astype(np.int8)
        order = xp.take_along_axis(order, xp.argsort(inval, axis=1, kind="stable"), axis=1)
        pick = order[:, :beam_size]
        sel_scores = xp.take_along_axis(cand, pick, axis=1).reshape(n, 1)
        sel_ids = xp.take_along_axis(cand_ids.reshape(batch, beam_size * k), pick, axis=1)
        parent = pick // k + (xp.arange(batch, dtype=np.int64) * beam_size)[:, None]
        return sel_ids.reshape(n, 1), sel_scores, parent.reshape(n).astype(np.int64)


@register_op
class beam_search_decode(OpDef):
    """The sentences a run of ``beam_search`` steps found: ``Ids``, ``Scores`` and
    ``Parents`` are ``[steps, batch * beam_size]`` (each step's selected ids, scores and parent
    rows). ``SentenceIds`` / ``SentenceScores`` are ``[batch, beam_size, steps]``: each
    hypothesis of the last step traced back to the first, its score after each step, the
    hypotheses of a source sorted by final score (best first); positions after a
    sentence's first ``end_id`` hold ``end_id`` and the final score."""

    inputs = ("Ids", "Scores", "Parents")
    outputs = ("SentenceIds", "SentenceScores")
    attrs = {"beam_size": 1, "end_id": 0}
    differentiable = False

    def infer(self, ids, scores, parents, beam_size, end_id):
        for slot, m in (("Ids", ids), ("Scores", scores), ("Parents", parents)):
            if len(m.shape) != 2 or any(_known(a, b) and a != b
                                        for a, b in zip(m.shape, ids.shape)):
                raise ShapeError(f"op 'beam_search_decode': {slot} must be [steps, batch * "
                                 f"beam_size] like Ids {list(ids.shape)}, got {list(m.shape)}")
        _check_int(ids, "beam_search_decode", "Ids")
        _check_int(parents, "beam_search_decode", "Parents")
        steps, n = ids.shape
        _rows_beam(n, beam_size, "beam_search_decode")
        batch = n // beam_size if _known(n) else -1
        shape = (batch, beam_size, steps)
        return Meta(shape, np.dtype(np.int64)), Meta(shape, np.dtype(scores.dtype))

    def forward(self, ctx, ids, scores, parents, beam_size, end_id):
        xp = ctx.xp
        steps, n = ids.shape
        if beam_size < 1 or n % beam_size:
            raise ValueError(f"op 'beam_search_decode': {n} rows are not batch * beam_size "
                             f"(beam_size={beam_size})")
        batch = n // beam_size
        out_ids = xp.empty((steps, n), np.int64)
        out_sc = xp.empty((steps, n), scores.dtype)
        if steps and n:
            if int(parents.min()) < 0 or int(parents.max()) >= n:
                bad = parents.min() if int(parents.min()) < 0 else parents.max()
                raise _parent_error("beam_search_decode", "Parents", bad, n)
        row = xp.arange(n, dtype=np.int64)
        for t in range(steps - 1, -1, -1):
            out_ids[t] = ids[t, row]
            out_sc[t] = scores[t, row]
            row = parents[t, row].astype(np.int64)
        if steps:
            is_end = out_ids == end_id
            after = (xp.cumsum(is_end, axis=0) - is_end) > 0
            out_ids = xp.where(after, np.int64(end_id), out_ids)
            # the score at each sentence's end, carried over the padding after it
            ends = xp.argmax(is_end, axis=0)
            end_score = xp.where(is_end.any(axis=0), out_sc[ends, xp.arange(n)], out_sc[-1])
            out_sc = xp.where(after, end_score[None, :], out_sc).astype(scores.dtype)
        out_ids = out_ids.T.reshape(batch, beam_size, steps)
        out_sc = out_sc.T.reshape(batch, beam_size, steps)
        if steps:
            order = xp.argsort(-out_sc[:, :, -1], axis=1, kind="stable")
            out_ids = xp.take_along_axis(out_ids, order[:, :, None], axis=1)
            out_sc = xp.take_along_axis(out_sc, order[:, :, None], axis=1)
        return out_ids, out_sc


@register_op
class beam_gather(OpDef):
    """``Out[b, k, ...] = X[b, Index[b, k], ...]``: the entries of each source's beams that
    ``Index`` ``[batch, beam]`` picks (how a beam search reorders its state after a step)."""

    inputs = ("X", "Index")
    nondiff_inputs = ("Index",)

    def infer(self, x, index):
        _check_int(index, "beam_gather", "Index")
        if len(x.shape) < 2 or len(index.shape) != 2 or \
                (_known(x.shape[0], index.shape[0]) and x.shape[0] != index.shape[0]):
            raise ShapeError(f"op 'beam_gather': X must be [batch, beam, ...] and Index [batch, "
                             f"beam], got {list(x.shape)} and {list(index.shape)}")
        return Meta(tuple(index.shape) + tuple(x.shape[2:]), np.dtype(x.dtype))

    def forward(self, ctx, x, index):
        xp = ctx.xp
        if index.size and (int(index.min()) < 0 or int(index.max()) >= x.shape[1]):
            bad = index.min() if int(index.min()) < 0 else index.max()
            raise _parent_error("beam_gather", "Index", bad, x.shape[1])
        rows = xp.arange(x.shape[0])[:, None]
        return x[rows, index.astype(np.int64)]

    def backward(self, ctx, ins, outs, douts):
        xp = ctx.xp
        x, index = ins
        dx = xp.zeros_like(x)
        rows = xp.broadcast_to(xp.arange(x.shape[0])[:, None], index.shape)
        xp.add.at(dx, (rows, index.astype(np.int64)), douts[0])
        return dx, None

"""Linear-chain CRF ops over padded batches (see :mod:`core.ops.sequence` for the layout).

The transition weight has PaddlePaddle's layout ``[num_tags + 2, num_tags]``: row 0 holds the
start scores, row 1 the end scores, rows ``2 + i`` the score of tag ``i`` followed by each
tag. The score of a tag path ``y`` of a sequence of length ``L`` with emissions ``E`` is
``start[y_0] + sum_t E[t, y_t] + sum_{t>0} trans[y_{t-1}, y_t] + end[y_{L-1}]``.

* ``linear_chain_crf``: ``log Z - score(label)`` per sequence (the negative log-likelihood;
  0 for an empty sequence), by the forward algorithm in log space, vectorised over the
  batch; the backward pass runs the backward algorithm and gives the expected minus the
  observed emission and transition counts.
* ``crf_decoding``: the highest-scoring path by Viterbi (int64, 0 past each length).
* ``chunk_eval``: chunk precision / recall / F1 of tag sequences (IOB, IOE, IOBES, plain).
"""
import numpy as np

from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op
from .sequence import check_lengths

__all__ = ["chunk_eval", "crf_decoding", "linear_chain_crf"]


def _lse(xp, a, axis):
    top = xp.max(a, axis=axis, keepdims=True)
    return (top + xp.log(xp.sum(xp.exp(a - top), axis=axis, keepdims=True))).squeeze(axis)


def _check(op, emission, transition, length):
    if emission.ndim != 3:
        raise ShapeError(f"{op}: Emission must be [batch, time, num_tags], got "
                         f"{list(emission.shape)}")
    k = emission.shape[2]
    if transition.shape != (k + 2, k):
        raise ShapeError(f"{op}: Transition must be [num_tags + 2, num_tags] = [{k + 2}, {k}] "
                         f"for Emission {list(emission.shape)}, got {list(transition.shape)}")
    return check_lengths(op, length, emission.shape[0], emission.shape[1])


def _check_meta(op, emission, transition):
    if len(emission.shape) != 3:
        raise ShapeError(f"{op}: Emission must be [batch, time, num_tags], got "
                         f"{list(emission.shape)}")
    k = emission.shape[2]
    if k >= 0 and tuple(transition.shape) not in ((k + 2, k),):
        raise ShapeError(f"{op}: Transition must be [num_tags + 2, num_tags] = [{k + 2}, {k}] "
                         f"for Emission {list(emission.shape)}, got {list(transition.shape)}")


def _alpha(xp, e, trans, start):
    """Forward log-scores ``alpha[b, t, j]`` of all paths ending in tag j at step t."""
    n, t, k = e.shape
    alpha = xp.empty((n, t, k), dtype=e.dtype)
    alpha[:, 0] = start + e[:, 0]
    for s in range(1, t):
        alpha[:, s] = _lse(xp, alpha[:, s - 1][:, :, None] + trans[None], 1) + e[:, s]
    return alpha


def _last(xp, a, length):
    """``a[b, length[b] - 1]`` (step 0 for empty sequences)."""
    return a[xp.arange(a.shape[0]), xp.maximum(length - 1, 0)]


@register_op
class linear_chain_crf(OpDef):
    """The negative log-likelihood ``[batch, 1]`` of ``Label`` ``[batch, time]`` under the CRF
    with ``Emission`` ``[batch, time, num_tags]`` and ``Transition``."""

    inputs = ("Emission", "Transition", "Label", "Length")
    outputs = ("LogLikelihood",)
    nondiff_inputs = ("Label", "Length")

    def infer(self, emission, transition, label, length):
        _check_meta("linear_chain_crf", emission, transition)
        return Meta((emission.shape[0], 1), emission.dtype)

    @staticmethod
    def _labels(xp, label, e):
        if label.shape != e.shape[:2]:
            raise ShapeError(f"linear_chain_crf: Label must be [batch, time] = "
                             f"{list(e.shape[:2])}, got {list(label.shape)}")
        if label.dtype.kind not in "iu":
            raise ShapeError(f"linear_chain_crf: Label must be integer tags, got dtype "
                             f"{label.dtype}")
        return label.astype(np.int64, copy=False)

    def _prepare(self, ctx, emission, transition, label, length):
        xp = ctx.xp
        length = _check("linear_chain_crf", emission, transition, length)
        label = self._labels(xp, label, emission)
        t, k = emission.shape[1], emission.shape[2]
        valid = xp.arange(t)[None, :] < length[:, None]
        if valid.any():
            used = label[valid]
            if int(used.min()) < 0 or int(used.max()) >= k:
                raise ValueError(f"linear_chain_crf: Label must lie in [0, {k}) (num_tags of "
                                 f"Emission {list(emission.shape)}), got values in "
                                 f"[{int(used.min())}, {int(used.max())}]")
        label = xp.where(valid, label, 0)
        e = emission.astype(np.float64)
        w = transition.astype(np.float64)
        return xp, e, w, label, length, valid

    def forward(self, ctx, emission, transition, label, length):
        xp, e, w, label, length, valid = self._prepare(ctx, emission, transition, label, length)
        n, t = e.shape[0], e.shape[1]
        if t == 0:
            return xp.zeros((n, 1), dtype=emission.dtype)
        start, end, trans = w[0], w[1], w[2:]
        alpha = _alpha(xp, e, trans, start)
        log_z = _lse(xp, _last(xp, alpha, length) + end, 1)
        gold = (xp.take_along_axis(e, label[:, :, None], 2)[:, :, 0] * valid).sum(1)
        pair = trans[label[:, :-1], label[:, 1:]] * valid[:, 1:]
        gold = gold + pair.sum(1) + start[label[:, 0]] + end[_last(xp, label, length)]
        nll = xp.where(length > 0, log_z - gold, 0.0)
        return nll[:, None].astype(emission.dtype)

    def backward(self, ctx, ins, outs, douts):
        emission, transition, label, length = ins
        xp, e, w, label, length, valid = self._prepare(ctx, emission, transition, label, length)
        n, t, k = e.shape
        dy = douts[0][:, 0].astype(np.float64) * (length > 0)
        if t == 0:
            return xp.zeros_like(emission), xp.zeros_like(transition), None, None
        start, end, trans = w[0], w[1], w[2:]
        alpha = _alpha(xp, e, trans, start)
        log_z = _lse(xp, _last(xp, alpha, length) + end, 1)
        beta = xp.empty_like(alpha)
        beta[:, t - 1] = end
        for s in range(t - 2, -1, -1):
            after = _lse(xp, trans[None] + (e[:, s + 1] + beta[:, s + 1])[:, None, :], 2)
            beta[:, s] = xp.where((length - 1 == s)[:, None], end, after)
        marg = xp.exp(alpha + beta - log_z[:, None, None]) * valid[:, :, None]
        onehot = (xp.arange(k) == label[:, :, None]) * valid[:, :, None]
        scale = dy[:, None, None]
        d_e = (marg - onehot) * scale
        d_w = xp.zeros_like(w)
        first = (marg[:, 0] - onehot[:, 0]) * dy[:, None]
        d_w[0] = first.sum(0)
        last = (_last(xp, marg, length) - _last(xp, onehot, length)) * dy[:, None]
        d_w[1] = last.sum(0)
        if t > 1:
            pair = xp.exp(alpha[:, :-1, :, None] + trans[None, None] +
                          (e[:, 1:] + beta[:, 1:])[:, :, None, :] - log_z[:, None, None, None])
            pair = pair * (valid[:, 1:] * dy[:, None])[:, :, None, None]
            seen = xp.zeros((n, k, k))
            both = valid[:, 1:] * dy[:, None]
            flat = (label[:, :-1] * k + label[:, 1:]).reshape(-1)
            xp.add.at(seen.reshape(n, k * k), (xp.repeat(xp.arange(n), t - 1), flat),
                      both.reshape(-1))
            d_w[2:] = pair.sum((0, 1)) - seen.sum(0)
        return d_e.astype(emission.dtype), d_w.astype(transition.dtype), None, None


@register_op
class crf_decoding(OpDef):
    """The Viterbi path ``[batch, time]`` (int64; 0 past each length)."""

    inputs = ("Emission", "Transition", "Length")
    outputs = ("ViterbiPath",)
    differentiable = False

    def infer(self, emission, transition, length):
        _check_meta("crf_decoding", emission, transition)
        return Meta(tuple(emission.shape[:2]), np.dtype(np.int64))

    def forward(self, ctx, emission, transition, length):
        xp = ctx.xp
        length = _check("crf_decoding", emission, transition, length)
        n, t, k = emission.shape
        path = xp.zeros((n, t), dtype=np.int64)
        if t == 0:
            return path
        e = emission.astype(np.float64)
        w = transition.astype(np.float64)
        start, end, trans = w[0], w[1], w[2:]
        delta = start + e[:, 0]
        back = xp.zeros((n, t, k), dtype=np.int64)
        for s in range(1, t):
            scores = delta[:, :, None] + trans[None]
            back[:, s] = xp.argmax(scores, axis=1)
            step = xp.max(scores, axis=1) + e[:, s]
            delta = xp.where((s < length)[:, None], step, delta)
        best = xp.argmax(delta + end, axis=1)
        tag = best
        rows = xp.arange(n)
        for s in range(t - 1, -1, -1):
            tag = xp.where(length - 1 == s, best, tag)
            active = s < length
            path[:, s] = xp.where(active, tag, 0)
            if s:
                tag = xp.where(active, back[rows, s, tag], tag)
        return path


_SCHEMES = {  # tag positions within a type: (num positions, begin, inside, end, single)
    "IOB": (2, 0, 1, -1, -1),
    "IOE": (2, -1, 0, 1, -1),
    "IOBES": (4, 0, 1, 2, 3),
    "plain": (1, -1, -1, -1, -1),
}


def _chunk_ends(prev_pos, prev_type, pos, kind, other, b, i, e, s):
    """Whether the chunk open at the previous step ends before this step."""
    if prev_type == other:
        return False
    if kind == other or kind != prev_type:
        return True
    if prev_pos in (b, i):
        return pos in (b, s)
    return prev_pos in (e, s)


def _chunk_begins(prev_pos, prev_type, pos, kind, other, b, i, e, s):
    """Whether a chunk begins at this step."""
    if kind == other:
        return False
    if prev_type == other or kind != prev_type or pos in (b, s):
        return True
    if pos in (i, e):
        return prev_pos in (e, s)
    return False


def _chunks(tags, num_types, scheme, excluded):
    """The set of ``(begin, end, type)`` chunks of one tag sequence."""
    width, b, i, e, s = _SCHEMES[scheme]
    other = num_types
    found, start, prev_pos, prev_type = set(), None, -1, other
    for step, tag in enumerate(list(tags) + [other * width]):
        if not 0 <= tag <= other * width:
            raise ValueError(f"chunk_eval: tags must lie in [0, {other * width}] "
                             f"(num_chunk_types {num_types} x {width} positions of {scheme}, "
                             f"plus the outside tag), got {tag}")
        pos, kind = (tag % width, tag // width) if tag < other * width else (-1, other)
        if _chunk_ends(prev_pos, prev_type, pos, kind, other, b, i, e, s) and start is not None:
            if prev_type not in excluded:
                found.add((start, step - 1, prev_type))
            start = None
        if _chunk_begins(prev_pos, prev_type, pos, kind, other, b, i, e, s):
            start = step
        prev_pos, prev_type = pos, kind
    return found


@register_op
class chunk_eval(OpDef):
    """Chunk precision, recall and F1 (float32 ``[1]``) and the numbers of inferred, labelled
    and correct chunks (int64 ``[1]``) of tag sequences ``Inference`` against ``Label``
    (``[batch, time]``, valid up to ``SeqLength``). A tag is ``type * positions + position``
    (positions: IOB: B, I; IOE: I, E; IOBES: B, I, E, S; plain: one); ``num_chunk_types *
    positions`` is outside every chunk."""

    inputs = ("Inference", "Label", "SeqLength")
    outputs = ("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
               "NumCorrectChunks")
    attrs = {"num_chunk_types": 1, "chunk_scheme": "IOB", "excluded_chunk_types": []}
    differentiable = False

    @staticmethod
    def _check_attrs(num_chunk_types, chunk_scheme):
        if chunk_scheme not in _SCHEMES:
            raise ValueError(f"chunk_eval: chunk_scheme must be one of {sorted(_SCHEMES)}, got "
                             f"{chunk_scheme!r}")
        if num_chunk_types < 1:
            raise ValueError(f"chunk_eval: num_chunk_types must be >= 1, got {num_chunk_types}")

    def infer(self, inference, label, seq_length, num_chunk_types, chunk_scheme,
              excluded_chunk_types):
        self._check_attrs(num_chunk_types, chunk_scheme)
        f, i = np.dtype(np.float32), np.dtype(np.int64)
        return Meta((1,), f), Meta((1,), f), Meta((1,), f), Meta((1,), i), Meta((1,), i), \
            Meta((1,), i)

    def forward(self, ctx, inference, label, seq_length, num_chunk_types, chunk_scheme,
                excluded_chunk_types):
        xp = ctx.xp
        self._check_attrs(num_chunk_types, chunk_scheme)
        if inference.shape != label.shape or inference.ndim != 2:
            raise ShapeError(f"chunk_eval: Inference and Label must both be [batch, time], got "
                             f"{list(inference.shape)} and {list(label.shape)}")
        length = check_lengths("chunk_eval", seq_length, inference.shape[0], inference.shape[1])
        inf, lab, lens = (np.asarray(a.get() if hasattr(a, "get") else a)
                          for a in (inference, label, length))
        excluded = set(int(t) for t in excluded_chunk_types)
        n_inf = n_lab = n_ok = 0
        for b in range(inf.shape[0]):
            got = _chunks(inf[b, :lens[b]].tolist(), num_chunk_types, chunk_scheme, excluded)
            want = _chunks(lab[b, :lens[b]].tolist(), num_chunk_types, chunk_scheme, excluded)
            n_inf, n_lab, n_ok = n_inf + len(got), n_lab + len(want), n_ok + len(got & want)
        p = n_ok / n_inf if n_inf else 0.0
        r = n_ok / n_lab if n_lab else 0.0
        f1 = 2 * p * r / (p + r) if n_ok else 0.0

        def one(v, dtype):
            return xp.asarray([v], dtype=dtype)
        return (one(p, np.float32), one(r, np.float32), one(f1, np.float32),
                one(n_inf, np.int64), one(n_lab, np.int64), one(n_ok, np.int64))

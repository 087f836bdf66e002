"""Cases for core/ops/beam.py, with references written as plain per-row Python loops."""
import numpy as np

from . import Case

r = np.random.default_rng(11)


def _gather_tree(ids, parents):
    steps, batch, beam = ids.shape
    out = np.empty_like(ids)
    for b in range(batch):
        for k in range(beam):
            out[-1, b, k] = ids[-1, b, k]
            p = parents[-1, b, k]
            for t in range(steps - 2, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return out


def _beam_search(pre_ids, pre_scores, ids, scores, beam_size=1, end_id=0, level=0,
                 is_accumulated=True):
    n, k = scores.shape
    sel_ids, sel_sc, par = [], [], []
    for b in range(n // beam_size):
        items = []  # (-score, row, j, id, score)
        for i in range(b * beam_size, (b + 1) * beam_size):
            if pre_ids.reshape(-1)[i] == end_id:
                s = pre_scores.reshape(-1)[i]
                items.append((-float(s), i, 0, end_id, s))
                continue
            for j in range(k):
                s = scores[i, j] if is_accumulated else \
                    pre_scores.reshape(-1)[i] + np.log(scores[i, j])
                tok = j if ids is None else ids[i, j]
                items.append((-float(s), i, j, tok, s))
        items.sort(key=lambda it: it[:3])
        for it in items[:beam_size]:
            sel_ids.append(it[3])
            sel_sc.append(it[4])
            par.append(it[1])
    return (np.array(sel_ids, np.int64).reshape(n, 1),
            np.array(sel_sc, scores.dtype).reshape(n, 1), np.array(par, np.int64))


def _decode(ids, scores, parents, beam_size=1, end_id=0):
    steps, n = ids.shape
    batch = n // beam_size
    sid = np.zeros((batch, beam_size, steps), np.int64)
    ssc = np.zeros((batch, beam_size, steps), scores.dtype)
    for b in range(batch):
        rows = []
        for k in range(beam_size):
            row, toks, scs = b * beam_size + k, [], []
            for t in range(steps - 1, -1, -1):
                toks.append(ids[t, row])
                scs.append(scores[t, row])
                row = parents[t, row]
            toks, scs = toks[::-1], scs[::-1]
            if end_id in toks:
                e = toks.index(end_id)
                toks = toks[:e + 1] + [end_id] * (steps - e - 1)
                scs = scs[:e + 1] + [scs[e]] * (steps - e - 1)
            rows.append((toks, scs))
        rows.sort(key=lambda ts: -ts[1][-1])
        for k, (toks, scs) in enumerate(rows):
            sid[b, k], ssc[b, k] = toks, scs
    return sid, ssc


def _tree(steps, batch, beam, vocab=9):
    return (r.integers(0, vocab, (steps, batch, beam)).astype(np.int64),
            r.integers(0, beam, (steps, batch, beam)).astype(np.int64))


def _distinct(n, k):
    return (-r.permutation(n * k).reshape(n, k) * 0.25 - 0.1).astype(np.float32)


_steps_ids = np.array([[3, 1, 4, 2], [0, 2, 5, 0], [0, 0, 1, 0]], np.int64)
_steps_par = np.array([[0, 0, 2, 3], [1, 0, 3, 2], [0, 1, 2, 2]], np.int64)
_steps_sc = np.array([[-0.5, -1.0, -0.2, -0.9], [-0.7, -1.5, -0.4, -1.1],
                      [-0.7, -1.9, -0.8, -1.1]], np.float32)

CASES = {
    "gather_tree": [
        Case(list(_tree(4, 2, 3)), ref=_gather_tree),
        Case(list(_tree(1, 3, 2)), ref=_gather_tree, name="one-step"),
        Case([x.astype(np.int32) for x in _tree(5, 1, 4)], ref=_gather_tree, name="int32"),
    ],
    "beam_search": [
        Case([np.array([[1], [2], [3], [4]], np.int64), np.zeros((4, 1), np.float32),
              r.integers(0, 9, (4, 3)).astype(np.int64), _distinct(4, 3)],
             {"beam_size": 2, "end_id": 0}, ref=_beam_search, name="accumulated"),
        Case([np.array([[0], [2], [5], [0]], np.int64),
              np.array([[-0.3], [-0.6], [-2.0], [-0.1]], np.float32), None,
              r.uniform(0.05, 1.0, (4, 5)).astype(np.float32)],
             {"beam_size": 2, "end_id": 0, "is_accumulated": False}, ref=_beam_search,
             name="finished-rows-probs"),
        Case([np.array([4, 4, 4], np.int64), np.zeros(3, np.float64), None,
              _distinct(3, 4).astype(np.float64)], {"beam_size": 1, "end_id": 7},
             ref=_beam_search, name="greedy"),
        Case([np.array([[0], [3]], np.int64), np.array([[-1.0], [0.0]], np.float32),
              np.array([[4, 5, 6], [7, 8, 9]], np.int64),
              np.array([[-1.0, -1.0, -1.0], [-np.inf, -np.inf, -np.inf]], np.float32)],
             {"beam_size": 2, "end_id": 0}, ref=_beam_search, name="valid-beats-ties"),
    ],
    "beam_search_decode": [
        Case([_steps_ids, _steps_sc, _steps_par], {"beam_size": 2, "end_id": 0},
             ref=_decode, name="two-sources"),
        Case([_steps_ids[:, :2].copy(), _steps_sc[:, :2].astype(np.float64),
              np.array([[0, 1], [1, 0], [0, 0]], np.int64)], {"beam_size": 1, "end_id": 2},
             ref=_decode, name="beam-1"),
        Case([r.integers(0, 3, (5, 6)).astype(np.int64),
              r.standard_normal((5, 6)).astype(np.float32),
              np.concatenate([r.integers(0, 3, (5, 3)), r.integers(3, 6, (5, 3))], axis=1)],
             {"beam_size": 3, "end_id": 0}, ref=_decode, name="ends-then-ids"),
    ],
    "beam_gather": [
        Case([r.standard_normal((2, 3, 4)), np.array([[2, 2, 0], [1, 0, 2]], np.int64)],
             ref=lambda x, i: x[np.arange(2)[:, None], i], name="repeats"),
        Case([r.standard_normal((3, 2)).astype(np.float32), np.array([[1, 0], [1, 1], [0, 0]])],
             ref=lambda x, i: x[np.arange(3)[:, None], i], name="2d"),
        Case([np.array([[True, False]]), np.array([[1, 1]], np.int32)],
             ref=lambda x, i: x[np.arange(1)[:, None], i], name="bool"),
    ],
}

"""Cases for core/ops/sequence.py and core/ops/crf.py; references loop over the sequences."""
import numpy as np

from . import Case

r = np.random.default_rng(11)


def distinct(*shape):
    n = int(np.prod(shape))
    return (r.permutation(n).reshape(shape) * 0.1 + r.uniform(0, 0.01, shape)).astype(np.float32)


LEN = np.array([3, 0, 4, 1], np.int64)
X = distinct(4, 4, 2)


def mask_ref(x, maxlen_t=None, maxlen=-1, out_dtype="int64"):
    if maxlen_t is not None:
        maxlen = int(maxlen_t.reshape(-1)[0])
    n = maxlen if maxlen >= 0 else int(x.max())
    return (np.arange(n) < x[..., None]).astype(out_dtype)


def pool_ref(x, length, pooltype="AVERAGE", pad_value=0.0):
    out = np.zeros((x.shape[0],) + x.shape[2:], x.dtype)
    idx = np.zeros(out.shape, np.int64)
    for b, n in enumerate(length):
        seq = x[b, :n]
        if n == 0:
            out[b] = pad_value
        elif pooltype == "SUM":
            out[b] = seq.sum(0)
        elif pooltype == "AVERAGE":
            out[b] = seq.mean(0)
        elif pooltype == "SQRT":
            out[b] = seq.sum(0) / np.sqrt(n)
        elif pooltype == "MAX":
            out[b], idx[b] = seq.max(0), seq.argmax(0)
        elif pooltype == "LAST":
            out[b] = seq[-1]
        else:
            out[b] = seq[0]
    return out, idx


def softmax_ref(x, length):
    out = np.zeros_like(x)
    for b, n in enumerate(length):
        if n:
            e = np.exp(x[b, :n] - x[b, :n].max())
            out[b, :n] = e / e.sum()
    return out


def reverse_ref(x, length):
    out = x.copy()
    for b, n in enumerate(length):
        out[b, :n] = x[b, :n][::-1]
    return out


def expand_ref(x, y, length):
    out = np.zeros((x.shape[0], y.shape[1]) + x.shape[1:], x.dtype)
    for b, n in enumerate(length):
        out[b, :n] = x[b]
    return out


def pad_ref(x, pad, length, padded_length=-1):
    t = padded_length if padded_length >= 0 else x.shape[1]
    out = np.empty((x.shape[0], t) + x.shape[2:], x.dtype)
    out[:] = pad
    for b, n in enumerate(length):
        out[b, :n] = x[b, :n]
    return out


def unpad_ref(x, length):
    return np.concatenate([x[b, :n] for b, n in enumerate(length)], 0)


CASES = {
    "sequence_mask": [
        Case([np.array([2, 0, 3], np.int64), None], ref=mask_ref, name="maxlen-from-data"),
        Case([np.array([[1, 4], [0, 2]], np.int64), None], {"maxlen": 5, "out_dtype": "float32"},
             ref=mask_ref, name="2d-float"),
        Case([np.array([2, 0, 3], np.int64), np.array([5], np.int32)], ref=mask_ref,
             name="maxlen-tensor"),
        Case([np.array([[1, 4], [0, 2]], np.int32), np.array(2, np.int64)],
             {"out_dtype": "float32"}, ref=mask_ref, name="maxlen-0d-tensor-shorter"),
    ],
    "sequence_pool": [
        Case([X, LEN], {"pooltype": p, "pad_value": 0.5}, ref=pool_ref, name=p.lower())
        for p in ("SUM", "AVERAGE", "SQRT", "MAX", "LAST", "FIRST")
    ] + [Case([distinct(3, 5), np.array([5, 2, 1], np.int64)], {"pooltype": "MAX"},
              ref=pool_ref, name="max-2d")],
    "sequence_softmax": [
        Case([distinct(4, 5) - 1.0, np.array([5, 0, 2, 1], np.int64)], ref=softmax_ref),
    ],
    "sequence_reverse": [
        Case([X, LEN], ref=reverse_ref, name="3d"),
        Case([distinct(2, 3), np.array([2, 3], np.int64)], ref=reverse_ref, name="2d"),
    ],
    "sequence_expand": [
        Case([distinct(4, 3), np.zeros((4, 5, 1), np.float32), np.array([5, 0, 2, 3], np.int64)],
             ref=expand_ref),
    ],
    "sequence_pad": [
        Case([X, np.array(-1.0, np.float32), LEN], ref=pad_ref, name="scalar-pad"),
        Case([X, np.array([0.25, -0.5], np.float32), LEN], {"padded_length": 6}, ref=pad_ref,
             name="longer"),
        Case([X, np.array(2.0, np.float32), np.array([2, 1, 0, 2], np.int64)],
             {"padded_length": 2}, ref=pad_ref, name="shorter"),
    ],
    "sequence_unpad": [
        Case([X, LEN], ref=unpad_ref),
    ],
}


def _paths(k, n):
    return np.array(np.meshgrid(*[np.arange(k)] * n, indexing="ij")).reshape(n, -1).T


def _path_score(e, w, path):
    start, end, trans = w[0], w[1], w[2:]
    score = start[path[0]] + end[path[-1]] + sum(e[t, y] for t, y in enumerate(path))
    return score + sum(trans[a, b] for a, b in zip(path[:-1], path[1:]))


def crf_ref(emission, transition, label, length):
    """Negative log-likelihood by enumerating every tag path."""
    e, w = emission.astype(np.float64), transition.astype(np.float64)
    out = np.zeros((e.shape[0], 1))
    for b, n in enumerate(length):
        if n:
            scores = [_path_score(e[b], w, p) for p in _paths(e.shape[2], n)]
            top = max(scores)
            log_z = top + np.log(np.sum(np.exp(np.array(scores) - top)))
            out[b, 0] = log_z - _path_score(e[b], w, label[b, :n])
    return out.astype(emission.dtype)


def viterbi_ref(emission, transition, length):
    """The best path by enumeration (0 past the length)."""
    e, w = emission.astype(np.float64), transition.astype(np.float64)
    out = np.zeros(e.shape[:2], np.int64)
    for b, n in enumerate(length):
        if n:
            paths = _paths(e.shape[2], n)
            out[b, :n] = paths[int(np.argmax([_path_score(e[b], w, p) for p in paths]))]
    return out


_EM = r.standard_normal((4, 3, 3)).astype(np.float32)
_TR = (r.standard_normal((5, 3)) * 0.5).astype(np.float32)
_LAB = r.integers(0, 3, (4, 3)).astype(np.int64)
_LENS = np.array([3, 1, 0, 2], np.int64)

# IOB with 2 chunk types: B-0=0, I-0=1, B-1=2, I-1=3, O=4.
_INF = np.array([[0, 1, 4, 2, 3], [2, 2, 4, 0, 0]], np.int64)
_GOLD = np.array([[0, 1, 4, 2, 4], [2, 3, 4, 0, 1]], np.int64)


def chunk_ref(inference, label, seq_length, num_chunk_types=1, chunk_scheme="IOB",
              excluded_chunk_types=()):
    # Chunks worked out by hand for _INF / _GOLD with lengths [5, 4]:
    # inferred: (0,1,t0) (3,4,t1) | (0,0,t1) (1,1,t1) (3,3,t0)          -> 5
    # labelled: (0,1,t0) (3,3,t1) | (0,1,t1) (3,3,t0)                   -> 4
    # correct:  (0,1,t0)          | (3,3,t0)                            -> 2
    assert chunk_scheme == "IOB" and num_chunk_types == 2
    p, rc = 2 / 5, 2 / 4
    return (np.array([p], np.float32), np.array([rc], np.float32),
            np.array([2 * p * rc / (p + rc)], np.float32), np.array([5], np.int64),
            np.array([4], np.int64), np.array([2], np.int64))


CASES.update({
    "linear_chain_crf": [
        Case([_EM, _TR, _LAB, _LENS], ref=crf_ref, grad=[0, 1], rtol=1e-4, atol=1e-5,
             eps=1e-3),
    ],
    "crf_decoding": [
        Case([_EM, _TR, _LENS], ref=viterbi_ref),
        Case([distinct(5, 6, 3), distinct(5, 3) - 0.7, np.array([6, 2, 0, 5, 1], np.int32)],
             ref=viterbi_ref, name="long-int32-length"),
        Case([distinct(2, 0, 3), distinct(5, 3), np.array([0, 0], np.int64)], ref=viterbi_ref,
             name="time-0"),
    ],
    "chunk_eval": [
        Case([_INF, _GOLD, np.array([5, 4], np.int64)],
             {"num_chunk_types": 2, "chunk_scheme": "IOB"}, ref=chunk_ref),
    ],
})

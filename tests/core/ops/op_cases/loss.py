"""Cases for core/ops/loss.py; references are plain numpy written row by row."""
import numpy as np

from . import Case

r = np.random.default_rng(5)


def f32(*shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def probs(*shape):
    p = r.uniform(0.1, 1.0, shape)
    return (p / p.sum(axis=-1, keepdims=True)).astype(np.float32)


def labels(n, depth, ignore=()):
    lab = r.integers(0, depth, (n, 1)).astype(np.int64)
    for i in ignore:
        lab[i, 0] = -100
    return lab


def ce_ref(x, label, soft_label=False, ignore_index=-100):
    n = x.shape[0]
    y = np.zeros((n, 1), dtype=x.dtype)
    for i in range(n):
        if soft_label:
            y[i, 0] = -np.sum(label[i] * np.log(x[i]))
        elif label[i, 0] != ignore_index:
            y[i, 0] = -np.log(x[i, label[i, 0]])
    return y


def swce_ref(logits, label, soft_label=False, ignore_index=-100, axis=-1):
    ax = axis % logits.ndim
    lg = np.moveaxis(logits.astype(np.float64), ax, -1)
    lb = np.moveaxis(label, ax, -1)
    z = lg - lg.max(axis=-1, keepdims=True)
    log_sm = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    sm = np.exp(log_sm)
    loss = np.zeros(lg.shape[:-1] + (1,))
    for pos in np.ndindex(*lg.shape[:-1]):
        if soft_label:
            loss[pos] = -np.sum(lb[pos] * log_sm[pos])
        elif lb[pos][0] != ignore_index:
            loss[pos] = -log_sm[pos][lb[pos][0]]
    dt = logits.dtype
    return np.moveaxis(sm, -1, ax).astype(dt), np.moveaxis(loss, -1, ax).astype(dt)


def sce_ref(x, label, ignore_index=-100, normalize=False):
    x64 = x.astype(np.float64)
    out = -(label * np.log(1 / (1 + np.exp(-x64))) + (1 - label) * np.log(1 / (1 + np.exp(x64))))
    keep = label != ignore_index
    out = np.where(keep, out, 0)
    if normalize:
        out = out / max(keep.sum(), 1)
    return out.astype(x.dtype)


def acc_ref(out, indices, label):
    correct = sum(int(label[i, 0] in indices[i]) for i in range(indices.shape[0]))
    total = indices.shape[0]
    return (np.array([correct / total], np.float32), np.array([correct], np.int32),
            np.array([total], np.int32))


_soft = probs(3, 4)
_sig_label = r.integers(0, 2, (3, 4)).astype(np.float32)
_sig_label[0, 1] = -100
_sig_label[2, 3] = -100
_topk_idx = np.array([[1, 3], [0, 2], [2, 0], [3, 1]], dtype=np.int64)

CASES = {
    "cross_entropy": [
        Case([probs(4, 5), labels(4, 5)], ref=ce_ref, name="hard"),
        Case([probs(4, 3), labels(4, 3, ignore=(1, 3))], ref=ce_ref, name="ignore-index"),
        Case([probs(3, 4), np.array([[1], [7], [2]], np.int64)], {"ignore_index": 7},
             ref=ce_ref, name="custom-ignore"),
        Case([probs(3, 4), _soft], {"soft_label": True}, ref=ce_ref, name="soft"),
    ],
    "softmax_with_cross_entropy": [
        Case([f32(4, 5, lo=-3, hi=3), labels(4, 5)], ref=swce_ref, name="hard"),
        Case([f32(4, 3), labels(4, 3, ignore=(0, 2))], ref=swce_ref, name="ignore-index"),
        Case([f32(3, 4), probs(3, 4)], {"soft_label": True}, ref=swce_ref, name="soft"),
        Case([f32(3, 4), f32(3, 4, lo=0.0, hi=1.0)], {"soft_label": True}, ref=swce_ref,
             name="soft-unnormalised"),
        Case([f32(2, 3, 4), r.integers(0, 3, (2, 1, 4)).astype(np.int64)], {"axis": 1},
             ref=swce_ref, name="axis1"),
        Case([np.array([[1000.0, 0.0, -1000.0], [-50.0, 50.0, 0.0]], np.float32),
              np.array([[2], [0]], np.int64)], ref=swce_ref, grad=[], atol=1e-3,
             name="stable-large-logits"),
    ],
    "sigmoid_cross_entropy_with_logits": [
        Case([f32(3, 4, lo=-4, hi=4), r.integers(0, 2, (3, 4)).astype(np.float32)],
             ref=sce_ref, name="binary"),
        Case([f32(3, 4), f32(3, 4, lo=0.0, hi=1.0)], ref=sce_ref, name="soft-targets"),
        Case([f32(3, 4), _sig_label], ref=sce_ref, name="ignore-index"),
        Case([f32(3, 4), _sig_label], {"normalize": True}, ref=sce_ref, name="normalize"),
    ],
    "accuracy": [
        Case([f32(4, 2), _topk_idx, np.array([[3], [1], [2], [1]], np.int64)], ref=acc_ref,
             name="top2"),
        Case([f32(3, 1), np.array([[0], [1], [2]], np.int64),
              np.array([[0], [2], [2]], np.int64)], ref=acc_ref, name="top1"),
    ],
}


def _ls_ref(x, prior=None, epsilon=0.0):
    p = 1.0 / x.shape[-1] if prior is None else prior.reshape(-1)
    return ((1 - epsilon) * x.astype(np.float64) + epsilon * p).astype(x.dtype)


CASES["label_smooth"] = [
    Case([np.eye(4, dtype=np.float32)[[0, 3, 1]], None], {"epsilon": 0.1}, ref=_ls_ref),
    Case([probs(2, 3, 4), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)], {"epsilon": 0.25},
         ref=_ls_ref, name="prior"),
]

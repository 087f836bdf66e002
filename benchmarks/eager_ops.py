"""Eager-mode overhead, measured against plain numpy doing the same arithmetic.

    python benchmarks/eager_ops.py [--repeats N] [--steps N]

(a) Per-op overhead: a chain of 1000 tiny adds on [4] float32 tensors that require
    gradients (so every op records a tape node), through the Tensor ``+`` fast path and
    through the generic ``core.dispatch.apply``, against 1000 ``np.add`` calls.
(b) One MNIST training step (batch 64; forward, backward, Adam update) of the model in
    ``examples/mnist_model.py``, eager, against a hand-written numpy forward + backward +
    Adam of the same network, with the best layout per layer (``NumpyMNIST``: each conv's
    windows copied once and one GEMM; reshaped-tile 2x2 max pooling; fused
    softmax-cross-entropy gradient). Before timing, the numpy step is checked against the
    eager one: same loss and same updated weights.

Each figure is the median of repeated runs; ratios are eager / numpy from the same run (the
MNIST steps alternate eager and numpy, so that the machine's speed changes hit both alike).
Absolute times are only comparable on the same machine.
"""
import argparse
import os
import sys
import time

import numpy as np

import core
from core.dispatch import apply

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import mnist_model

CHAIN = 1000


def median_time(fn, repeats, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def interleaved_medians(fn_a, fn_b, repeats, warmup=2):
    """Median times of ``fn_a`` and ``fn_b`` run alternately, so that a shared machine's
    speed changes hit both sides of the ratio alike."""
    for _ in range(warmup):
        fn_a()
        fn_b()
    times_a, times_b = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        fn_a()
        mid = time.perf_counter()
        fn_b()
        times_a.append(mid - start)
        times_b.append(time.perf_counter() - mid)
    return float(np.median(times_a)), float(np.median(times_b))


# -- (a) per-op overhead ---------------------------------------------------------------------
def chain_operator(x, c):
    y = x
    for _ in range(CHAIN):
        y = y + c
    return y


def chain_apply(x, c):
    y = x
    for _ in range(CHAIN):
        y = apply("elementwise_add", [y, c])
    return y


def chain_numpy(a, b):
    y = a
    for _ in range(CHAIN):
        y = np.add(y, b)
    return y


def per_op_rows(repeats):
    a = np.arange(4, dtype=np.float32)
    b = np.ones(4, np.float32)
    x = core.to_tensor(a, stop_gradient=False)
    c = core.to_tensor(b, stop_gradient=False)
    assert chain_operator(x, c)._node is not None  # the tape is being recorded
    ref = median_time(lambda: chain_numpy(a, b), repeats) / CHAIN
    rows = []
    for label, fn in (("Tensor + (tape)", chain_operator), ("dispatch.apply (tape)", chain_apply)):
        t = median_time(lambda fn=fn: fn(x, c), repeats) / CHAIN
        rows.append((f"add [4] f32: {label}", t * 1e6, ref * 1e6, t / ref, "us/op"))
    return rows


# -- (b) the MNIST step in numpy -------------------------------------------------------------
def _conv1_cols(images, cols):
    """The 5x5 windows of the 1-channel images [N, 1, 28, 28], tap-major ``[26, N*24*24]``
    (one copy into ``cols``, in runs of 24 floats) with a last row of ones for the bias."""
    n = images.shape[0]
    cols = cols.reshape(26, n, 24, 24)
    cols[25] = 1
    win = np.lib.stride_tricks.sliding_window_view(images.reshape(n, 28, 28), (5, 5),
                                                   axis=(1, 2))
    cols[:25].reshape(5, 5, n, 24, 24)[...] = win.transpose(3, 4, 0, 1, 2)
    return cols.reshape(26, n * 576)


def _pool(y):
    """2x2/2 max pooling of a channels-last ``y`` [N, H, W, C]: the tiles are a reshape (no
    copy); one ``maximum`` over row pairs, one over column pairs, both on runs of C floats."""
    n, h, w, c = y.shape
    v = y.reshape(n, h // 2, 2, w // 2, 2, c)
    rows = np.maximum(v[:, :, 0], v[:, :, 1])
    return np.maximum(rows[:, :, :, 0], rows[:, :, :, 1])


def _pool_relu_grad(r, p, dp):
    """Gradient through 2x2/2 max pooling (to the first maximum of each tile in row-major
    order, as the pool2d op does) and the ReLU before it, channels-last. One pass per tile
    position, written straight into the result with ``out=`` (no zero fill, no temporaries):
    windows whose maximum is 0 pass no gradient through the ReLU."""
    n, h, w, c = r.shape
    v = r.reshape(n, h // 2, 2, w // 2, 2, c)
    dr = np.empty_like(r)
    dv = dr.reshape(v.shape)
    free = p > 0
    hit = np.empty_like(free)
    for a in (0, 1):
        for b in (0, 1):
            np.equal(v[:, :, a, :, b], p, out=hit)
            hit &= free
            np.multiply(dp, hit, out=dv[:, :, a, :, b])
            free ^= hit  # hit is a subset of free
    return dr


class NumpyMNIST:
    """The MNIST net in numpy, with Paddle's Adam. Parameters are copied from a
    ``mnist_model.MNIST``.

    Layouts, per layer: conv1 (1 channel) copies its windows once, tap-major
    ``[25, N*24*24]`` in runs of 24 floats, plus a row of ones, and one GEMM
    (``cols.T @ [W | b].T``) gives its biased output channels-last; conv2 (20 channels)
    copies the windows of the channels-last image once as rows ``[N*8*8, 5*5*20]`` (runs of
    100 floats) for one GEMM. The large intermediates live in work arrays reused from step
    to step (``out=``), ReLU works in place; pooling uses reshaped tiles. Backward:
    fused softmax-cross-entropy gradient, tile-wise pool routing, ``dFilter`` as one long-K
    GEMM per conv (conv1's gives ``dBias`` too), conv2's input gradient as one stacked
    matmul giving every kernel tap's gradient as a contiguous block, then 25 slice-adds onto
    the channels-last image (conv1 needs no input gradient).
    """

    NAMES = ("w1", "b1", "w2", "b2", "wf", "bf")

    def __init__(self, model, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
        sd = model.state_dict()
        keys = ["_simple_img_conv_pool_1._conv2d.weight", "_simple_img_conv_pool_1._conv2d.bias",
                "_simple_img_conv_pool_2._conv2d.weight", "_simple_img_conv_pool_2._conv2d.bias",
                "_fc.weight", "_fc.bias"]
        self.p = {n: sd[k].numpy().copy() for n, k in zip(self.NAMES, keys)}
        self.m1 = {n: np.zeros_like(v) for n, v in self.p.items()}
        self.m2 = {n: np.zeros_like(v) for n, v in self.p.items()}
        self.b1p, self.b2p = beta1, beta2
        self._ws = {}
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps

    def step(self, images, labels):
        p = self.p
        n = images.shape[0]
        swv = np.lib.stride_tricks.sliding_window_view
        # conv1 + ReLU + pool: tap-major windows [25, N*576] plus a row of ones, so that one
        # GEMM adds the bias and gives rows [N*576, 20] (and, backward, dFilter and dBias)
        cols1 = _conv1_cols(images, self._buf("cols1", (26, n * 576)))
        w1 = np.concatenate([p["w1"].reshape(20, 25), p["b1"][:, None]], axis=1)
        r1 = np.matmul(cols1.T, w1.T, out=self._buf("r1", (n * 576, 20)))
        np.maximum(r1, 0, out=r1)
        r1 = r1.reshape(n, 24, 24, 20)
        p1 = _pool(r1)
        # conv2 + ReLU + pool: channels-last rows [N*64, (i, j, c)]
        w2 = p["w2"].transpose(0, 2, 3, 1).reshape(50, 500)
        cols2 = self._buf("cols2", (n * 64, 500))
        cols2.reshape(n, 8, 8, 5, 5, 20)[...] = \
            swv(p1, (5, 5), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3)
        r2 = np.matmul(cols2, w2.T, out=self._buf("r2", (n * 64, 50)))
        r2 += p["b2"]
        np.maximum(r2, 0, out=r2)
        r2 = r2.reshape(n, 8, 8, 50)
        p2 = _pool(r2)
        # fc + softmax + cross entropy (Paddle flattens NCHW)
        flat = p2.transpose(0, 3, 1, 2).reshape(n, 800)
        z = flat @ p["wf"]
        z += p["bf"]
        z -= z.max(axis=1, keepdims=True)
        prob = np.exp(z)
        prob /= prob.sum(axis=1, keepdims=True)
        lab = labels.reshape(-1)
        rows = np.arange(n)
        loss = float(-np.log(prob[rows, lab]).mean())
        # backward
        dz = prob
        dz[rows, lab] -= 1.0
        dz /= n
        g = {"wf": flat.T @ dz, "bf": dz.sum(axis=0)}
        dp2 = (dz @ p["wf"].T).reshape(n, 50, 4, 4).transpose(0, 2, 3, 1)
        dc2 = _pool_relu_grad(r2, p2, dp2).reshape(n * 64, 50)
        g["w2"] = (dc2.T @ cols2).reshape(50, 5, 5, 20).transpose(0, 3, 1, 2)
        g["b2"] = dc2.sum(axis=0)
        taps = np.matmul(dc2, p["w2"].transpose(2, 3, 0, 1).reshape(25, 50, 20),
                         out=self._buf("taps", (25, n * 64, 20))).reshape(5, 5, n, 8, 8, 20)
        dp1 = self._buf("dp1", (n, 12, 12, 20))
        dp1.fill(0)
        for i in range(5):
            for j in range(5):
                dp1[:, i:i + 8, j:j + 8] += taps[i, j]
        dc1 = _pool_relu_grad(r1, p1, dp1).reshape(n * 576, 20)
        gw1 = (cols1 @ dc1).T
        g["w1"], g["b1"] = gw1[:, :25].reshape(20, 1, 5, 5), gw1[:, 25]
        self._adam(g)
        return loss

    def _buf(self, name, shape):
        """A float32 work array kept between steps, so that the big intermediates are not
        fresh allocations (page faults) on every step."""
        buf = self._ws.get(name)
        if buf is None or buf.shape != shape:
            buf = self._ws[name] = np.empty(shape, np.float32)
        return buf

    def _adam(self, grads):
        lr_t = self.lr * np.sqrt(1 - self.b2p) / (1 - self.b1p)
        eps_t = self.eps * np.sqrt(1 - self.b2p)
        for name, g in grads.items():
            m1, m2 = self.m1[name], self.m2[name]
            m1 *= self.beta1
            m1 += (1 - self.beta1) * g
            m2 *= self.beta2
            m2 += (1 - self.beta2) * g * g
            self.p[name] -= (lr_t * m1 / (np.sqrt(m2) + eps_t)).astype(np.float32)
        self.b1p *= self.beta1
        self.b2p *= self.beta2


def mnist_rows(repeats, batch=64):
    rng = np.random.default_rng(0)
    images = rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, (batch, 1)).astype(np.int64)
    core.seed(1)
    model = mnist_model.MNIST()
    ref = NumpyMNIST(model)
    opt = core.optimizer.Adam(1e-3, parameter_list=model.parameters())
    # correctness first: one step each from the same weights
    eager_loss = mnist_model.train_step(model, opt, images, labels)
    numpy_loss = ref.step(images, labels)
    w_diff = np.abs(model._simple_img_conv_pool_2._conv2d.weight.numpy() - ref.p["w2"]).max()
    if abs(eager_loss - numpy_loss) > 1e-4 or w_diff > 1e-5:
        raise AssertionError(f"numpy reference disagrees with eager: loss {numpy_loss} vs "
                             f"{eager_loss}, max weight difference {w_diff}")
    t_eager, t_numpy = interleaved_medians(
        lambda: mnist_model.train_step(model, opt, images, labels),
        lambda: ref.step(images, labels), repeats)
    return [(f"MNIST train step, batch {batch}", t_eager * 1e3, t_numpy * 1e3,
             t_eager / t_numpy, "ms/step")], abs(eager_loss - numpy_loss), w_diff


def main(argv=None):
    ap = argparse.ArgumentParser(description="eager overhead vs numpy")
    ap.add_argument("--repeats", type=int, default=20, help="timed runs of the op chain")
    ap.add_argument("--steps", type=int, default=30, help="timed MNIST steps (each side)")
    args = ap.parse_args(argv)
    rows = per_op_rows(args.repeats)
    mnist, loss_diff, w_diff = mnist_rows(args.steps)
    rows += mnist
    print(f"numpy MNIST step checked against eager: |loss diff| {loss_diff:.1e}, "
          f"max |weight diff| after one Adam step {w_diff:.1e}")
    for name, eager, ref, ratio, unit in rows:
        print(f"{name:<36} eager {eager:8.2f} {unit}  numpy {ref:8.2f} {unit}  "
              f"eager/numpy {ratio:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Eager-mode overhead, measured against plain numpy doing the same arithmetic.

    python benchmarks/eager_ops.py [--repeats N] [--steps N]

(a) Per-op overhead: a chain of 1000 tiny adds on [4] float32 tensors that require
    gradients (so every op records a tape node), through the Tensor ``+`` fast path and
    through the generic ``core.dispatch.apply``, against 1000 ``np.add`` calls.
(b) One MNIST training step (batch 64; forward, backward, Adam update) of the model in
    ``examples/mnist_model.py``, eager, against a hand-written numpy forward + backward +
    Adam of the same network (NHWC im2col convolutions as GEMMs, strided 2x2 max pooling,
    fused softmax-cross-entropy gradient). Before timing, the numpy step is checked against
    the eager one: same loss and same updated weights.

Each figure is the median of repeated runs; ratios are eager / numpy from the same run.
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
class NumpyMNIST:
    """The MNIST net in numpy (NHWC inside), with Paddle's Adam. Parameters are copied from a
    ``mnist_model.MNIST``."""

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
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps

    @staticmethod
    def _im2col(x, kh, kw):
        """NHWC ``x`` -> rows of ``(kh, kw, c)`` patches ``[N * OH * OW, kh * kw * C]`` (valid
        padding, stride 1): one contiguous slice copy per kernel offset."""
        n, h, w, c = x.shape
        oh, ow = h - kh + 1, w - kw + 1
        cols = np.empty((n, oh, ow, kh * kw, c), x.dtype)
        for i in range(kh):
            for j in range(kw):
                cols[:, :, :, i * kw + j, :] = x[:, i:i + oh, j:j + ow, :]
        return cols.reshape(n * oh * ow, kh * kw * c)

    @staticmethod
    def _col2im(dcols, shape, kh, kw):
        n, h, w, c = shape
        oh, ow = h - kh + 1, w - kw + 1
        d = dcols.reshape(n, oh, ow, kh * kw, c)
        dx = np.zeros(shape, dcols.dtype)
        for i in range(kh):
            for j in range(kw):
                dx[:, i:i + oh, j:j + ow, :] += d[:, :, :, i * kw + j, :]
        return dx

    @staticmethod
    def _flat_filter(w):
        """``[M, C, kh, kw]`` -> ``[M, kh * kw * C]`` matching :meth:`_im2col`'s columns."""
        return w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1)

    def _conv(self, x, w, b):
        m, _, kh, kw = w.shape
        n, h, wd, _ = x.shape
        cols = self._im2col(x, kh, kw)
        out = cols @ self._flat_filter(w).T + b
        return out.reshape(n, h - kh + 1, wd - kw + 1, m), cols

    @staticmethod
    def _filter_grad(dout, cols, w_shape):
        m, c, kh, kw = w_shape
        # NOTE: (cols.T @ dout).T is the BLAS-friendly order for this long-K product.
        return (cols.T @ dout).T.reshape(m, kh, kw, c).transpose(0, 3, 1, 2)

    @staticmethod
    def _pool(r):
        return np.maximum(np.maximum(r[:, 0::2, 0::2], r[:, 1::2, 0::2]),
                          np.maximum(r[:, 0::2, 1::2], r[:, 1::2, 1::2]))

    @staticmethod
    def _pool_relu_grad(r, p, dp):
        """Gradient through 2x2 max pooling (to the first maximum of each window, as the
        pool2d op does) and the ReLU before it."""
        dr = np.zeros_like(r)
        free = p > 0  # windows whose maximum is 0 pass no gradient through the ReLU
        for a in (0, 1):
            for b in (0, 1):
                hit = free & (r[:, a::2, b::2] == p)
                dr[:, a::2, b::2] = dp * hit
                free &= ~hit
        return dr

    def step(self, images, labels):
        p = self.p
        n = images.shape[0]
        x = images.transpose(0, 2, 3, 1)  # NHWC
        c1, cols1 = self._conv(x, p["w1"], p["b1"])
        r1 = np.maximum(c1, 0)
        p1 = self._pool(r1)
        c2, cols2 = self._conv(p1, p["w2"], p["b2"])
        r2 = np.maximum(c2, 0)
        p2 = self._pool(r2)
        flat = p2.transpose(0, 3, 1, 2).reshape(n, -1)  # Paddle flattens NCHW
        z = flat @ p["wf"] + p["bf"]
        e = np.exp(z - z.max(axis=1, keepdims=True))
        prob = e / e.sum(axis=1, keepdims=True)
        lab = labels.reshape(-1)
        loss = float(-np.log(prob[np.arange(n), lab]).mean())
        # backward
        dz = prob
        dz[np.arange(n), lab] -= 1.0
        dz /= n
        g = {"wf": flat.T @ dz, "bf": dz.sum(axis=0)}
        dp2 = (dz @ p["wf"].T).reshape(n, 50, 4, 4).transpose(0, 2, 3, 1)
        dc2 = self._pool_relu_grad(r2, p2, dp2).reshape(-1, 50)
        g["w2"] = self._filter_grad(dc2, cols2, p["w2"].shape)
        g["b2"] = dc2.sum(axis=0)
        dp1 = self._col2im(dc2 @ self._flat_filter(p["w2"]), p1.shape, 5, 5)
        dc1 = self._pool_relu_grad(r1, p1, dp1).reshape(-1, 20)
        g["w1"] = self._filter_grad(dc1, cols1, p["w1"].shape)
        g["b1"] = dc1.sum(axis=0)
        self._adam(g)
        return loss

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
    t_eager = median_time(lambda: mnist_model.train_step(model, opt, images, labels), repeats)
    t_numpy = median_time(lambda: ref.step(images, labels), repeats)
    return [(f"MNIST train step, batch {batch}", t_eager * 1e3, t_numpy * 1e3,
             t_eager / t_numpy, "ms/step")], abs(eager_loss - numpy_loss), w_diff


def main(argv=None):
    ap = argparse.ArgumentParser(description="eager overhead vs numpy")
    ap.add_argument("--repeats", type=int, default=20, help="timed runs of the op chain")
    ap.add_argument("--steps", type=int, default=10, help="timed MNIST steps")
    args = ap.parse_args(argv)
    rows = per_op_rows(args.repeats)
    mnist, loss_diff, w_diff = mnist_rows(args.steps)
    rows += mnist
    print(f"numpy MNIST step checked against eager: |loss diff| {loss_diff:.1e}, "
          f"max |weight diff| after one Adam step {w_diff:.1e}")
    print(f"{'workload':<36} {'eager':>10} {'numpy':>10} {'ratio':>7}  unit")
    print("-" * 74)
    for name, eager, ref, ratio, unit in rows:
        print(f"{name:<36} {eager:>10.2f} {ref:>10.2f} {ratio:>6.1f}x  {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

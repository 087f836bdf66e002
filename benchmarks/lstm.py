"""An LSTM layer's forward and backward pass: eager vs static vs declarative vs numpy.

Workload: ``core.nn.LSTM(64, 128)`` over a batch of 16 sequences of 32 steps, loss = mean of
the outputs, gradients of every weight and of the input. The numpy reference is a
hand-written LSTM doing the same work the way one would write it by hand for speed (the input
projection of all steps in one GEMM, one GEMM per step, backward through time, one GEMM each
for the weight gradients). All four are timed in the same run (medians of alternating
repeats; medians and minimums) and checked to agree.

Usage: ``python benchmarks/lstm.py [--repeat N]``.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import core
from core import nn, static
from translator import declarative

BATCH, STEPS, INPUT, HIDDEN = 16, 32, 64, 128


def _sig(a):
    return 0.5 * np.tanh(0.5 * a) + 0.5


def numpy_lstm(x, w_ih, w_hh, b_ih, b_hh):
    """Forward and backward of ``mean(LSTM(x))``: ``(loss, dx, dw_ih, dw_hh, db)``."""
    b, t, i = x.shape
    h = w_hh.shape[1]
    xt = x.transpose(1, 0, 2)
    xg = (xt.reshape(t * b, i) @ w_ih.T + (b_ih + b_hh)).reshape(t, b, 4 * h)
    gates = np.empty((t, b, 4 * h), np.float32)
    cs = np.empty((t + 1, b, h), np.float32)
    hs = np.empty((t + 1, b, h), np.float32)
    cs[0] = 0
    hs[0] = 0
    whh_t = np.ascontiguousarray(w_hh.T)
    for s in range(t):
        a = hs[s] @ whh_t
        a += xg[s]
        g = gates[s]
        g[:] = _sig(a)
        g[:, 2 * h:3 * h] = np.tanh(a[:, 2 * h:3 * h])
        np.multiply(g[:, h:2 * h], cs[s], out=cs[s + 1])
        cs[s + 1] += g[:, :h] * g[:, 2 * h:3 * h]
        np.multiply(g[:, 3 * h:], np.tanh(cs[s + 1]), out=hs[s + 1])
    loss = hs[1:].mean()
    dy = np.float32(1.0 / (t * b * h))
    dgates = np.empty_like(gates)
    dh = np.zeros((b, h), np.float32)
    dc = np.zeros((b, h), np.float32)
    for s in range(t - 1, -1, -1):
        g = gates[s]
        i_, f_, g_, o_ = g[:, :h], g[:, h:2 * h], g[:, 2 * h:3 * h], g[:, 3 * h:]
        tc = np.tanh(cs[s + 1])
        dh += dy
        dc += dh * o_ * (1 - tc * tc)
        d = dgates[s]
        d[:, :h] = dc * g_ * i_ * (1 - i_)
        d[:, h:2 * h] = dc * cs[s] * f_ * (1 - f_)
        d[:, 2 * h:3 * h] = dc * i_ * (1 - g_ * g_)
        d[:, 3 * h:] = dh * tc * o_ * (1 - o_)
        dc *= f_
        dh = d @ w_hh
    d2 = dgates.reshape(t * b, 4 * h)
    dx = (d2 @ w_ih).reshape(t, b, i).transpose(1, 0, 2)
    dw_ih = d2.T @ xt.reshape(t * b, i)
    dw_hh = d2.T @ hs[:-1].reshape(t * b, h)
    db = d2.sum(0)
    return loss, dx, dw_ih, dw_hh, db


def median_times(fns, repeat, warmup=2):
    """(median, min) seconds per call of each function, the calls alternating between them
    (the minimum is the steadier figure on a shared machine)."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    return {k: (statistics.median(v), min(v)) for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, STEPS, INPUT)).astype(np.float32)

    core.seed(1)
    net = nn.LSTM(INPUT, HIDDEN)
    cell = net[0].cell
    params = [p.numpy() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)]
    xe = core.to_tensor(x)
    xe.stop_gradient = False

    def eager():
        out, _ = net(xe)
        loss = core.layers.reduce_mean(out)
        loss.backward()
        grads = tuple(np.array(g) for g in (xe.gradient(), cell.weight_ih.gradient(),
                                           cell.weight_hh.gradient()))
        net.clear_gradients()
        xe.clear_gradient()
        return float(loss.numpy()), grads

    @declarative
    def forward(inp):
        out, _ = net(inp)
        return core.layers.reduce_mean(out)

    def dec():
        loss = forward(xe)
        loss.backward()
        grads = tuple(np.array(g) for g in (xe.gradient(), cell.weight_ih.gradient(),
                                           cell.weight_hh.gradient()))
        net.clear_gradients()
        xe.clear_gradient()
        return float(loss.numpy()), grads

    core.enable_static()
    main_prog, startup = static.Program(), static.Program()
    with static.program_guard(main_prog, startup):
        xv = static.data("x", [BATCH, STEPS, INPUT], "float32")
        xv.stop_gradient = False
        snet = nn.LSTM(INPUT, HIDDEN)
        out, _ = snet(xv)
        loss = core.layers.reduce_mean(out)
        scell = snet[0].cell
        grads = static.gradients(loss, [xv, scell.weight_ih, scell.weight_hh])
    core.disable_static()
    scope = static.Scope()
    exe = static.Executor(core.CPUPlace())
    exe.run(startup, scope=scope)
    with static.scope_guard(scope):
        snet.set_dict({k: v.numpy() for k, v in net.state_dict().items()})
    feed = {"x": x}

    def stat():
        res = exe.run(main_prog, feed=feed, fetch_list=[loss] + grads, scope=scope)
        return float(res[0]), tuple(res[1:])

    def ref():
        r = numpy_lstm(x, *params)
        return float(r[0]), (r[1], r[2], r[3])

    results = {k: fn() for k, fn in [("numpy", ref), ("eager", eager), ("static", stat),
                                       ("declarative", dec)]}
    want = results["numpy"]
    for k, (lo, gs) in results.items():
        assert abs(lo - want[0]) < 1e-5, (k, lo, want[0])
        for g, w in zip(gs, want[1]):
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-6, err_msg=k)
    times = median_times({"numpy": ref, "eager": eager, "static": stat, "declarative": dec},
                         args.repeat)
    print(f"LSTM forward+backward, batch {BATCH}, {STEPS} steps, input {INPUT}, hidden "
          f"{HIDDEN} ({args.repeat} alternating repeats):")
    print(f"  {'':12s} {'median':>9s}  {'ratio':>6s}  {'min':>9s}  {'ratio':>6s}")
    med0, min0 = times["numpy"]
    for k in ("numpy", "eager", "static", "declarative"):
        med, mn = times[k]
        print(f"  {k:12s} {med * 1e3:6.2f} ms  {med / med0:5.2f}x  {mn * 1e3:6.2f} ms  "
              f"{mn / min0:5.2f}x")


if __name__ == "__main__":
    main()

"""Static programs vs eager mode vs hand-written numpy, timed in one run.

Workloads:

1. a vanilla RNN cell ``h = tanh(x_t Wx + h Wh + b)`` (batch 4, hidden 32, 100 steps) as a
   static ``while_loop`` program, as the same loop run eagerly, and as a numpy loop;
1b. the same RNN with a data-dependent trip count and a tensor ``if`` (``cond``) in the body;
2. MNIST inference (conv-pool, conv-pool, fc+softmax) at batch 64 and batch 1;
3. one MNIST training step (forward, backward, Adam), static vs eager.

Prints medians of repeated runs and the ratios. Usage: ``python benchmarks/static_vs_eager.py
[--repeat N]``.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import core
from core import layers, static
from core.mode import static_mode_guard

STEPS, BATCH, HIDDEN = 100, 4, 32


def median_time(fn, repeat, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def rnn_data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(STEPS, BATCH, HIDDEN)).astype(np.float32)
    wx = (rng.normal(size=(HIDDEN, HIDDEN)) * 0.2).astype(np.float32)
    wh = (rng.normal(size=(HIDDEN, HIDDEN)) * 0.2).astype(np.float32)
    b = (rng.normal(size=(HIDDEN,)) * 0.1).astype(np.float32)
    return x, wx, wh, b


def rnn_fns(x, wx, wh, b, n, data_dependent):
    """(cond, body) of the RNN loop over (i, h); shared by the static and eager versions."""
    def cond(i, h):
        if not data_dependent:
            return i < n
        return layers.logical_and(i < n, layers.reduce_sum(layers.abs(h)) < 1e9)

    def body(i, h):
        pre = layers.matmul(x[i], wx) + layers.matmul(h, wh) + b
        if data_dependent:
            h2 = layers.cond(layers.reduce_sum(pre) > 0.0, lambda: layers.tanh(pre),
                             lambda: layers.tanh(pre) * 0.5)
        else:
            h2 = layers.tanh(pre)
        return [i + 1, h2]

    return cond, body


def rnn_numpy(x, wx, wh, b, data_dependent):
    h = np.zeros((BATCH, HIDDEN), np.float32)
    i = 0
    while i < STEPS and (not data_dependent or np.abs(h).sum() < 1e9):
        pre = x[i] @ wx + h @ wh + b
        if data_dependent:
            h = np.tanh(pre) if pre.sum() > 0 else np.tanh(pre) * np.float32(0.5)
        else:
            h = np.tanh(pre)
        i += 1
    return h


def bench_rnn(repeat, data_dependent):
    xv, wxv, whv, bv = rnn_data()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [STEPS, BATCH, HIDDEN], "float32")
        wx = static.data("wx", [HIDDEN, HIDDEN], "float32")
        wh = static.data("wh", [HIDDEN, HIDDEN], "float32")
        b = static.data("b", [HIDDEN], "float32")
        n = layers.fill_constant([], "int64", STEPS)
        i = layers.fill_constant([], "int64", 0)
        h0 = layers.fill_constant([BATCH, HIDDEN], "float32", 0.0)
        cond, body = rnn_fns(x, wx, wh, b, n, data_dependent)
        _, h = layers.while_loop(cond, body, [i, h0])
    exe = static.Executor(core.CPUPlace())
    feed = {"x": xv, "wx": wxv, "wh": whv, "b": bv}
    static_out, = exe.run(main, feed=feed, fetch_list=[h])

    def eager():
        with core.dygraph.guard():
            t = [core.to_tensor(a) for a in (xv, wxv, whv, bv)]
            c, bd = rnn_fns(*t, STEPS, data_dependent)
            h = core.to_tensor(np.zeros((BATCH, HIDDEN), np.float32))
            return layers.while_loop(c, bd, [core.to_tensor(np.array(0)), h])[1].numpy()

    ref = rnn_numpy(xv, wxv, whv, bv, data_dependent)
    np.testing.assert_allclose(static_out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(eager(), ref, rtol=1e-4, atol=1e-5)
    return {
        "static": median_time(lambda: exe.run(main, feed=feed, fetch_list=[h]), repeat),
        "eager": median_time(eager, repeat),
        "numpy": median_time(lambda: rnn_numpy(xv, wxv, whv, bv, data_dependent), repeat),
    }


# -- MNIST ---------------------------------------------------------------------------------------
_WORK = {}


def _work(name, shape):
    """A float32 work array kept between calls, so that the big intermediates of
    ``mnist_numpy`` are not fresh allocations (page faults) on every call."""
    buf = _WORK.get(name)
    if buf is None or buf.shape != shape:
        buf = _WORK[name] = np.empty(shape, np.float32)
    return buf


def _pool2x2(y):
    """2x2/2 max pooling of a channels-last ``y`` [N, H, W, C]: the tiles are a reshape (no
    copy); one ``maximum`` over row pairs, one over column pairs."""
    n, h, w, c = y.shape
    v = y.reshape(n, h // 2, 2, w // 2, 2, c)
    rows = np.maximum(v[:, :, 0], v[:, :, 1])
    return np.maximum(rows[:, :, :, 0], rows[:, :, :, 1])


def mnist_numpy(params, img):
    """Hand-written numpy MNIST inference with the model's parameters, the best layout per
    layer: conv1 (1 channel) copies its windows once tap-major ``[25, N*24*24]`` (runs of 24
    floats) next to a row of ones, and one GEMM ``cols.T @ [W | b].T`` gives the biased output
    channels-last; conv2 (20 channels) copies the channels-last windows once as rows
    ``[N*8*8, 5*5*20]`` (runs of 100 floats) for one GEMM; its bias and both ReLUs in place;
    2x2 max pooling on reshaped tiles; the large intermediates live in work arrays reused
    from call to call (``out=``)."""
    swv = np.lib.stride_tricks.sliding_window_view
    n = img.shape[0]
    cols = _work("cols1", (26, n, 24, 24))
    cols[25] = 1  # the bias row
    cols[:25].reshape(5, 5, n, 24, 24)[...] = \
        swv(img.reshape(n, 28, 28), (5, 5), axis=(1, 2)).transpose(3, 4, 0, 1, 2)
    w1 = np.concatenate([params["w1"].reshape(20, 25), params["b1"][:, None]], axis=1)
    y = np.matmul(cols.reshape(26, n * 576).T, w1.T, out=_work("y1", (n * 576, 20)))
    np.maximum(y, 0, out=y)
    x = _pool2x2(y.reshape(n, 24, 24, 20))
    cols = _work("cols2", (n * 64, 500))
    cols.reshape(n, 8, 8, 5, 5, 20)[...] = swv(x, (5, 5), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3)
    y = np.matmul(cols, params["w2"].transpose(2, 3, 1, 0).reshape(500, 50),
                  out=_work("y2", (n * 64, 50)))
    y += params["b2"]
    np.maximum(y, 0, out=y)
    x = _pool2x2(y.reshape(n, 8, 8, 50))
    z = x.transpose(0, 3, 1, 2).reshape(n, 800) @ params["wf"]  # Paddle flattens NCHW
    z += params["bf"]
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


def _mnist_class():
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "examples"))
        from mnist_model import MNIST
        return MNIST
    except ImportError:
        return None


def bench_mnist(repeat):
    MNIST = _mnist_class()
    if MNIST is None:
        return None
    core.seed(1)
    with core.dygraph.guard():
        eager_model = MNIST()
        eager_model.eval()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        model = MNIST()
        img = static.data("img", [None, 1, 28, 28], "float32")
        pred = model(img)
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    exe.run(startup, scope=scope)
    static_params = [p.name for p in main.all_parameters()]
    eager_params = [p for p in eager_model.parameters()]
    for sp, ep in zip(static_params, eager_params):
        scope.find_var(sp).get_tensor().set(ep.numpy())
    convs = [p.numpy() for p in eager_params]
    params = {"w1": convs[0], "b1": convs[1], "w2": convs[2], "b2": convs[3], "wf": convs[4],
              "bf": convs[5]}
    rows = {}
    rng = np.random.default_rng(0)
    for batch in (64, 1):
        x = rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32)
        feed = {"img": x}
        got, = exe.run(main, feed=feed, fetch_list=[pred], scope=scope)

        def eager(x=x):
            with core.dygraph.guard(), core.no_grad():
                return eager_model(core.to_tensor(x)).numpy()

        np.testing.assert_allclose(got, mnist_numpy(params, x), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(eager(), got, rtol=1e-4, atol=1e-5)
        rows[batch] = {
            "static": median_time(lambda feed=feed: exe.run(main, feed=feed, fetch_list=[pred],
                                                            scope=scope), repeat),
            "eager": median_time(eager, repeat),
            "numpy": median_time(lambda x=x: mnist_numpy(params, x), repeat),
        }
    return rows


def bench_mnist_train(repeat):
    MNIST = _mnist_class()
    if MNIST is None:
        return None
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, (64, 1)).astype(np.int64)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        model = MNIST()
        img = static.data("img", [None, 1, 28, 28], "float32")
        label = static.data("label", [None, 1], "int64")
        pred = model(img)
        loss = layers.mean(layers.cross_entropy(pred, label))
        core.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    exe.run(startup, scope=scope)
    feed = {"img": x, "label": y}
    with core.dygraph.guard():
        eager_model = MNIST()
        opt = core.optimizer.Adam(learning_rate=1e-3, parameter_list=eager_model.parameters())

    def eager_step():
        with core.dygraph.guard():
            p = eager_model(core.to_tensor(x))
            lo = layers.mean(layers.cross_entropy(p, core.to_tensor(y)))
            lo.backward()
            opt.minimize(lo)
            eager_model.clear_gradients()

    return {"static": median_time(lambda: exe.run(main, feed=feed, fetch_list=[loss],
                                                  scope=scope), repeat),
            "eager": median_time(eager_step, repeat)}


def report(name, row):
    parts = [f"{k} {v * 1e3:8.3f} ms" for k, v in row.items()]
    ratios = []
    if "numpy" in row:
        ratios.append(f"static/numpy {row['static'] / row['numpy']:5.2f}x")
    ratios.append(f"eager/static {row['eager'] / row['static']:5.2f}x")
    print(f"{name:<28} " + "  ".join(parts) + "   " + "  ".join(ratios))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args(argv)
    print(f"medians of {args.repeat} runs (CPU, numpy {np.__version__})")
    report("rnn 100 steps", bench_rnn(args.repeat, False))
    report("rnn data-dependent + cond", bench_rnn(args.repeat, True))
    rows = bench_mnist(max(args.repeat // 3, 5))
    if rows is None:
        print("mnist: examples/mnist_model.py not found, skipped")
        return
    for batch, row in rows.items():
        report(f"mnist inference batch {batch}", row)
    report("mnist train step batch 64", bench_mnist_train(max(args.repeat // 3, 5)))


if __name__ == "__main__":
    main()

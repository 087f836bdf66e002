"""Translator benchmarks: translation latency, warm-call overhead, and a Python-loop RNN.

    python benchmarks/translate.py [--repeat N]

1. First call of a declarative function of about 30 lines with nested control flow: the very
   first call (source conversion + building the Program + compiling the plan; one sample),
   and the median over fresh function objects with the same code (the converted code is
   cached per code object, so those measure building and compiling only).
2. Warm-call overhead of a small declarative function (two tiny ops) against running its
   Program through ``Executor.run`` directly, and against plain eager code.
3. A vanilla RNN, ``h = tanh(x_t @ Wx + h @ Wh + b)``, batch 4, hidden 32, 100 steps, written as
   a plain Python ``for`` loop: under ``@declarative`` (the loop is unrolled at translation
   since its bound is a Python int), eagerly, and in hand-written numpy.

Medians of repeated runs; ratios are from the same run. Goals: first call < 50 ms, warm call
< 100 us, declarative RNN within 1.5x of numpy.
"""
import argparse
import statistics
import time
import types

import numpy as np

import core
from translator import declarative


def nested(x, n):
    total = x * 0.0
    i = 0
    while i < n:
        if x.mean() > 0:
            y = x * 2.0
            if y.sum() > 10.0:
                y = y - 1.0
            else:
                y = y + 1.0
        else:
            y = x - 1.0
        j = 0
        while j < 2:
            if y.max() > 3.0:
                y = y * 0.5
            else:
                y = y * 1.5
            j += 1
        total = total + y
        if total.mean() > 100.0:
            break
        i += 1
    s = x.sum()
    if s > 0 and n > 1:
        total = total / 2.0
    elif s < -5:
        total = total * 3.0
    else:
        total = total + s
    return total


def small(x, y):
    return x * 2.0 + y


def rnn(xs, wx, wh, b):
    h = core.layers.zeros([xs.shape[1], wh.shape[0]], "float32")
    for t in range(xs.shape[0]):
        h = core.layers.tanh(core.layers.matmul(xs[t], wx) + core.layers.matmul(h, wh) + b)
    return h


def rnn_numpy(xs, wx, wh, b):
    h = np.zeros((xs.shape[1], wh.shape[0]), np.float32)
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ wx + h @ wh + b)
    return h


def median_time(fn, repeat, number=1):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def fresh_copy(fn):
    """A new function object with ``fn``'s code: the translator's caches start empty."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def first_call(repeat):
    x = core.to_tensor(np.ones((4, 8), np.float32))

    def once():
        f = declarative(fresh_copy(nested))
        f(x, 3)

    start = time.perf_counter()
    once()  # the very first call also converts the source (cached per code object after)
    very_first = time.perf_counter() - start
    return very_first, median_time(once, repeat)


def warm_calls(repeat):
    x = core.to_tensor(np.ones((4, 8), np.float32))
    y = core.to_tensor(np.ones((4, 8), np.float32))
    f = declarative(small)
    f(x, y)
    main = f.get_concrete_program(x, y).main_program
    out = f.get_concrete_program(x, y).output_vars
    exe = core.Executor(core.CPUPlace())
    feed = {"x": x.numpy(), "y": y.numpy()}
    exe.run(main, feed=feed, fetch_list=out)
    n = 2000
    return (median_time(lambda: f(x, y), repeat, n),
            median_time(lambda: exe.run(main, feed=feed, fetch_list=out), repeat, n),
            median_time(lambda: small(x, y), repeat, n))


def rnn_times(repeat):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((100, 4, 16)).astype(np.float32)
    wx = (rng.standard_normal((16, 32)) * 0.2).astype(np.float32)
    wh = (rng.standard_normal((32, 32)) * 0.2).astype(np.float32)
    b = np.zeros(32, np.float32)
    tensors = [core.to_tensor(a) for a in (xs, wx, wh, b)]
    f = declarative(rnn)
    with core.no_grad():
        got = f(*tensors).numpy()
        np.testing.assert_allclose(got, rnn_numpy(xs, wx, wh, b), rtol=1e-4, atol=1e-5)
        t_decl = median_time(lambda: f(*tensors), repeat, 5)
        t_eager = median_time(lambda: rnn(*tensors), repeat, 5)
    t_np = median_time(lambda: rnn_numpy(xs, wx, wh, b), repeat, 5)
    return t_decl, t_eager, t_np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    very_first, first = first_call(args.repeat)
    warm, direct, eager = warm_calls(args.repeat)
    t_decl, t_eager, t_np = rnn_times(args.repeat)
    rows = [
        ("first call, 30-line nested control flow", f"{very_first * 1e3:8.2f} ms",
         "goal < 50 ms (one sample: parse, convert, build, compile)"),
        ("  new function, same code", f"{first * 1e3:8.2f} ms",
         "median (converted code cached: build + compile)"),
        ("warm declarative call (x * 2 + y)", f"{warm * 1e6:8.1f} us", "goal < 100 us"),
        ("  same Program via Executor.run", f"{direct * 1e6:8.1f} us",
         f"declarative/executor {warm / direct:.2f}x"),
        ("  same code eagerly", f"{eager * 1e6:8.1f} us", f"declarative/eager {warm / eager:.2f}x"),
        ("RNN 100 steps, declarative", f"{t_decl * 1e3:8.2f} ms",
         f"{t_decl / t_np:.2f}x numpy (goal < 1.5x)"),
        ("RNN 100 steps, eager", f"{t_eager * 1e3:8.2f} ms", f"{t_eager / t_np:.2f}x numpy"),
        ("RNN 100 steps, numpy", f"{t_np * 1e3:8.2f} ms", "1.00x"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}  {note}")
    return rows


if __name__ == "__main__":
    main()

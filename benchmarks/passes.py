"""The optimisation passes' goals, measured in one run: static programs with the passes on and
off, eager mode, ``@declarative`` and hand-written numpy.

    python benchmarks/passes.py [--repeat N] [--clock wall|cpu] [--only mnist|rnn|saved]

Workloads (each checked for the same result before it is timed):

1. One MNIST training step, batch 64 (forward, backward, Adam): the static Program with the
   passes and without (``BuildStrategy(enable_passes=False)``), the eager model, the
   ``@declarative`` model (eager loss and update around a declarative forward), and
   ``NumpyMNIST`` of ``benchmarks/eager_ops.py`` (hand-written, best layout per layer); and
   the numpy step's GEMMs alone (:func:`numpy_gemms`), the part every variant runs alike.
2. The vanilla RNN of ``benchmarks/static_vs_eager.py`` (batch 4, hidden 32, 100 steps) as a
   static ``while_loop`` (with and without passes), as a data-dependent ``while`` with a
   tensor ``if`` inside, and as a plain Python ``for`` under ``@declarative``; against numpy.
3. The MNIST model saved with ``save_inference_model``, loaded back and run at batch 1 and 64,
   with and without passes, against the hand-written numpy inference of
   ``benchmarks/static_vs_eager.py``.

The functions of a workload run in turn, round after round, so that a shared machine's speed
changes hit them alike; each figure is the median of its rounds, each ratio is between two
medians of the same run. Goals: MNIST step static <= 0.9x eager and <= 0.9x numpy,
declarative <= 0.95x eager; RNN static and declarative ``for`` <= 1.0x numpy, data-dependent
``while`` <= 1.05x; saved model batch 1 <= 1.1x numpy, batch 64 <= 0.9x.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
sys.path.insert(0, HERE)

import core  # noqa: E402
import mnist_declarative  # noqa: E402
import mnist_model  # noqa: E402
import static_vs_eager as sve  # noqa: E402
from core import layers, static  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402
from core.static import passes  # noqa: E402
from eager_ops import NumpyMNIST  # noqa: E402
from translator import declarative  # noqa: E402

OFF = static.BuildStrategy(enable_passes=False)


#: the clock that times each call: wall time, or (``--clock cpu``) this process's CPU time,
#: which time slices lost to other processes on a shared machine do not inflate
CLOCK = {"clock": time.perf_counter}


def interleaved(fns, rounds, warmup=2):
    """``{name: median seconds}`` of the functions in ``fns`` run in turn, round by round."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    clock = CLOCK["clock"]
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


# -- 1. MNIST training step ----------------------------------------------------------------------
def mnist_train(rounds):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, (64, 1)).astype(np.int64)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        model = mnist_model.MNIST()
        img = static.data("img", [None, 1, 28, 28], "float32")
        label = static.data("label", [None, 1], "int64")
        loss = layers.mean(layers.cross_entropy(model(img), label))
        core.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    exe = static.Executor(core.CPUPlace())
    scopes = {}
    for key in ("on", "off"):
        core.seed(1)
        scopes[key] = static.Scope()
        exe.run(startup, scope=scopes[key])
    feed = {"img": x, "label": y}
    off = static.CompiledProgram(main, build_strategy=OFF)
    first_on = exe.run(main, feed=feed, fetch_list=[loss], scope=scopes["on"])[0]
    first_off = exe.run(off, feed=feed, fetch_list=[loss], scope=scopes["off"])[0]
    np.testing.assert_allclose(first_on, first_off, rtol=1e-5)
    core.seed(1)
    eager_model = mnist_model.MNIST()
    eager_opt = core.optimizer.Adam(1e-3, parameter_list=eager_model.parameters())
    ref = NumpyMNIST(eager_model)
    core.seed(1)
    decl_model = mnist_declarative.MNIST()
    decl_opt = core.optimizer.Adam(1e-3, parameter_list=decl_model.parameters())
    losses = [mnist_model.train_step(eager_model, eager_opt, x, y),
              mnist_model.train_step(decl_model, decl_opt, x, y), ref.step(x, y)]
    np.testing.assert_allclose(losses[1:], losses[0], rtol=1e-4)
    return interleaved({
        "numpy": lambda: ref.step(x, y),
        "eager": lambda: mnist_model.train_step(eager_model, eager_opt, x, y),
        "static": lambda: exe.run(main, feed=feed, fetch_list=[loss], scope=scopes["on"]),
        "static, passes off": lambda: exe.run(off, feed=feed, fetch_list=[loss],
                                              scope=scopes["off"]),
        "declarative": lambda: mnist_model.train_step(decl_model, decl_opt, x, y),
        "numpy GEMMs only": numpy_gemms(64),
    }, rounds)


def numpy_gemms(n):
    """The GEMMs of ``NumpyMNIST.step`` at batch ``n`` alone (same shapes, layouts and
    ``out=`` buffers): the share of the step that any implementation running these GEMMs
    pays (the static step runs the same ones)."""
    rng = np.random.default_rng(1)

    def f(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    cols1, w1, cols2, w2 = f(26, n * 576), f(20, 26), f(n * 64, 500), f(50, 500)
    flat, wf, dz, dc2, w2t, dc1 = f(n, 800), f(800, 10), f(n, 10), f(n * 64, 50), \
        f(25, 50, 20), f(n * 576, 20)
    r1, r2, taps = f(n * 576, 20), f(n * 64, 50), f(25, n * 64, 20)

    def run():
        np.matmul(cols1.T, w1.T, out=r1)  # forward: conv1, conv2, fc
        np.matmul(cols2, w2.T, out=r2)
        flat @ wf
        flat.T @ dz  # backward: dW fc, dX fc, dW conv2, dX conv2 (per tap), dW conv1
        dz @ wf.T
        dc2.T @ cols2
        np.matmul(dc2, w2t, out=taps)
        cols1 @ dc1

    return run


# -- 2. RNN ---------------------------------------------------------------------------------------
def _rnn_program(data_dependent):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [sve.STEPS, sve.BATCH, sve.HIDDEN], "float32")
        wx = static.data("wx", [sve.HIDDEN, sve.HIDDEN], "float32")
        wh = static.data("wh", [sve.HIDDEN, sve.HIDDEN], "float32")
        b = static.data("b", [sve.HIDDEN], "float32")
        n = layers.fill_constant([], "int64", sve.STEPS)
        i = layers.fill_constant([], "int64", 0)
        h0 = layers.fill_constant([sve.BATCH, sve.HIDDEN], "float32", 0.0)
        cond, body = sve.rnn_fns(x, wx, wh, b, n, data_dependent)
        _, h = layers.while_loop(cond, body, [i, h0])
    return main, h


def rnn_for(xs, wx, wh, b):
    h = layers.zeros([xs.shape[1], wh.shape[0]], "float32")
    for t in range(xs.shape[0]):
        h = layers.tanh(layers.matmul(xs[t], wx) + layers.matmul(h, wh) + b)
    return h


def rnn(rounds, data_dependent):
    xv, wxv, whv, bv = sve.rnn_data()
    feed = {"x": xv, "wx": wxv, "wh": whv, "b": bv}
    main, h = _rnn_program(data_dependent)
    exe = static.Executor(core.CPUPlace())
    off = static.CompiledProgram(main, build_strategy=OFF)
    want = sve.rnn_numpy(xv, wxv, whv, bv, data_dependent)
    fns = {
        "numpy": lambda: sve.rnn_numpy(xv, wxv, whv, bv, data_dependent),
        "static": lambda: exe.run(main, feed=feed, fetch_list=[h]),
        "static, passes off": lambda: exe.run(off, feed=feed, fetch_list=[h]),
    }
    if not data_dependent:
        tensors = [core.to_tensor(a) for a in (xv, wxv, whv, bv)]
        decl_on = declarative(rnn_for)
        decl_off = declarative(rnn_for)
        with core.no_grad():
            np.testing.assert_allclose(decl_on(*tensors).numpy(), want, rtol=1e-4, atol=1e-5)
            passes.set_enabled(False)  # decl_off's plans are compiled without passes
            try:
                decl_off(*tensors)
            finally:
                passes.set_enabled(True)

        def run_decl(fn):
            with core.no_grad():
                return fn(*tensors)

        fns["declarative for"] = lambda: run_decl(decl_on)
        fns["declarative for, passes off"] = lambda: run_decl(decl_off)
    for name in ("static", "static, passes off"):
        np.testing.assert_allclose(fns[name]()[0], want, rtol=1e-4, atol=1e-5)
    return interleaved(fns, rounds)


# -- 3. saved MNIST model -------------------------------------------------------------------------
def saved_mnist(rounds):
    core.seed(1)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        model = mnist_model.MNIST()
        img = static.data("img", [None, 1, 28, 28], "float32")
        pred = model(img)
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    exe.run(startup, scope=scope)
    params = dict(zip(["w1", "b1", "w2", "b2", "wf", "bf"],
                      [np.asarray(scope.find_var(p.name).get_tensor())
                       for p in main.all_parameters()]))
    with tempfile.TemporaryDirectory() as d:
        core.io.save_inference_model(d, ["img"], [pred], exe, main_program=main, scope=scope)
        loaded = static.Scope()
        program, feed_names, fetch = core.io.load_inference_model(d, exe, scope=loaded)
    off = static.CompiledProgram(program, build_strategy=OFF)
    rng = np.random.default_rng(0)
    rows = {}
    for batch, n in ((1, rounds * 10), (64, rounds)):
        x = rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32)
        feed = {feed_names[0]: x}
        fns = {"numpy": lambda x=x: sve.mnist_numpy(params, x),
               "static": lambda feed=feed: exe.run(program, feed=feed, fetch_list=fetch,
                                                   scope=loaded),
               "static, passes off": lambda feed=feed: exe.run(off, feed=feed,
                                                               fetch_list=fetch, scope=loaded)}
        for name in ("static", "static, passes off"):
            np.testing.assert_allclose(fns[name]()[0], fns["numpy"](), rtol=1e-4, atol=1e-5)
        rows[batch] = interleaved(fns, n)
    return rows


def show(title, row, ratios):
    print(f"\n{title}")
    for name, t in row.items():
        print(f"  {name:<30} {t * 1e3:9.3f} ms")
    for a, b in ratios:
        print(f"  {a + ' / ' + b:<44} {row[a] / row[b]:5.2f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30, help="rounds per workload")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time each call by wall time or by the process's CPU time (steadier "
                         "on a shared machine; counts every thread's time)")
    ap.add_argument("--only", choices=("mnist", "rnn", "saved"), default=None,
                    help="run one workload")
    args = ap.parse_args(argv)
    CLOCK["clock"] = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"medians of {args.repeat}+ interleaved rounds (CPU, numpy {np.__version__}, "
          f"{args.clock} clock, load average {os.getloadavg()[0]:.2f})")
    if args.only in (None, "mnist"):
        show("MNIST train step, batch 64", mnist_train(args.repeat),
             [("static", "eager"), ("static", "numpy"), ("static, passes off", "numpy"),
              ("eager", "numpy"), ("declarative", "eager"), ("numpy GEMMs only", "numpy")])
    if args.only in (None, "rnn"):
        rnn_rows(args.repeat)
    if args.only in (None, "saved"):
        for batch, row in saved_mnist(args.repeat).items():
            show(f"saved MNIST model, batch {batch}", row,
                 [("static", "numpy"), ("static, passes off", "numpy")])
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


def rnn_rows(repeat):
    """The two RNN workloads' tables."""
    show("RNN 100 steps, while_loop / Python for", rnn(repeat * 3, False),
         [("static", "numpy"), ("static, passes off", "numpy"), ("declarative for", "numpy"),
          ("declarative for, passes off", "numpy")])
    show("RNN, data-dependent while + cond", rnn(repeat * 3, True),
         [("static", "numpy"), ("static, passes off", "numpy")])


if __name__ == "__main__":
    main()

"""Per-call overhead and cold start of a small converted function, and batch-1 inference.

    python benchmarks/overhead.py [--repeat N] [--skip-saved]

Workload: ``f(x, n)`` below (x float32 [4, 8], n int64 [1] holding 3): a tensor ``if``, a
tensor ``while`` of three trips and another tensor ``if``, against the same code written with
numpy (``f_numpy``). Figures:

1. the warm ``@declarative`` call of ``f``, the warm ``Executor.run`` of its Program (the
   same feed and fetch), and ``f_numpy``; the ratios to numpy;
2. the first call in this process (parse, convert, build the Program, compile its plan; one
   sample) and a new function object with the same code (the converted code is cached per
   code object: building and compiling only; median);
3. ``import core, translator`` in a fresh process (median of a few processes), from a
   bytecode cache (what an installed package has) and compiling every module from source;
4. the MNIST model of ``examples/mnist_model.py`` saved with ``save_inference_model``,
   loaded back and run by the executor at batch 1 and batch 64, against the hand-written
   numpy inference of ``benchmarks/static_vs_eager.py``.

Each figure is a median of repeated runs (the warm calls alternate, round by round); ratios
are between medians of the same run. Goals: warm declarative call <= 1.3x numpy,
``Executor.run`` <= 1.5x, first call <= 9 ms, new function object <= 6 ms, import <= 250 ms,
saved model batch 1 <= 1.1x numpy. Absolute times are only comparable on the same machine;
``benchmarks/compare.py`` compares two revisions in the same minutes.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import core  # noqa: E402
import mnist_model  # noqa: E402 - examples/mnist_model.py
from translator import declarative  # noqa: E402

import static_vs_eager as sve  # noqa: E402 - the hand-written numpy MNIST inference
from core import static  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402


def f(x, n):
    if core.layers.mean(x) > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = core.layers.zeros_like(n)
    while i < n:
        y = core.layers.tanh(y) + 0.1
        i = i + 1
    if core.layers.reduce_sum(y) > 0:
        y = y + 1.0
    else:
        y = y - 1.0
    return y


def f_numpy(x, n):
    if x.mean() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = np.zeros_like(n)
    while i < n:
        y = np.tanh(y) + 0.1
        i = i + 1
    if y.sum() > 0:
        y = y + 1.0
    else:
        y = y - 1.0
    return y


def fresh_copy(fn):
    """A new function object with ``fn``'s code: the translator's caches start empty."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def inputs():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
    return x, np.array([3], np.int64)


def cold(repeat):
    """(first call, median of new function objects) in seconds."""
    x, n = (core.to_tensor(a) for a in inputs())
    start = time.perf_counter()
    declarative(fresh_copy(f))(x, n)
    first = time.perf_counter() - start
    times = []
    for _ in range(repeat):
        g = declarative(fresh_copy(f))
        start = time.perf_counter()
        g(x, n)
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def warm(repeat, number=200):
    """``{name: median seconds per call}`` of the three warm variants, run in turn."""
    xa, na = inputs()
    x, n = core.to_tensor(xa), core.to_tensor(na)
    g = declarative(f)
    want = f_numpy(xa, na)
    np.testing.assert_allclose(g(x, n).numpy(), want, rtol=1e-5, atol=1e-6)
    concrete = g.get_concrete_program(x, n)
    program = concrete.main_program
    feed_names = [v.name for v in concrete.inputs if hasattr(v, "name")]
    fetch = list(concrete.output_vars)
    exe = core.Executor(core.CPUPlace())
    feed = dict(zip(feed_names, (xa, na)))
    scope = core.static.global_scope()
    got = exe.run(program, feed=feed, fetch_list=fetch, scope=scope)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    fns = {"declarative": lambda: g(x, n),
           "executor": lambda: exe.run(program, feed=feed, fetch_list=fetch, scope=scope),
           "numpy": lambda: f_numpy(xa, na)}
    return alternate(fns, repeat, number)


def alternate(fns, repeat, number):
    """``{name: median seconds per call}``: ``number`` calls of each function in turn, round
    after round (after one call each to warm up)."""
    for fn in fns.values():
        fn()
    times = {k: [] for k in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            times[name].append((time.perf_counter() - start) / number)
    return {k: statistics.median(v) for k, v in times.items()}


def import_time(samples=5, cached=True):
    """Median seconds of ``import core, translator`` in a fresh interpreter: with ``cached``
    from bytecode that a first process wrote to a temporary cache (``PYTHONPYCACHEPREFIX``:
    what an installed package gives), else compiling every module from source (as with
    ``PYTHONDONTWRITEBYTECODE`` set and no cache)."""
    code = ("import time; t = time.perf_counter(); import core, translator; "
            "print(time.perf_counter() - t)")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as cache:
        if cached:
            env["PYTHONPYCACHEPREFIX"] = cache
        else:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        times = []
        for k in range(samples + int(cached)):
            out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                                 capture_output=True, text=True).stdout
            if not (cached and k == 0):  # the first process writes the cache
                times.append(float(out.split()[-1]))
    return statistics.median(times)


def saved_mnist(repeat):
    """``{batch: {"executor": s, "numpy": s}}``: the saved and reloaded MNIST model run by
    the executor, against the hand-written numpy inference, alternating, batch 1 and 64."""
    core.seed(1)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 1, 28, 28], "float32")
        pred = mnist_model.MNIST()(img)
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
    rng = np.random.default_rng(0)
    out = {}
    for batch, number in ((1, 50), (64, 2)):
        x = rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32)
        feed = {feed_names[0]: x}
        fns = {"executor": lambda feed=feed: exe.run(program, feed=feed, fetch_list=fetch,
                                                     scope=loaded),
               "numpy": lambda x=x: sve.mnist_numpy(params, x)}
        np.testing.assert_allclose(fns["executor"]()[0], fns["numpy"](), rtol=1e-4, atol=1e-5)
        out[batch] = alternate(fns, repeat, number)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--skip-saved", action="store_true", help="leave out the saved MNIST model")
    args = ap.parse_args(argv)
    first, fresh = cold(args.repeat)
    w = warm(args.repeat)
    imp, imp_source = import_time(), import_time(cached=False)
    num = w["numpy"]
    rows = [
        ("f warm declarative call", f"{w['declarative'] * 1e6:9.1f} us",
         f"{w['declarative'] / num:5.2f}x numpy (goal <= 1.3x)"),
        ("f warm Executor.run", f"{w['executor'] * 1e6:9.1f} us",
         f"{w['executor'] / num:5.2f}x numpy (goal <= 1.5x)"),
        ("f numpy", f"{num * 1e6:9.1f} us", ""),
        ("f first call", f"{first * 1e3:9.2f} ms", "goal <= 9 ms (one sample)"),
        ("f new function object", f"{fresh * 1e3:9.2f} ms", "goal <= 6 ms"),
        ("import core, translator", f"{imp * 1e3:9.1f} ms",
         "goal <= 250 ms (fresh process, bytecode cached)"),
        ("import, compiling sources", f"{imp_source * 1e3:9.1f} ms", "no bytecode cache"),
    ]
    if not args.skip_saved:
        saved = saved_mnist(args.repeat)
        for batch in (1, 64):
            row = saved[batch]
            rows.append((f"saved MNIST batch {batch} executor",
                         f"{row['executor'] * 1e3:9.3f} ms",
                         f"{row['executor'] / row['numpy']:5.2f}x numpy"
                         + (" (goal <= 1.1x)" if batch == 1 else "")))
            rows.append((f"saved MNIST batch {batch} numpy", f"{row['numpy'] * 1e3:9.3f} ms",
                         ""))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value}  {note}".rstrip())
    return rows


if __name__ == "__main__":
    main()

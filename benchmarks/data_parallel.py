"""Data-parallel throughput and how much of a slow reader the loaders hide.

    python benchmarks/data_parallel.py [--steps N] [--repeats N] [--delay-ms D]

(a) MNIST training steps (the eager model of ``examples/mnist_model.py``, batch 64 per
    process, Adam) run by 1 and by 2 processes started with ``python -m
    core.distributed.launch`` (one BLAS thread per process); the 2-process job wraps the
    model in ``DataParallel``, so each step also averages the gradients over MPI. Throughput
    is samples per second over all processes (median over repeats of the slowest rank's
    time); the speed-up is 2-process throughput over 1-process throughput. On an idle
    machine with 2 cores the goal is at least 1.6x.
(b) A reader that takes ``--delay-ms`` per batch (default: 0.8 of a step; sleeping, as I/O
    does) feeding the same
    step in one process: read-then-step in a plain loop, against
    ``DataLoader.from_generator`` (its thread reads the next batch while the model runs) and
    against ``DataLoader(dataset, num_workers=2)``. "hidden" is the share of the reader's
    time that no longer adds to the epoch: (plain - loader) / (plain - steps alone). The
    variants alternate and each figure is a median.

Absolute times are only comparable on the same machine; ratios come from the same run.
"""
import argparse
import json
import os
import subprocess
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread per process, set before numpy loads

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, ROOT)

import core  # noqa: E402
import core.distributed as dist  # noqa: E402
from mnist_model import MNIST  # noqa: E402

BATCH = 64


def _batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-1, 1, (BATCH, 1, 28, 28)).astype("float32"),
             rng.integers(0, 10, (BATCH, 1)).astype("int64")) for _ in range(n)]


def _step(model, opt, images, labels):
    img = images if isinstance(images, core.Tensor) else core.to_tensor(images)
    lab = labels if isinstance(labels, core.Tensor) else core.to_tensor(labels)
    prediction, _ = model(img, lab)
    loss = core.layers.mean(core.layers.cross_entropy(prediction, lab))
    loss.backward()
    opt.minimize(loss)
    model.clear_gradients()


def _model():
    core.seed(1)
    net = MNIST()
    return net, core.optimizer.Adam(1e-3, parameter_list=net.parameters())


# -- (a) one rank of the throughput job ------------------------------------------------------
def worker(steps, repeats):
    env = dist.init_parallel_env()
    net, opt = _model()
    model = core.DataParallel(net) if env.nranks > 1 else net
    data = _batches(steps, seed=env.rank)
    for images, labels in data[:2]:  # warm up
        _step(model, opt, images, labels)
    times = []
    for _ in range(repeats):
        dist.barrier()
        start = time.perf_counter()
        for images, labels in data:
            _step(model, opt, images, labels)
        t = core.to_tensor(np.array([time.perf_counter() - start], "float64"))
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(float(t.numpy()[0]))
    if env.rank == 0:
        print("RESULT " + json.dumps({"nranks": env.nranks, "time": float(np.median(times)),
                                      "steps": steps}), flush=True)


def throughput(nproc, steps, repeats):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    out = subprocess.run([sys.executable, "-m", "core.distributed.launch", "--nproc_per_node",
                          str(nproc), "--timeout", "300", os.path.abspath(__file__), "--worker",
                          "--steps", str(steps), "--repeats", str(repeats)],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=330)
    if out.returncode != 0:
        raise SystemExit(f"{nproc}-process run failed:\n{out.stdout}\n{out.stderr}")
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("RESULT "))
    r = json.loads(line[len("RESULT "):])
    return nproc * steps * BATCH / r["time"], r["time"]


# -- (b) slow reader -------------------------------------------------------------------------
class _SlowBatches(core.io.Dataset):
    """Batches (as one-sample items) that each take ``delay`` seconds to read."""

    def __init__(self, data, delay):
        self.data, self.delay = data, delay

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        time.sleep(self.delay)
        return self.data[i]


def slow_reader(steps, delay, repeats):
    data = _batches(steps, seed=3)
    net, opt = _model()

    def reader():
        for images, labels in data:
            time.sleep(delay)
            yield images, labels

    def steps_only():
        for images, labels in data:
            _step(net, opt, images, labels)

    def plain():
        for images, labels in reader():
            _step(net, opt, images, labels)

    def from_generator():
        loader = core.io.DataLoader.from_generator(capacity=4)
        loader.set_batch_generator(reader)
        for images, labels in loader():
            _step(net, opt, images, labels)

    def workers():
        loader = core.io.DataLoader(_SlowBatches(data, delay), batch_size=1, num_workers=2,
                                    collate_fn=lambda items: list(items[0]))
        for images, labels in loader:
            _step(net, opt, images, labels)

    steps_only()  # warm up
    variants = (("steps alone", steps_only), ("plain loop", plain),
                ("from_generator", from_generator), ("num_workers=2", workers))
    times = {name: [] for name, _ in variants}
    for _ in range(repeats):  # the variants alternate, so a busy machine slows all alike
        for name, fn in variants:
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--delay-ms", type=float, default=None,
                    help="reader time per batch (default: about one step)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.steps, args.repeats)
        return 0

    print(f"(a) MNIST step, batch {BATCH} per process, {args.steps} steps, median of "
          f"{args.repeats}")
    one, t1 = throughput(1, args.steps, args.repeats)
    two, t2 = throughput(2, args.steps, args.repeats)
    print(f"  1 process : {one:8.0f} samples/s ({t1 / args.steps * 1e3:.1f} ms/step)")
    print(f"  2 processes: {two:8.0f} samples/s ({t2 / args.steps * 1e3:.1f} ms/step)")
    print(f"  speed-up   : {two / one:.2f}x (goal on 2 idle cores: >= 1.6x)")

    delay = args.delay_ms / 1e3 if args.delay_ms is not None else 0.8 * t1 / args.steps
    r = slow_reader(args.steps, delay, args.repeats)
    base, plain = r["steps alone"], r["plain loop"]
    ideal = max(base, delay * args.steps)
    print(f"(b) reader taking {delay * 1e3:.1f} ms per batch, {args.steps} steps in one "
          f"process, median of {args.repeats}")
    print(f"  (an epoch takes at least max(steps, reader) = {ideal:.2f} s: at best "
          f"{(plain - ideal) / max(plain - base, 1e-9):.0%} hidden)")
    for name, t in r.items():
        extra = ""
        if name not in ("steps alone", "plain loop"):
            extra = f"  hidden {(plain - t) / max(plain - base, 1e-9):6.1%} of the reader time"
        print(f"  {name:15s} {t:6.2f} s{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

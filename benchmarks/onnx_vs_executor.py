"""onnxruntime vs our Executor on the same Programs, timed in one run.

Workloads (each Program is exported once with ``core.onnx.export_program`` or
``translator.onnx.export`` and checked to give the executor's results first):

1. MNIST inference (conv-pool, conv-pool, fc+softmax) at batch 64 and batch 1;
2. the vanilla RNN ``h = tanh(x_t Wx + h Wh + b)`` (batch 4, hidden 32, 100 steps) as a
   ``while_loop`` Program (an ONNX ``Loop``), and its data-dependent variant with a ``cond``
   in the body (``Loop`` + ``If``);
3. the greedy RNN decoder of ``examples/dynamic_decode.py`` (a translated ``while`` with
   ``break`` and a tensor array), batch 8.

Prints medians of repeated runs and ``executor / onnxruntime`` (above 1: onnxruntime is
faster). Both sides run on one thread: onnxruntime with one intra-op thread, numpy's BLAS
with ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` set to 1 by this
script unless they are already set (a busy machine makes multi-threaded BLAS timings
erratic). Usage: ``python benchmarks/onnx_vs_executor.py [--repeat N] [--threads N]``.
"""
import argparse
import os
import sys
import tempfile

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy loads its BLAS

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))

import onnxruntime as ort  # noqa: E402
import static_vs_eager as sve  # noqa: E402

import core  # noqa: E402
import core.onnx  # noqa: E402
import translator.onnx  # noqa: E402
from core import layers, static  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402
from translator import InputSpec  # noqa: E402


def session(path, threads):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def compare(name, exe_fn, ort_fn, repeat, rtol=1e-4, atol=1e-5):
    want, got = exe_fn(), ort_fn()
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=name)
    diff = max(float(np.max(np.abs(np.asarray(g, np.float64) - np.asarray(w, np.float64))))
               for w, g in zip(want, got))
    t_exe = sve.median_time(exe_fn, repeat)
    t_ort = sve.median_time(ort_fn, repeat)
    print(f"{name:<30} executor {t_exe * 1e3:8.3f} ms  onnxruntime {t_ort * 1e3:8.3f} ms  "
          f"executor/onnxruntime {t_exe / t_ort:6.2f}x  max |diff| {diff:.1e}")
    return t_exe / t_ort


def bench_mnist(tmp, repeat, threads):
    from mnist_model import MNIST

    core.seed(1)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        model = MNIST()
        model.eval()
        img = static.data("img", [None, 1, 28, 28], "float32")
        pred = model(img)
    exe = static.Executor(core.CPUPlace())
    scope = static.Scope()
    path = os.path.join(tmp, "mnist.onnx")
    with static.scope_guard(scope):
        exe.run(startup)
        core.onnx.export_program(main, path, feed=["img"], fetch=[pred])
    sess = session(path, threads)
    rng = np.random.default_rng(0)
    ratios = {}
    for batch in (64, 1):
        x = rng.uniform(-1, 1, (batch, 1, 28, 28)).astype(np.float32)
        ratios[f"mnist batch {batch}"] = compare(
            f"mnist inference batch {batch}",
            lambda x=x: exe.run(main, feed={"img": x}, fetch_list=[pred], scope=scope),
            lambda x=x: sess.run(None, {"img": x}), repeat)
    return ratios


def bench_rnn(tmp, repeat, threads, data_dependent):
    xv, wxv, whv, bv = sve.rnn_data()
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
    path = os.path.join(tmp, "rnn.onnx")
    core.onnx.export_program(main, path, feed=["x", "wx", "wh", "b"], fetch=[h])
    sess = session(path, threads)
    exe = static.Executor(core.CPUPlace())
    feed = {"x": xv, "wx": wxv, "wh": whv, "b": bv}
    name = "rnn data-dependent + cond" if data_dependent else "rnn 100 steps"
    return {name: compare(name, lambda: exe.run(main, feed=feed, fetch_list=[h]),
                          lambda: sess.run(None, feed), repeat)}


def bench_decoder(tmp, repeat, threads):
    import dynamic_decode

    core.seed(4)
    decoder = dynamic_decode.GreedyDecoder()
    path = os.path.join(tmp, "decoder.onnx")
    translator.onnx.export(decoder, path, input_spec=[InputSpec([None, 16], "float32", "state"),
                                                      InputSpec([None], "int64", "tokens")])
    sess = session(path, threads)
    rng = np.random.default_rng(1)
    state = (rng.standard_normal((8, 16)) * 2.0).astype(np.float32)
    start = rng.integers(1, 8, size=8).astype(np.int64)
    st, tk = core.to_tensor(state), core.to_tensor(start)

    def executor():
        with core.no_grad():
            return [decoder(st, tk).numpy()]

    return {"rnn decoder": compare("rnn greedy decoder batch 8", executor,
                                   lambda: sess.run(None, {"state": state, "tokens": start}),
                                   repeat, rtol=0, atol=0)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads")
    args = ap.parse_args(argv)
    print(f"medians of {args.repeat} runs (CPU, numpy {np.__version__}, onnxruntime "
          f"{ort.__version__}, {args.threads} onnxruntime thread(s))")
    ratios = {}
    with tempfile.TemporaryDirectory() as tmp:
        ratios.update(bench_mnist(tmp, max(args.repeat // 2, 5), args.threads))
        ratios.update(bench_rnn(tmp, args.repeat, args.threads, False))
        ratios.update(bench_rnn(tmp, args.repeat, args.threads, True))
        ratios.update(bench_decoder(tmp, args.repeat, args.threads))
    return ratios


if __name__ == "__main__":
    main()

"""Deploy the MNIST model of the main demo outside Python: export it to ONNX and run it in
onnxruntime.

    python examples/export_onnx.py                  # a short training run, then export
    python examples/export_onnx.py --steps 300 -o mnist.onnx

The model is ``examples/mnist_declarative.py``'s ``MNIST`` (a declarative ``forward``). After
``--steps`` training steps the script

1. exports it with ``translator.onnx.export(model, path, input_spec=[InputSpec([None, 1, 28,
   28])])``: the batch dim stays symbolic, so the one file serves any batch size;
2. runs the file in onnxruntime and the same Program in our Executor on the test images and
   prints how far they agree (largest difference, same predicted digits, accuracy);
3. times both at batch 1000 and batch 1 (onnxruntime on one thread; numpy's BLAS as it is
   configured, so on a busy machine its timings vary).

A saved inference model (``save_inference_model`` / ``ProgramTranslator().
save_inference_model``) converts the same way from the command line:
``dy2static onnx MODEL_DIR -o model.onnx``.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import core
from core.dataset import mnist
from translator import InputSpec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mnist_declarative
import mnist_model


def median_ms(fn, repeat=10):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def executor_runner(model, spec):
    """Run the Program that ``translator.onnx.export`` exports, in our Executor."""
    concrete = model.forward.get_concrete_program(spec)
    program = concrete.main_program.clone(for_test=True)
    scope = core.static.Scope()
    for name, p in concrete.parameters:
        scope.var(name).get_tensor().set(p.numpy())
    exe = core.Executor(core.CPUPlace())
    out = program.global_block().var(concrete.output_vars[0].name)
    return lambda x: exe.run(program, feed={spec.name: x}, fetch_list=[out], scope=scope)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description="Export the MNIST demo to ONNX and run it in "
                                 "onnxruntime")
    ap.add_argument("--steps", type=int, default=60, help="training steps before the export")
    ap.add_argument("--repeat", type=int, default=10, help="timed runs per measurement")
    ap.add_argument("-o", "--output", default=None, help="where to write the .onnx file "
                    "(default: a temporary directory)")
    args = ap.parse_args(argv)
    try:
        import onnxruntime as ort

        import translator.onnx
    except ImportError as e:
        print(f"this example needs onnx and onnxruntime: pip install dy2static[onnx] ({e})")
        return False

    core.seed(90)
    model = mnist_declarative.MNIST()
    losses = mnist_declarative.train(model, max_steps=args.steps)
    print(f"trained {len(losses)} steps; final loss {losses[-1]:.4f}")
    model.eval()

    spec = InputSpec([None, 1, 28, 28], "float32", "image")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.output or os.path.join(tmp, "mnist.onnx")
        t0 = time.perf_counter()
        translator.onnx.export(model, path, input_spec=[spec])
        print(f"exported {path} ({os.path.getsize(path) / 1024:.0f} KiB) in "
              f"{time.perf_counter() - t0:.2f} s")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])

    images, labels = next(mnist_model.batches(mnist.test(), 1000))
    run_exe = executor_runner(model, spec)
    exe_pred = run_exe(images)
    (ort_pred,) = sess.run(None, {"image": images})
    diff = float(np.abs(exe_pred - ort_pred).max())
    same = float((exe_pred.argmax(1) == ort_pred.argmax(1)).mean())
    acc_exe = float((exe_pred.argmax(1) == labels[:, 0]).mean())
    acc_ort = float((ort_pred.argmax(1) == labels[:, 0]).mean())
    print(f"onnxruntime vs executor on {len(images)} test images: max |difference| {diff:.2e}, "
          f"same digit for {same:.1%}; accuracy {acc_ort:.4f} (onnxruntime) vs "
          f"{acc_exe:.4f} (executor)")
    for batch in (1000, 1):
        x = images[:batch]
        t_exe = median_ms(lambda x=x: run_exe(x), args.repeat)
        t_ort = median_ms(lambda x=x: sess.run(None, {"image": x}), args.repeat)
        print(f"batch {batch:>4}: executor {t_exe:8.3f} ms, onnxruntime {t_ort:8.3f} ms "
              f"(executor / onnxruntime {t_exe / t_ort:.2f}x)")
    return diff < 1e-4 and same == 1.0


if __name__ == "__main__":
    sys.exit(0 if main() else 1)

"""fit_a_line: the classic fluid linear-regression example, trained statically and exported.

It builds the seed's program — ``data`` -> ``fc(size=1)`` -> ``square_error_cost`` -> ``mean``
-> ``SGD(0.001).minimize`` — trains it for 500 full-batch steps with an ``Executor`` on
``CPUPlace``, saves it with ``save_inference_model``, loads it back into a fresh scope and
predicts. The seed's quick-start variant learns ``y = 4a + 6b + 7c + 2d`` from four features
(the UCI housing data of the full fluid example is not bundled); here the training set is a
deterministic synthetic one, and the script checks that the reloaded model predicts
``[9, 5, 2, 10]`` within 1% of the true value 100.

Run: ``python examples/fit_a_line.py [MODEL_DIR]`` (default: a temporary directory).
"""
import sys
import tempfile

import numpy as np

import core
from core import layers

TRUE_W = np.array([4.0, 6.0, 7.0, 2.0], dtype=np.float32)  # y = 4a + 6b + 7c + 2d
QUERY = np.array([[9.0, 5.0, 2.0, 10.0]], dtype=np.float32)
STEPS = 500


def make_dataset(n=64, seed=0):
    """``n`` samples of four features in [0, 10) and their exact linear targets."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 10.0, size=(n, TRUE_W.size)).astype(np.float32)
    y = (x @ TRUE_W).reshape(n, 1).astype(np.float32)
    return x, y


def build():
    """The seed's network in a fresh (main, startup) program pair."""
    main, startup = core.Program(), core.Program()
    main.random_seed = startup.random_seed = 90
    with core.program_guard(main, startup):
        x = layers.data(name="x", shape=[TRUE_W.size], dtype="float32")
        y = layers.data(name="y", shape=[1], dtype="float32")
        y_predict = layers.fc(input=x, size=1, act=None)
        cost = layers.square_error_cost(input=y_predict, label=y)
        avg_cost = layers.mean(cost)
        sgd_optimizer = core.optimizer.SGD(learning_rate=0.001)
        sgd_optimizer.minimize(avg_cost)
    return main, startup, y_predict, avg_cost


def train_and_export(model_dir):
    """Train, save the inference model to ``model_dir``; return (final loss, prediction)."""
    was_dynamic = core.in_dynamic_mode()
    core.enable_static()
    try:
        main, startup, y_predict, avg_cost = build()
        exe = core.Executor(core.CPUPlace())
        x_train, y_train = make_dataset()
        with core.scope_guard(core.Scope()):
            exe.run(startup)
            for step in range(STEPS):
                (loss,) = exe.run(main, feed={"x": x_train, "y": y_train},
                                  fetch_list=[avg_cost])
                if step % 100 == 0:
                    print(f"step {step:3d}  loss {float(loss):.4f}")
            core.io.save_inference_model(model_dir, ["x"], [y_predict], exe, main_program=main)
        with core.scope_guard(core.Scope()):
            program, feed_names, fetch_targets = core.io.load_inference_model(model_dir, exe)
            (pred,) = exe.run(program, feed={feed_names[0]: QUERY}, fetch_list=fetch_targets)
        return float(loss), float(np.asarray(pred).reshape(-1)[0])
    finally:
        if was_dynamic:
            core.disable_static()


def main(argv):
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = argv[1] if len(argv) > 1 else tmp
        loss, pred = train_and_export(model_dir)
    truth = float(QUERY[0] @ TRUE_W)
    print(f"final loss {loss:.5f}; prediction for {QUERY[0].tolist()}: {pred:.3f} "
          f"(true value {truth:.1f})")
    if abs(pred - truth) > 0.01 * abs(truth):
        print("FAILED: the reloaded model is off by more than 1%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

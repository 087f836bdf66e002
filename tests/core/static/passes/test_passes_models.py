"""The example models with the optimisation passes on and off: static training and inference
programs, ``@declarative`` Layers (whose programs the executor's plan compiler optimises the
same way) and the eager model agree."""
import os
import sys

import numpy as np

import core
from core import static
from core.static import passes

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                "..", "examples")))
import dynamic_decode
import fit_a_line
import mnist_declarative
import mnist_model
import mnist_static
import tree_sum
from translator import ProgramTranslator

OFF = static.BuildStrategy(enable_passes=False)


def _batch(n=16, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (n, 1, 28, 28)).astype(np.float32),
            rng.integers(0, 10, (n, 1)).astype(np.int64))


def _static_mnist(strategy, steps, images, labels):
    core.seed(11)
    main, startup, test_program, _, _, prediction, avg_loss, _ = mnist_static.build()
    exe, scope = static.Executor(core.CPUPlace()), static.Scope()
    exe.run(startup, scope=scope)
    wrap = (lambda p: p) if strategy is None else (
        lambda p: static.CompiledProgram(p, build_strategy=strategy))
    feed = {"img": images, "label": labels}
    losses = [float(exe.run(wrap(main), feed=feed, fetch_list=[avg_loss], scope=scope)[0])
              for _ in range(steps)]
    pred, = exe.run(wrap(test_program), feed=feed, fetch_list=[prediction], scope=scope)
    params = [np.asarray(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()]
    return losses, pred, params, main


def test_static_mnist_training_and_inference_agree_with_and_without_passes():
    images, labels = _batch()
    on = _static_mnist(None, 3, images, labels)
    off = _static_mnist(OFF, 3, images, labels)
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5)
    np.testing.assert_allclose(on[1], off[1], rtol=1e-4, atol=1e-6)
    for a, b in zip(on[2], off[2]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    opt, _ = passes.optimize(on[3], ["img", "label"], [])
    types = [op.type for op in opt.global_block().ops]
    # each conv + ReLU + 2x2 max pool is one op, forward and gradient
    assert types.count("conv2d_pool2d_fusion_grad") == 2 and "fc_grad" in types


def test_static_mnist_inference_equals_the_eager_model():
    images, labels = _batch(4, seed=1)
    _, pred, params, _main = _static_mnist(None, 1, images, labels)
    core.seed(0)
    model = mnist_model.MNIST()
    for p, value in zip(model.parameters(), params):
        p.set_value(value)
    model.eval()
    with core.no_grad():
        want = model(core.to_tensor(images)).numpy()
    np.testing.assert_allclose(pred, want, rtol=1e-4, atol=1e-6)


def test_fit_a_line_trains_the_same_with_and_without_passes():
    x, y = fit_a_line.make_dataset()
    runs = []
    for strategy in (None, OFF):
        core.enable_static()
        try:
            main, startup, _y_predict, avg_cost = fit_a_line.build()
            exe, scope = core.Executor(core.CPUPlace()), core.Scope()
            exe.run(startup, scope=scope)
            prog = main if strategy is None else static.CompiledProgram(main, strategy)
            runs.append([float(exe.run(prog, feed={"x": x, "y": y}, fetch_list=[avg_cost],
                                       scope=scope)[0]) for _ in range(20)])
        finally:
            core.disable_static()
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-6)
    assert runs[0][-1] < runs[0][0]


def _declarative_mnist_steps(steps, images, labels):
    core.seed(21)
    model = mnist_declarative.MNIST()
    opt = core.optimizer.AdamOptimizer(learning_rate=1e-3, parameter_list=model.parameters())
    losses = [mnist_model.train_step(model, opt, images, labels) for _ in range(steps)]
    return losses, [p.numpy() for p in model.parameters()]


def test_declarative_mnist_trains_the_same_with_and_without_passes_and_eagerly():
    images, labels = _batch(8, seed=2)
    on = _declarative_mnist_steps(2, images, labels)
    passes.set_enabled(False)
    try:
        off = _declarative_mnist_steps(2, images, labels)
    finally:
        passes.set_enabled(True)
    core.seed(21)
    eager_model = mnist_model.MNIST()
    opt = core.optimizer.AdamOptimizer(1e-3, parameter_list=eager_model.parameters())
    eager = [mnist_model.train_step(eager_model, opt, images, labels) for _ in range(2)]
    np.testing.assert_allclose(on[0], off[0], rtol=1e-5)
    np.testing.assert_allclose(on[0], eager, rtol=1e-4)
    for a, b, c in zip(on[1], off[1], eager_model.parameters()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(a, c.numpy(), rtol=1e-3, atol=1e-5)


def _decode(enabled):
    core.seed(4)
    decoder = dynamic_decode.GreedyDecoder()
    rng = np.random.default_rng(1)
    state = core.to_tensor(rng.standard_normal((3, 16)).astype(np.float32) * 2.0)
    start = core.to_tensor(rng.integers(1, 8, size=3).astype(np.int64))
    with core.no_grad():
        if not enabled:
            ProgramTranslator().enable(False)
        try:
            return decoder(state, start).numpy()
        finally:
            ProgramTranslator().enable(True)


def test_dynamic_decode_and_tree_sum_with_and_without_passes():
    on, eager = _decode(True), _decode(False)
    rows = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    tree_on = tree_sum.DeclarativeTreeSum()(core.to_tensor(rows)).numpy()
    passes.set_enabled(False)
    try:
        off = _decode(True)
        tree_off = tree_sum.DeclarativeTreeSum()(core.to_tensor(rows)).numpy()
    finally:
        passes.set_enabled(True)
    np.testing.assert_array_equal(on, off)
    np.testing.assert_array_equal(on, eager)
    np.testing.assert_allclose(tree_on, tree_off, rtol=1e-6)
    np.testing.assert_allclose(tree_on, rows.sum(axis=0, keepdims=True), rtol=1e-5, atol=1e-6)

"""A declarative call that needs gradients optimises its forward and gradient operators
together, then splits them: fused forward chains come with their fused gradients, and the
values and gradients are those of the unoptimised program and of eager mode."""
import os
import sys

import numpy as np

import core
from core.static import passes
from translator import ProgramTranslator

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                                "examples")))
import mnist_declarative


def _step(images, labels, enabled):
    """Loss and parameter gradients of one step of a fresh declarative (or eager) MNIST."""
    core.seed(5)
    model = mnist_declarative.MNIST()
    ProgramTranslator().enable(enabled)
    try:
        pred, _ = model(core.to_tensor(images), core.to_tensor(labels))
        loss = core.layers.mean(core.layers.cross_entropy(pred, core.to_tensor(labels)))
        loss.backward()
    finally:
        ProgramTranslator().enable(True)
    return model, float(loss), [p.gradient() for p in model.parameters()]


def _types(program):
    return [op.type for op in program.global_block().ops]


def test_forward_and_gradient_chains_are_fused_together_and_split():
    rng = np.random.default_rng(3)
    images = rng.uniform(-1, 1, (4, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, (4, 1)).astype(np.int64)
    model, loss, grads = _step(images, labels, True)
    concrete = model.forward.get_concrete_program(core.to_tensor(images),
                                                  core.to_tensor(labels))
    full, bwd = concrete.partial_program.training_programs()
    types = _types(full)
    # each conv + bias + ReLU + 2x2 max pool is one op, and its gradient one op
    assert types.count("conv2d_pool2d_fusion") == 2
    assert types.count("conv2d_pool2d_fusion_grad") == 2 and "fc_grad" in types
    assert "conv2d" not in types and "conv2d_grad" not in types and "pool2d" not in types
    bwd_types = _types(bwd)  # the gradient half reads the saved forward values
    assert bwd_types.count("conv2d_pool2d_fusion_grad") == 2
    assert "conv2d_pool2d_fusion" not in bwd_types
    # the same values as without passes and as eager mode
    passes.set_enabled(False)
    try:
        _, loss_off, grads_off = _step(images, labels, True)
    finally:
        passes.set_enabled(True)
    _, loss_eager, grads_eager = _step(images, labels, False)
    assert abs(loss - loss_off) <= 1e-6 * abs(loss_off)
    assert abs(loss - loss_eager) <= 1e-5 * abs(loss_eager)
    for a, b, c in zip(grads, grads_off, grads_eager):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-6)


def test_passes_off_keeps_the_program_as_built():
    rng = np.random.default_rng(4)
    images = rng.uniform(-1, 1, (2, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, (2, 1)).astype(np.int64)
    passes.set_enabled(False)
    try:
        model, _, _ = _step(images, labels, True)
        concrete = model.forward.get_concrete_program(core.to_tensor(images),
                                                      core.to_tensor(labels))
        full, _ = concrete.partial_program.training_programs()
    finally:
        passes.set_enabled(True)
    types = _types(full)
    assert "conv2d" in types and "conv2d_grad" in types and "conv2d_fusion" not in types

"""``Tensor.gradient()`` returns an array the caller owns, and a loss keeps its seed gradient."""
import numpy as np

import core


def _model_step(lin, opt, x):
    loss = core.layers.reduce_mean(lin(x))
    loss.backward()
    return loss


def test_gradient_is_a_copy_clear_gradients_and_steps_leave_it():
    core.seed(3)
    lin = core.nn.Linear(3, 2)
    opt = core.optimizer.SGD(learning_rate=0.5, parameter_list=lin.parameters())
    x = core.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    _model_step(lin, opt, x)
    g = lin.weight.gradient()
    kept = g.copy()
    assert np.any(kept != 0)
    lin.clear_gradients()
    np.testing.assert_array_equal(g, kept)
    np.testing.assert_array_equal(lin.weight.gradient(), np.zeros_like(kept))
    _model_step(lin, opt, x * 2.0)
    opt.step()
    np.testing.assert_array_equal(g, kept)
    g[...] = 123.0  # writing the returned array never changes the tensor's gradient
    assert not np.any(lin.weight.gradient() == 123.0)


def test_loss_gradient_is_the_seed():
    x = core.to_tensor(np.array([1.0, 2.0], np.float32), stop_gradient=False)
    loss = core.layers.reduce_sum(x * x)
    loss.backward()
    got = loss.gradient()
    assert got is not None and got.dtype == np.float32 and got.shape == tuple(loss.shape)
    np.testing.assert_array_equal(got, np.ones(loss.shape, np.float32))
    np.testing.assert_array_equal(x.gradient(), [2.0, 4.0])


def test_non_scalar_root_keeps_given_seed_and_accumulates():
    x = core.to_tensor(np.array([1.0, 2.0], np.float32), stop_gradient=False)
    y = x * 3.0
    seed = np.array([0.5, 2.0], np.float32)
    y.backward(seed, retain_graph=True)
    seed[...] = 0  # the caller's seed array is not aliased
    np.testing.assert_array_equal(y.gradient(), [0.5, 2.0])
    y.backward(retain_graph=True)
    np.testing.assert_array_equal(y.gradient(), [1.5, 3.0])
    np.testing.assert_array_equal(x.gradient(), [4.5, 9.0])


def test_leaf_root_seed_and_intermediate_has_no_gradient():
    x = core.to_tensor(np.array([1.0, 2.0], np.float32), stop_gradient=False)
    h = x * 2.0
    loss = core.layers.reduce_sum(h)
    loss.backward()
    assert h.gradient() is None  # only the root and the leaves keep gradients
    x.clear_gradient()
    x.backward()
    np.testing.assert_array_equal(x.gradient(), [1.0, 1.0])

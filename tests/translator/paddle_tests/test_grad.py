"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_grad.py
(2.x releases): the Layers as written (``paddle`` -> ``dy2static``). ``paddle.grad`` inside
a converted ``forward``: eager and converted gradients agree on Paddle's ``ones([10, 2, 5])``
and on random inputs, also as an Executor Program, and the Layer saved by ``jit.save`` with
an InputSpec (the gradient ops kept in the inference program) and loaded gives the same.
``create_graph=True`` is not supported eagerly, so ``GradLinearLayer``'s eager reference is the
same body with ``create_graph=False`` (the values do not depend on it) and the analytic
``2 * ones @ (W^10)^T``. Paddle's training-through-the-gradient case is disabled in Paddle
(``_test_save_train_program``) and not ported."""
import numpy as np
import pytest

import dy2static as paddle
from translator import ProgramTranslator

from ._port import check, f32


class GradLayer(paddle.nn.Layer):
    def __init__(self):
        super(GradLayer, self).__init__()

    @paddle.jit.to_static
    def forward(self, x):
        x.stop_gradient = False
        y = x * x
        dx = paddle.grad(outputs=[y], inputs=[x])[0]
        return dx


class GradLinearLayer(paddle.nn.Layer):
    def __init__(self):
        super(GradLinearLayer, self).__init__()
        self.linear = paddle.nn.Linear(5, 5, bias_attr=False)

    @paddle.jit.to_static
    def forward(self, x):
        x.stop_gradient = False
        tmp = x + x
        for i in range(10):
            tmp = self.linear(tmp)
        out = tmp
        dx = paddle.grad(
            [out], [x], None, create_graph=True, allow_unused=False)[0]
        return dx


def _eager_linear_grad(layer, x):
    """GradLinearLayer's body with create_graph=False, run eagerly."""
    x = paddle.to_tensor(x, stop_gradient=False)
    tmp = x + x
    for i in range(10):
        tmp = layer.linear(tmp)
    return paddle.grad([tmp], [x], None, create_graph=False, allow_unused=False)[0].numpy()


INPUTS = [np.ones([10, 2, 5], "float32"), f32(10, 2, 5, low=-1.0, seed=3)]


def test_grad():
    check(GradLayer(), *[(x,) for x in INPUTS])
    for x in INPUTS:
        np.testing.assert_allclose(GradLayer()(paddle.to_tensor(x)).numpy(), 2 * x, rtol=1e-6)


def test_grad_of_a_linear_chain(tmp_path):
    paddle.seed(2021)
    layer = GradLinearLayer()
    w = layer.linear.weight.numpy()
    analytic = 2 * np.ones([5], "float32") @ np.linalg.matrix_power(w, 10).T
    ProgramTranslator().enable(True)
    for x in INPUTS:
        got = layer(paddle.to_tensor(x)).numpy()
        np.testing.assert_allclose(got, _eager_linear_grad(layer, x), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, np.broadcast_to(analytic, x.shape), rtol=1e-4,
                                   atol=1e-6)
    path = str(tmp_path / "double_grad_infer_model")
    input_spec = [paddle.static.InputSpec(shape=[10, 2, 5], dtype='float32')]
    paddle.jit.save(layer, path, input_spec=input_spec)
    loaded = paddle.jit.load(path)
    for x in INPUTS:
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(),
                                   layer(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_create_graph_is_a_clear_error_eagerly():
    ProgramTranslator().enable(False)
    try:
        with pytest.raises(NotImplementedError, match="create_graph=True"):
            GradLinearLayer()(paddle.ones([10, 2, 5]))
    finally:
        ProgramTranslator().enable(True)

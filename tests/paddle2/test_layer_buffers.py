"""From PaddlePaddle's guide "Introduction to models and layers" (guides/advanced/layer_and_model):
``Layer.create_tensor``, a persistable buffer that ``forward`` writes with ``assign`` -- eagerly
and converted (the buffer holds the value after each call, its shape changed as eagerly) --
and a non-buffer tensor written while a program is built (a clear error)."""
import numpy as np
import pytest

import core
import dy2static as paddle

X = np.arange(20, dtype="float32").reshape([2, 10])


class Buffered(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        saved_tensor = self.create_tensor(name="saved_tensor0")
        self.register_buffer("saved_tensor", saved_tensor, persistable=True)
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        core.layers.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


class Temporary(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.saved_tensor = self.create_tensor(name="saved_tensor1")
        self.flatten = paddle.nn.Flatten()
        self.fc = paddle.nn.Linear(10, 100)

    def forward(self, input):
        y = self.flatten(input)
        # Save intermediate tensor
        core.layers.assign(y, self.saved_tensor)
        y = self.fc(y)
        return y


def test_create_tensor_is_a_tensor_to_write_into():
    m = Temporary()
    assert isinstance(m.saved_tensor, paddle.Tensor) and not m.saved_tensor.persistable
    assert not list(m.named_buffers()) and "saved_tensor" not in m.state_dict()
    m(paddle.to_tensor(X))
    np.testing.assert_array_equal(m.saved_tensor.numpy(), X)


@pytest.mark.parametrize("static", [False, True])
def test_buffer_written_in_forward(static):
    m = Buffered()
    assert [n for n, _ in m.named_buffers()] == ["saved_tensor"]
    assert "saved_tensor" in m.state_dict()
    if static:
        m = paddle.jit.to_static(m)
    for scale in (1.0, 2.0, 3.0):
        out = m(paddle.to_tensor(X * scale))
        assert out.shape == [2, 100]
        assert m.saved_tensor.shape == [2, 10]
        np.testing.assert_array_equal(m.saved_tensor.numpy(), X * scale)
    np.testing.assert_array_equal(m.state_dict()["saved_tensor"].numpy(), X * 3.0)


def test_non_buffer_tensor_written_while_converting_names_the_fix():
    m = paddle.jit.to_static(Temporary())
    with pytest.raises(TypeError, match="register_buffer"):
        m(paddle.to_tensor(X))


def test_parameter_keeps_its_shape_when_written_back():
    from core.tensor import rebind_data

    p = core.Parameter(np.zeros([3], "float32"), name="p")
    with pytest.raises(ValueError, match="does not match"):
        rebind_data(p, np.zeros([4], "float32"))


def test_linear_prints_as_paddle():
    # the guide shows Linear(in_features=10, out_features=3, dtype=float32)
    assert repr(paddle.nn.Linear(10, 3)) == "Linear(in_features=10, out_features=3, dtype=float32)"
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 2, name="fc"))
    assert "Linear(in_features=4, out_features=2, dtype=float32, name=fc)" in repr(model)

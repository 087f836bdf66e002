"""paddle.save / paddle.load (the object saved comes back) and paddle.jit.save / jit.load (a
TranslatedLayer that predicts as the original and fine-tunes with the same gradients; more in
test_jit_save_load.py)."""
import os

import numpy as np
import pytest

import core
import dy2static as paddle
from dy2static.static import InputSpec


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(6, 8)
        self.bn = paddle.nn.BatchNorm1D(8)
        self.fc2 = paddle.nn.Linear(8, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = paddle.nn.functional.relu(self.bn(self.fc1(x)))
        if paddle.mean(h) > 100.0:  # a tensor condition: a cond op in the saved program
            h = h * 0
        return self.fc2(h)


X = np.random.RandomState(0).rand(5, 6).astype("float32")


def test_save_load_round_trip_of_nested_objects(tmp_path):
    t = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    obj = {"w": t, "list": [t * 2, {"n": 3, "s": "text", "none": None}], "tuple": (1.5, t)}
    path = str(tmp_path / "obj.pdparams")
    assert paddle.save(obj, path) == path
    back = paddle.load(path)
    assert isinstance(back["w"], core.Tensor)
    np.testing.assert_array_equal(back["w"].numpy(), t.numpy())
    np.testing.assert_array_equal(back["list"][0].numpy(), t.numpy() * 2)
    assert back["list"][1] == {"n": 3, "s": "text", "none": None}
    assert back["tuple"][0] == 1.5 and isinstance(back["tuple"], tuple)
    raw = paddle.load(path, return_numpy=True)
    assert isinstance(raw["w"], np.ndarray)
    single = str(tmp_path / "t.pdtensor")
    paddle.save(t, single)
    np.testing.assert_array_equal(paddle.load(single).numpy(), t.numpy())


def test_state_dicts_round_trip_and_fluid_load_reads_them(tmp_path):
    net = Net()
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    net(paddle.to_tensor(X)).mean().backward()
    opt.step()
    paddle.save(net.state_dict(), str(tmp_path / "m.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "m.pdopt"))
    fresh = Net()
    fresh.set_state_dict(paddle.load(str(tmp_path / "m.pdparams")))
    fresh.eval()
    net.eval()
    np.testing.assert_array_equal(fresh(paddle.to_tensor(X)).numpy(),
                                  net(paddle.to_tensor(X)).numpy())
    params, opt_state = core.load(str(tmp_path / "m"))  # the fluid spelling keeps its pair
    assert set(params) == set(net.state_dict()) and opt_state is not None
    # a prefix with no file: the .pdparams beside it
    assert set(paddle.load(str(tmp_path / "m"))) == set(net.state_dict())


def test_load_errors_name_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing"):
        paddle.load(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="folder"):
        paddle.save({}, str(tmp_path) + os.sep)
    with pytest.raises(ValueError, match="protocol"):
        paddle.save({}, str(tmp_path / "x.pdparams"), protocol=1)


def test_jit_save_load_predicts_as_the_layer(tmp_path):
    paddle.seed(1)
    net = Net()
    net(paddle.to_tensor(X)).mean().backward()  # batch norm statistics move in training
    net.eval()
    path = str(tmp_path / "model" / "net")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 6], "float32", "x")])
    loaded = paddle.jit.load(path)
    assert isinstance(loaded, paddle.jit.TranslatedLayer)
    assert loaded.training  # a loaded Layer starts in train mode, as in PaddlePaddle
    loaded.eval()
    for n in (1, 5):
        x = paddle.to_tensor(X[:n])
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6, atol=1e-6)
    types = [op.type for op in loaded.program().global_block().ops]
    assert "cond" in types
    trainable = [p for p in loaded.parameters() if not p.stop_gradient]
    assert len(trainable) == 6  # fc1, bn scale / bias, fc2; bn statistics are buffers


def test_translated_layer_fine_tunes_with_the_layers_gradients(tmp_path):
    paddle.seed(2)
    net = Net()
    net.eval()
    path = str(tmp_path / "net")
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 6], "float32")])
    loaded = paddle.jit.load(path)
    loaded.eval()  # batch norm on its statistics, as the Layer
    x = paddle.to_tensor(X)
    (net(x) ** 2).mean().backward()
    (loaded(x) ** 2).mean().backward()
    by_shape = {}
    for p in net.parameters():
        if not p.stop_gradient:
            by_shape.setdefault(tuple(p.shape), []).append(p.gradient())
    tuned = [p for p in loaded.parameters() if not p.stop_gradient]
    assert len(tuned) == 6
    for p in tuned:
        assert any(np.allclose(p.gradient(), g, rtol=1e-5, atol=1e-7)
                   for g in by_shape[tuple(p.shape)]), p.name
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    before = float((loaded(x) ** 2).mean())
    for _ in range(5):
        loss = (loaded(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float((loaded(x) ** 2).mean()) < before


def test_jit_save_uses_the_last_call_without_input_spec(tmp_path):
    class Plain(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(6, 2)

        def forward(self, x):
            return self.fc(x)

    net = paddle.jit.to_static(Plain())
    with pytest.raises(ValueError, match="input_spec"):
        paddle.jit.save(net, str(tmp_path / "a"))
    net(paddle.to_tensor(X))
    paddle.jit.save(net, str(tmp_path / "a"))
    loaded = paddle.jit.load(str(tmp_path / "a"))
    np.testing.assert_allclose(loaded(paddle.to_tensor(X)).numpy(),
                               net(paddle.to_tensor(X)).numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="1 inputs"):
        loaded(paddle.to_tensor(X), paddle.to_tensor(X))

"""paddle.jit.save / jit.load in the 2.x file layout (``prefix.pdmodel`` / ``.pdiparams`` /
``.pdiparams.info``), a TranslatedLayer that follows train() / eval() as the saved Layer does
(dropout, batch-norm statistics), re-saving it, saving a to_static function and the older
directory layout."""
import os

import numpy as np
import pytest

import dy2static as paddle
from core.io import inference as inference_io
from core.serialization import ModelFormatError
from dy2static.static import InputSpec
from translator.partial_program import save_program

X = np.random.RandomState(0).rand(6, 4).astype("float32")
SPEC = [InputSpec([None, 4], "float32", "x")]


class Net(paddle.nn.Layer):
    def __init__(self, p=0.0):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 8)
        self.bn = paddle.nn.BatchNorm1D(8)
        self.drop = paddle.nn.Dropout(p, mode="upscale_in_train")
        self.fc2 = paddle.nn.Linear(8, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(self.drop(self.bn(self.fc(x))))


class Drop(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 64)
        self.drop = paddle.nn.Dropout(0.5, mode="upscale_in_train")

    @paddle.jit.to_static
    def forward(self, x):
        return self.drop(paddle.nn.functional.relu(self.fc(x)) + 1.0)


def _step(layer, opt):
    """One training step: the loss and the gradients by parameter name."""
    loss = (layer(paddle.to_tensor(X)) ** 2).mean()
    loss.backward()
    grads = {p.name: np.array(p.gradient()) for p in layer.parameters() if not p.stop_gradient}
    opt.step()
    opt.clear_grad()
    return float(loss), grads


def _values(layer):
    return {p.name: p.numpy() for p in layer.parameters()}


def _eval_out(layer):
    layer.eval()
    try:
        return layer(paddle.to_tensor(X)).numpy()
    finally:
        layer.train()


def test_jit_save_writes_files_with_the_path_as_prefix(tmp_path):
    paddle.seed(0)
    net = Net()
    prefix = tmp_path / "new" / "deeper" / "model"  # the folders are created
    paddle.jit.save(net, str(prefix), input_spec=SPEC)
    assert sorted(os.listdir(prefix.parent)) == ["model.pdiparams", "model.pdiparams.info",
                                                 "model.pdmodel"]  # no temporaries left
    with np.load(str(prefix) + ".pdiparams", allow_pickle=False) as bundle:  # plain data
        assert len([n for n in bundle.files if n.startswith("arrays/")]) == 8
    _, _, _, values, info = inference_io.read_inference_files(str(prefix))
    assert info[net.fc.weight.name] == {"trainable": True, "structured_name": "fc.weight"}
    assert info[net.bn._mean.name] == {"trainable": False, "structured_name": "bn._mean"}
    np.testing.assert_array_equal(values[net.fc.weight.name], net.fc.weight.numpy())
    loaded = paddle.jit.load(str(prefix))
    assert isinstance(loaded, paddle.jit.TranslatedLayer) and loaded.training
    np.testing.assert_allclose(_eval_out(loaded), _eval_out(net), rtol=1e-6)
    # a pathlib.Path prefix works as well
    assert isinstance(paddle.jit.load(prefix), paddle.jit.TranslatedLayer)


def test_translated_layer_trains_as_the_layer(tmp_path):
    paddle.seed(1)
    net = Net(p=0.0)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    for _ in range(2):
        _step(net, opt)
    paddle.jit.save(net, str(tmp_path / "m"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    assert {p.name for p in loaded.parameters()} == {p.name for p in net.parameters()}
    stats = [net.bn._mean.name, net.bn._variance.name]
    before = _values(loaded)
    loaded_opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    for _ in range(3):
        loss, grads = _step(net, opt)
        loss_l, grads_l = _step(loaded, loaded_opt)
        assert loss_l == pytest.approx(loss, rel=1e-6)
        assert set(grads_l) == set(grads)
        for name, g in grads.items():
            np.testing.assert_allclose(grads_l[name], g, rtol=1e-5, atol=1e-7, err_msg=name)
    after, expected = _values(loaded), _values(net)
    for name, value in expected.items():  # parameters and batch-norm statistics
        np.testing.assert_allclose(after[name], value, rtol=1e-5, atol=1e-7, err_msg=name)
    for name in stats:  # the statistics moved with the batches, as in the Layer
        assert not np.allclose(after[name], before[name]), name
    np.testing.assert_allclose(_eval_out(loaded), _eval_out(net), rtol=1e-5, atol=1e-6)
    # eval: the running statistics are used and left alone
    loaded.eval()
    loaded(paddle.to_tensor(X))
    for name in stats:
        np.testing.assert_array_equal(_values(loaded)[name], after[name])


def test_dropout_drops_in_train_mode_only(tmp_path):
    net = Drop()
    paddle.jit.save(net, str(tmp_path / "d"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "d"))
    paddle.seed(3)
    expected = net(paddle.to_tensor(X)).numpy()
    paddle.seed(3)
    got = loaded(paddle.to_tensor(X)).numpy()
    assert 0.3 < (got == 0).mean() < 0.7
    np.testing.assert_array_equal(got, expected)  # the same masks under the same seed
    loaded.eval()
    out = loaded(paddle.to_tensor(X)).numpy()
    assert (out != 0).all()
    np.testing.assert_allclose(out, _eval_out(net), rtol=1e-6)
    loaded.train()
    assert (loaded(paddle.to_tensor(X)).numpy() == 0).any()


def test_loaded_layer_fine_tunes_with_adam_and_saves_again(tmp_path):
    paddle.seed(4)
    net = Net(p=0.0)
    paddle.jit.save(net, str(tmp_path / "a" / "m"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "a" / "m"))
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=loaded.parameters())
    first = _step(loaded, opt)[0]
    for _ in range(10):
        last = _step(loaded, opt)[0]
    assert last < first
    paddle.jit.save(loaded, str(tmp_path / "b" / "m"))
    again = paddle.jit.load(str(tmp_path / "b" / "m"))
    np.testing.assert_allclose(_eval_out(again), _eval_out(loaded), rtol=1e-6)
    for name, value in _values(loaded).items():
        np.testing.assert_array_equal(_values(again)[name], value)
    _, _, _, _, info = inference_io.read_inference_files(str(tmp_path / "b" / "m"))
    assert info[net.fc2.bias.name]["structured_name"] == "fc2.bias"
    np.testing.assert_array_equal(
        [e["trainable"] for e in info.values()],
        [not p.stop_gradient for p in again.parameters()])


def test_jit_save_of_a_to_static_function(tmp_path):
    @paddle.jit.to_static
    def affine(x, y):
        return paddle.matmul(x, y) + 1.0

    specs = [InputSpec([None, 4], "float32"), InputSpec([4, 3], "float32")]
    paddle.jit.save(affine, str(tmp_path / "f"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "f"))
    assert loaded.parameters() == []
    y = np.ones((4, 3), "float32")
    np.testing.assert_allclose(loaded(paddle.to_tensor(X), paddle.to_tensor(y)).numpy(),
                               X @ y + 1.0, rtol=1e-6)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32")])
    def double(x):
        return x * 2.0

    paddle.jit.save(double, str(tmp_path / "g"))  # its declared input_spec
    np.testing.assert_allclose(paddle.jit.load(str(tmp_path / "g"))(X[:2]).numpy(), X[:2] * 2)


def test_a_model_saved_in_the_directory_layout_still_loads(tmp_path):
    paddle.seed(5)
    net = Net()
    concrete = net.forward.get_concrete_program(*SPEC)
    save_program(str(tmp_path / "old"), concrete.main_program, concrete.inputs,
                 concrete.output_vars, concrete.parameters)
    assert os.path.isdir(tmp_path / "old")
    loaded = paddle.jit.load(str(tmp_path / "old"))
    np.testing.assert_allclose(_eval_out(loaded), _eval_out(net), rtol=1e-6)


def test_jit_load_and_save_errors_name_the_path(tmp_path):
    missing = str(tmp_path / "nowhere" / "model")
    with pytest.raises(FileNotFoundError, match=r"model\.pdmodel"):
        paddle.jit.load(missing)
    with pytest.raises(TypeError, match="path"):
        paddle.jit.load(3)
    net = Net()
    with pytest.raises(ValueError, match="file_prefix"):
        paddle.jit.save(net, str(tmp_path) + os.sep, input_spec=SPEC)
    with pytest.raises(TypeError, match="'layer'"):
        paddle.jit.save(42, str(tmp_path / "x"))
    paddle.jit.save(net, str(tmp_path / "a"), input_spec=SPEC)
    paddle.jit.save(net, str(tmp_path / "b"), input_spec=SPEC)
    # files of two different saves are refused, not mixed
    os.replace(tmp_path / "b.pdiparams", tmp_path / "a.pdiparams")
    with pytest.raises(ModelFormatError, match="different saves"):
        paddle.jit.load(str(tmp_path / "a"))
    with pytest.raises(FileNotFoundError, match=r"b\.pdiparams"):
        paddle.jit.load(str(tmp_path / "b"))


def test_a_failed_save_writes_nothing(tmp_path, monkeypatch):
    paddle.seed(6)
    net = Net()
    prefix = str(tmp_path / "m")
    paddle.jit.save(net, prefix, input_spec=SPEC)
    old = _eval_out(net)
    files = sorted(os.listdir(tmp_path))
    snapshot = {n: (tmp_path / n).read_bytes() for n in files}

    def broken(*args, **kwargs):
        raise OSError("disk full")

    with paddle.no_grad():
        net.fc.weight.set_value(net.fc.weight.numpy() + 1.0)
    monkeypatch.setattr(inference_io, "encode_json", broken)
    with pytest.raises(OSError, match="disk full"):
        paddle.jit.save(net, prefix, input_spec=SPEC)
    with pytest.raises(OSError, match="disk full"):
        paddle.jit.save(net, str(tmp_path / "fresh"), input_spec=SPEC)
    assert sorted(os.listdir(tmp_path)) == files  # no temporaries, no half-written save
    assert {n: (tmp_path / n).read_bytes() for n in files} == snapshot
    monkeypatch.undo()
    np.testing.assert_allclose(_eval_out(paddle.jit.load(prefix)), old, rtol=1e-6)


def test_paddle_load_of_a_saved_model_gives_its_state_dict(tmp_path):
    # PaddlePaddle: paddle.load(prefix) of jit.save files is the Layer's state dict (structured
    # names), so a fresh Layer takes it with set_state_dict
    net = Net()
    net.eval()
    x = paddle.to_tensor(X)
    want = net(x).numpy()
    paddle.jit.save(net, str(tmp_path / "m" / "model"), input_spec=SPEC)
    state = paddle.load(str(tmp_path / "m" / "model"))
    assert set(state) == set(net.state_dict())
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(state[k].numpy(), v.numpy())
    fresh = Net()
    fresh.set_state_dict(state)
    fresh.eval()
    np.testing.assert_allclose(fresh(x).numpy(), want, rtol=1e-6)
    arrays = paddle.load(str(tmp_path / "m" / "model"), return_numpy=True)
    assert all(isinstance(a, np.ndarray) for a in arrays.values())
    with pytest.raises(FileNotFoundError, match="nope"):
        paddle.load(str(tmp_path / "m" / "nope"))

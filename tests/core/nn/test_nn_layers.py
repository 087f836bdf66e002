"""Layers, parameters and initializers (eager mode): registration, traversal, state dicts,
train/eval behaviour, and each built-in layer's forward against numpy."""
import math

import numpy as np
import pytest

import core
from core import initializer, unique_name
from core.nn import (
    BatchNorm,
    Conv2D,
    Dropout,
    Embedding,
    Layer,
    LayerList,
    LayerNorm,
    Linear,
    ParameterList,
    Pool2D,
    Sequential,
)
from core.nn import functional as F
from core.param_attr import ParamAttr


def t(a, dtype=np.float32):
    return core.to_tensor(np.asarray(a, dtype))


@pytest.fixture(autouse=True)
def fresh_names():
    with unique_name.guard():
        core.seed(7)
        yield


class Block(Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = Linear(4, 3, act="relu")
        self.bn = BatchNorm(3)
        self.scale = self.create_parameter([3], default_initializer=initializer.Constant(2.0))

    def forward(self, x):
        return self.bn(self.fc1(x)) * self.scale


class Net(Layer):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = Linear(3, 2, bias_attr=False)

    def forward(self, x):
        return self.head(self.block(x))


# -- parameters and initializers -------------------------------------------------------------
def test_linear_names_shapes_and_forward():
    fc = Linear(4, 3)
    assert fc.full_name() == "linear_0"
    assert [p.name for p in fc.parameters()] == ["linear_0.w_0", "linear_0.b_0"]
    assert fc.weight.shape == [4, 3] and fc.bias.shape == [3]
    assert not fc.weight.stop_gradient and fc.weight.trainable
    np.testing.assert_array_equal(fc.bias.numpy(), np.zeros(3, np.float32))
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    out = fc(t(x))
    np.testing.assert_allclose(out.numpy(), x @ fc.weight.numpy() + fc.bias.numpy(), rtol=1e-5)
    assert Linear(4, 3).full_name() == "linear_1"


def test_xavier_and_conv_default_initializers_have_paddle_ranges():
    fc = Linear(300, 200)
    limit = math.sqrt(6.0 / (300 + 200))
    w = fc.weight.numpy()
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.9 * limit
    conv = Conv2D(8, 16, 3)
    std = math.sqrt(2.0 / (3 * 3 * 8))
    assert conv.weight.shape == [16, 8, 3, 3]
    assert abs(conv.weight.numpy().std() - std) < 0.15 * std


def test_initializer_op_specs_and_fans():
    assert initializer.compute_fans([784, 10]) == (784, 10)
    assert initializer.compute_fans([20, 1, 5, 5]) == (25, 500)
    op, attrs = initializer.Xavier().op_spec([20, 1, 5, 5], "float32")
    assert op == "uniform_random"
    assert attrs["max"] == pytest.approx(math.sqrt(6.0 / (25 + 500)))
    op, attrs = initializer.MSRA(uniform=False).op_spec([20, 1, 5, 5], "float32")
    assert op == "gaussian_random" and attrs["std"] == pytest.approx(math.sqrt(2.0 / 25))
    assert initializer.Constant(3).op_spec([2], "float64") == (
        "fill_constant", {"shape": [2], "dtype": "float64", "value": 3.0})
    assert initializer.TruncatedNormal(0, 2).op_spec([3], "float32")[0] == \
        "truncated_gaussian_random"
    with pytest.raises(ValueError, match=r"\[3\].*\[2\]"):
        initializer.NumpyArrayInitializer(np.zeros(3)).op_spec([2], "float32")


def test_param_attr_name_initializer_and_no_bias():
    fc = Linear(2, 2, param_attr=ParamAttr(name="my_w",
                                           initializer=initializer.Constant(0.5)),
                bias_attr=False)
    assert fc.bias is None and [p.name for p in fc.parameters()] == ["my_w"]
    np.testing.assert_array_equal(fc.weight.numpy(), np.full((2, 2), 0.5, np.float32))
    frozen = Linear(2, 2, param_attr=ParamAttr(trainable=False, learning_rate=0.1))
    assert frozen.weight.stop_gradient and frozen.weight.optimize_attr["learning_rate"] == 0.1


def test_seed_makes_initialization_reproducible():
    core.seed(3)
    a = Linear(5, 5).weight.numpy()
    core.seed(3)
    b = Linear(5, 5).weight.numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("init,check", [
    (initializer.Constant(0.25), lambda w: np.all(w == np.float32(0.25))),
    (initializer.Uniform(-0.5, 0.25),
     lambda w: w.min() >= -0.5 and w.max() < 0.25 and abs(w.mean() + 0.125) < 0.02),
    (initializer.Normal(1.0, 0.5),
     lambda w: abs(w.mean() - 1.0) < 0.03 and abs(w.std() - 0.5) < 0.03),
    (initializer.NormalInitializer(loc=-2.0, scale=0.1),
     lambda w: abs(w.mean() + 2.0) < 0.01 and abs(w.std() - 0.1) < 0.01),
    (initializer.TruncatedNormal(0.0, 1.0),
     lambda w: np.abs(w).max() <= 2.0 and 0.7 < w.std() < 0.95),
    (initializer.Xavier(uniform=False),
     lambda w: abs(w.std() - math.sqrt(2.0 / (40 + 50))) < 0.015),
    (initializer.Xavier(), lambda w: np.abs(w).max() <= math.sqrt(6.0 / 90)
     and abs(w.std() - math.sqrt(2.0 / 90)) < 0.015),
    (initializer.MSRA(), lambda w: np.abs(w).max() <= math.sqrt(6.0 / 40)
     and abs(w.std() - math.sqrt(2.0 / 40)) < 0.02),
    (initializer.MSRA(uniform=False), lambda w: abs(w.std() - math.sqrt(2.0 / 40)) < 0.02),
    (initializer.NumpyArrayInitializer(np.arange(2000).reshape(40, 50)),
     lambda w: np.array_equal(w, np.arange(2000, dtype=np.float32).reshape(40, 50))),
], ids=lambda v: type(v).__name__ if isinstance(v, initializer.Initializer) else "")
def test_each_initializer_gives_its_distribution(init, check):
    fc = Linear(40, 50, param_attr=ParamAttr(initializer=init))
    w = fc.weight.numpy()
    assert w.shape == (40, 50) and w.dtype == np.float32
    assert check(w.astype(np.float64)), f"{init!r}: mean {w.mean()}, std {w.std()}"


def test_create_parameter_add_parameter_and_add_sublayer():
    layer = Layer()
    w = layer.create_parameter([2, 3], default_initializer=initializer.Constant(1.5))
    b = layer.create_parameter([3], is_bias=True)
    assert layer.create_parameter([3], attr=False) is None
    assert w.name.startswith(layer.full_name() + ".w_") and b.name.startswith(
        layer.full_name() + ".b_")
    np.testing.assert_array_equal(b.numpy(), np.zeros(3, np.float32))
    assert w.dtype == np.float32 and not w.stop_gradient
    assert layer.create_parameter([2], dtype="float64").dtype == np.float64
    assert layer.add_parameter("w", w) is w and layer.w is w
    fc = layer.add_sublayer("fc", Linear(3, 1))
    assert layer.fc is fc and layer.sublayers() == [fc]
    assert [n for n, _ in layer.named_parameters()] == ["w", "fc.weight", "fc.bias"]
    with pytest.raises(TypeError, match=r"add_parameter\('v'\).*Parameter"):
        layer.add_parameter("v", t([1.0]))
    with pytest.raises(TypeError, match=r"add_sublayer\('s'\).*Layer"):
        layer.add_sublayer("s", w)


@pytest.mark.parametrize("make,words", [
    (lambda: Linear("a", 3), ["Linear", "'input_dim'", "int", "'a'"]),
    (lambda: Linear(3, 0), ["Linear", "'output_dim'", ">= 1", "0"]),
    (lambda: Linear(2.5, 3), ["Linear", "'input_dim'", "2.5"]),
    (lambda: Conv2D(3, 4, 0), ["Conv2D", "'filter_size'", ">= 1"]),
    (lambda: Conv2D(3, 4, 3, stride=0), ["Conv2D", "'stride'", ">= 1"]),
    (lambda: Conv2D(3, 4, 3, padding=-1), ["Conv2D", "'padding'", ">= 0"]),
    (lambda: Conv2D(3, 4, 3, dilation=[1, 0]), ["Conv2D", "'dilation'", ">= 1"]),
    (lambda: Conv2D(3, 4, (3, 3, 3)), ["Conv2D", "'filter_size'", "pair of ints"]),
    (lambda: Conv2D("x", 4, 3), ["Conv2D", "'num_channels'", "'x'"]),
    (lambda: Conv2D(3, 4, 3, groups=2), ["Conv2D", "'groups'=2", "num_channels=3"]),
    (lambda: Pool2D(0), ["Pool2D", "'pool_size'", ">= 1"]),
    (lambda: Pool2D(2, pool_stride=0), ["Pool2D", "'pool_stride'", ">= 1"]),
    (lambda: Pool2D(2, pool_type="mean"), ["Pool2D", "'pool_type'", "'mean'"]),
    (lambda: BatchNorm("a"), ["BatchNorm", "'num_channels'", "'a'"]),
    (lambda: BatchNorm(0), ["BatchNorm", "'num_channels'", ">= 1"]),
    (lambda: Dropout("a"), ["Dropout", "'p'", "'a'"]),
    (lambda: Dropout(1.5), ["Dropout", "'p'", "[0, 1]"]),
    (lambda: Embedding(10), ["Embedding", "'size'", "[vocab_size, embedding_dim]"]),
    (lambda: Embedding(["a", 2]), ["Embedding", "'size'", "'a'"]),
    (lambda: Embedding([10, 4], padding_idx=10), ["Embedding", "'padding_idx'", "10"]),
    (lambda: LayerNorm("a"), ["LayerNorm", "'normalized_shape'", "'a'"]),
])
def test_layer_constructor_errors_name_the_argument(make, words):
    with pytest.raises((TypeError, ValueError)) as e:
        make()
    for w in words:
        assert w in str(e.value), f"{w!r} missing from: {e.value}"


@pytest.mark.parametrize("make,shape", [
    (lambda: Linear(3, 4), (2, 3)),
    (lambda: Conv2D(3, 4, 3), (1, 3, 5, 5)),
    (lambda: BatchNorm(3), (2, 3, 4, 4)),
    (lambda: LayerNorm(4), (2, 3, 4)),
])
def test_layers_reject_integer_inputs(make, shape):
    layer = make()
    with pytest.raises(TypeError, match=r"floating-point.*int64"):
        layer(core.to_tensor(np.ones(shape, np.int64)))
    assert layer(t(np.ones(shape))).dtype == np.float32


SEED_SIGNATURES = {  # API.md "Built-in layers (seed signatures)": leading parameters, in order
    Linear: "input_dim output_dim param_attr=None bias_attr=None act=None dtype='float32'",
    Conv2D: "num_channels num_filters filter_size stride=1 padding=0 dilation=1 groups=? "
            "param_attr=None bias_attr=None use_cudnn=True act=None dtype='float32'",
    Pool2D: "pool_size=-1 pool_type='max' pool_stride=1 pool_padding=0 global_pooling=False "
            "use_cudnn=True ceil_mode=False exclusive=True",
    BatchNorm: "num_channels act=None is_test=False momentum=0.9 epsilon=1e-05",
    Dropout: "p=0.5",
    Embedding: "size is_sparse=False",
}


@pytest.mark.parametrize("cls", list(SEED_SIGNATURES), ids=lambda c: c.__name__)
def test_layer_constructors_keep_the_seed_signatures(cls):
    import inspect

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    want = SEED_SIGNATURES[cls].split()
    got = []
    for p, w in zip(params, want):
        if p.default is inspect.Parameter.empty:
            got.append(p.name)
        elif w.endswith("=?"):  # any default with the seed's meaning (groups: None means 1)
            got.append(p.name + "=?")
        else:
            got.append(f"{p.name}={p.default!r}")
    assert got == want
    assert "padding_idx" in inspect.signature(Embedding.__init__).parameters


# -- registration and traversal --------------------------------------------------------------
def test_parameters_sublayers_and_state_dict_keys():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["block.scale", "block.fc1.weight", "block.fc1.bias", "block.bn.weight",
                     "block.bn.bias", "block.bn._mean", "block.bn._variance", "head.weight"]
    assert len(net.parameters()) == 8
    assert [n for n, _ in net.named_sublayers()] == ["block", "block.fc1", "block.bn", "head"]
    assert len(net.sublayers(include_sublayers=False)) == 2
    keys = list(net.state_dict())
    assert keys == ["block.scale", "block.fc1.weight", "block.fc1.bias", "block.bn.weight",
                    "block.bn.bias", "block.bn._mean", "block.bn._variance", "head.weight"]
    assert net.state_dict()["head.weight"] is net.head.weight


def test_shared_parameter_listed_once_and_buffers_in_state_dict():
    fc = Linear(2, 2)
    seq = Sequential(fc, fc)
    assert len(seq.parameters()) == 2
    layer = Layer()
    layer.register_buffer("steps", t([0.0]))
    layer.register_buffer("scratch", t([1.0]), persistable=False)
    assert list(layer.state_dict()) == ["steps"]
    assert [n for n, _ in layer.named_buffers()] == ["steps", "scratch"]


def test_setattr_none_and_type_errors():
    fc = Linear(2, 2)
    fc.bias = None
    assert len(fc.parameters()) == 1
    with pytest.raises(TypeError, match=r"weight.*parameter"):
        fc.weight = np.zeros((2, 2))

    class Forgot(Layer):
        def __init__(self):
            self.fc = Linear(2, 2)

    with pytest.raises(RuntimeError, match=r"super\(\)\.__init__"):
        Forgot()
    with pytest.raises(AttributeError, match="nothing"):
        getattr(fc, "nothing")  # noqa: B009 - the attribute access is what is tested


def test_train_eval_propagate_and_clear_gradients():
    net = Net()
    assert net.training and net.block.bn.training
    net.eval()
    assert not net.training and not net.block.bn.training and not net.head.training
    net.train()
    assert net.block.fc1.training
    out = net(t(np.random.default_rng(0).standard_normal((4, 4))))
    (out * out).sum().backward()
    assert np.abs(net.head.weight.gradient()).sum() > 0
    net.clear_gradients()
    assert np.abs(net.head.weight.gradient()).sum() == 0


def test_hooks_and_repr():
    fc = Linear(2, 2)
    seen = []
    h1 = fc.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 0.0,))
    h2 = fc.register_forward_post_hook(lambda layer, inputs, out: seen.append(out.shape))
    out = fc(t(np.ones((1, 2))))
    np.testing.assert_array_equal(out.numpy(), np.zeros((1, 2), np.float32))
    assert seen == [[1, 2]]
    h1.remove()
    h2.remove()
    assert np.abs(fc(t(np.ones((1, 2)))).numpy()).sum() > 0 and len(seen) == 1
    text = repr(Net())
    assert "(block): Block(" in text and "(fc1): Linear(input_dim=4, output_dim=3, act=relu)" \
        in text


# -- set_dict --------------------------------------------------------------------------------
def test_set_dict_round_trip_by_structured_and_parameter_names():
    a, b = Net(), Net()
    state = {k: v.numpy() for k, v in a.state_dict().items()}
    b.set_dict(state)
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_array_equal(va.numpy(), vb.numpy(), err_msg=k)
    # 1.8-style dicts keyed by parameter names: the same model built again (same names)
    with unique_name.guard():
        a = Net()
    by_name = {p.name: p.numpy() * 2 for p in a.parameters()}
    with unique_name.guard():
        c = Net()
    c.set_dict(by_name, use_structured_name=False)
    np.testing.assert_array_equal(c.head.weight.numpy(), a.head.weight.numpy() * 2)
    with unique_name.guard():
        d = Net()
    d.load_dict(by_name)  # the structured lookup falls back to the parameter name
    np.testing.assert_array_equal(d.block.scale.numpy(), a.block.scale.numpy() * 2)
    with pytest.raises(KeyError, match=r"block\.scale"):
        Net().set_dict(by_name)  # other names: nothing matches


def test_set_dict_errors_name_the_parameter_and_change_nothing():
    net = Net()
    before = net.head.weight.numpy().copy()
    state = {k: v.numpy() + 1 for k, v in net.state_dict().items()}
    missing = dict(state)
    del missing["block.fc1.bias"]
    with pytest.raises(KeyError, match=r"block\.fc1\.bias"):
        net.set_dict(missing)
    wrong = dict(state)
    wrong["block.fc1.weight"] = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match=r"block.fc1.weight.*\[4, 3\].*\[3, 4\]"):
        net.set_dict(wrong)
    wrong["block.fc1.weight"] = np.zeros((4, 3), np.float64)
    with pytest.raises(TypeError, match=r"block\.fc1\.weight.*float32.*float64"):
        net.set_state_dict(wrong)
    np.testing.assert_array_equal(net.head.weight.numpy(), before)


# -- built-in layers -------------------------------------------------------------------------
def bn_ref(x, w, b, mean, var, eps):
    shape = [1, -1] + [1] * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + \
        b.reshape(shape)


def test_batch_norm_train_updates_running_stats_and_eval_uses_them():
    bn = BatchNorm(3, momentum=0.8)
    x = np.random.default_rng(1).standard_normal((4, 3, 2, 2)).astype(np.float32) * 2 + 1
    y = bn(t(x)).numpy()
    mu, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, bn_ref(x, np.ones(3), np.zeros(3), mu, var, 1e-5), atol=1e-4)
    np.testing.assert_allclose(bn._mean.numpy(), 0.2 * mu, rtol=1e-5)
    assert not np.allclose(bn._variance.numpy(), 1.0)
    bn.eval()
    mean, variance = bn._mean.numpy().copy(), bn._variance.numpy().copy()
    y_eval = bn(t(x)).numpy()
    np.testing.assert_allclose(y_eval, bn_ref(x, np.ones(3), np.zeros(3), mean, variance, 1e-5),
                               atol=1e-4)
    np.testing.assert_array_equal(bn._mean.numpy(), mean)


def test_dropout_train_and_eval_modes():
    x = np.ones((200, 50), np.float32)
    d = Dropout(p=0.3)
    y = d(t(x)).numpy()
    kept = (y != 0).mean()
    assert 0.6 < kept < 0.8 and set(np.unique(y)) <= {0.0, 1.0}
    d.eval()
    np.testing.assert_allclose(d(t(x)).numpy(), x * 0.7, rtol=1e-6)
    up = Dropout(p=0.3, dropout_implementation="upscale_in_train")
    values = np.unique(up(t(x)).numpy())
    assert len(values) == 2 and values[0] == 0 and values[1] == pytest.approx(1 / 0.7)
    up.eval()
    np.testing.assert_array_equal(up(t(x)).numpy(), x)
    np.testing.assert_array_equal(F.dropout(t(x), 0.3, training=False).numpy(), x)
    with pytest.raises(ValueError, match="dropout_implementation"):
        Dropout(0.5, dropout_implementation="scale")


def conv_ref(x, w, stride, pad):
    n, _, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, m, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,mchw->nm", patch, w)
    return out


def test_conv2d_and_pool2d_forward():
    conv = Conv2D(2, 3, 3, stride=2, padding=1,
                  bias_attr=ParamAttr(initializer=initializer.Constant(0.5)), act="relu")
    x = np.random.default_rng(2).standard_normal((2, 2, 7, 7)).astype(np.float32)
    y = conv(t(x))
    want = np.maximum(conv_ref(x, conv.weight.numpy(), 2, 1) + 0.5, 0)
    np.testing.assert_allclose(y.numpy(), want, atol=1e-5)
    np.testing.assert_allclose(F.conv2d(t(x), conv.weight, conv.bias, stride=2, padding=1)
                               .numpy(), conv_ref(x, conv.weight.numpy(), 2, 1) + 0.5, atol=1e-5)
    pool = Pool2D(pool_size=2, pool_type="max", pool_stride=2)
    p = pool(t(x[:, :, :6, :6])).numpy()
    np.testing.assert_array_equal(p, x[:, :, :6, :6].reshape(2, 2, 3, 2, 3, 2).max(axis=(3, 5)))
    g = Pool2D(pool_type="avg", global_pooling=True)(t(x)).numpy()
    np.testing.assert_allclose(g[:, :, 0, 0], x.mean(axis=(2, 3)), rtol=1e-5)
    with pytest.raises(ValueError, match="2 channels"):
        conv(t(np.zeros((1, 3, 7, 7))))
    with pytest.raises(ValueError, match="groups"):
        Conv2D(3, 4, 3, groups=2)


def test_embedding_and_padding_idx():
    emb = Embedding([5, 3], padding_idx=-1)
    ids = core.to_tensor(np.array([[0, 4], [2, 2]], np.int64))
    out = emb(ids).numpy()
    w = emb.weight.numpy()
    np.testing.assert_array_equal(out[0, 0], w[0])
    np.testing.assert_array_equal(out[0, 1], np.zeros(3, np.float32))
    np.testing.assert_array_equal(out[1, 1], w[2])
    np.testing.assert_array_equal(F.embedding(ids, emb.weight).numpy()[0, 1], w[4])


def test_layer_norm_forward():
    ln = LayerNorm([2, 3], bias_attr=ParamAttr(initializer=initializer.Constant(0.1)))
    x = np.random.default_rng(3).standard_normal((4, 2, 3)).astype(np.float32)
    flat = x.reshape(4, 6)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(t(x)).numpy(), want.reshape(4, 2, 3) + 0.1, atol=1e-5)
    with pytest.raises(ValueError, match=r"\[2, 3\]"):
        ln(t(np.zeros((4, 3, 2))))


def test_containers():
    seq = Sequential(Linear(3, 4), ("act", core.nn.ReLU()), Linear(4, 2))
    assert len(seq) == 3 and isinstance(seq["act"], core.nn.ReLU) and seq[-1] is seq[2]
    assert seq(t(np.ones((5, 3)))).shape == [5, 2]
    assert [n for n, _ in seq.named_parameters()][:2] == ["0.weight", "0.bias"]
    layers = LayerList([Linear(2, 2) for _ in range(3)])
    layers.append(Linear(2, 1))
    assert len(layers) == 4 and len(layers.parameters()) == 8
    layers.insert(0, Linear(2, 2))
    assert [n for n, _ in layers.named_sublayers()] == ["0", "1", "2", "3", "4"]
    plist = ParameterList([core.nn.param.create_parameter([2], "float32") for _ in range(2)])
    assert len(plist) == 2 and list(plist.state_dict()) == ["0", "1"]
    with pytest.raises(TypeError, match="Parameter"):
        plist.append(t([1.0]))


def test_functional_against_numpy():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    label = np.array([0, 3, 1, 4], np.int64)
    e = np.exp(x - x.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(F.softmax(t(x)).numpy(), sm, rtol=1e-5)
    np.testing.assert_allclose(F.log_softmax(t(x)).numpy(), np.log(sm), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(F.relu(t(x)).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(F.leaky_relu(t(x), 0.2).numpy(), np.where(x > 0, x, 0.2 * x),
                               rtol=1e-6)
    np.testing.assert_allclose(F.softplus(t(x), beta=2).numpy(),
                               np.log1p(np.exp(2 * x)) / 2, rtol=1e-5)
    ce = -np.log(sm[np.arange(4), label])
    lab = core.to_tensor(label)
    assert float(F.cross_entropy(t(x), lab)) == pytest.approx(ce.mean(), rel=1e-5)
    assert float(F.cross_entropy(t(x), lab, reduction="sum")) == pytest.approx(ce.sum(), rel=1e-5)
    ignored = core.to_tensor(np.array([0, 3, -100, 4], np.int64))
    # NOTE: the default ignore_index -100 takes the plain mean, as PaddlePaddle (the ignored
    # label adds 0 to the sum and 1 to the count; tests/core/nn/test_cross_entropy_mean.py)
    assert float(F.cross_entropy(t(x), ignored)) == pytest.approx(ce[[0, 1, 3]].sum() / 4,
                                                                  rel=1e-5)
    y = rng.standard_normal((4, 5)).astype(np.float32)
    assert float(F.mse_loss(t(x), t(y))) == pytest.approx(((x - y) ** 2).mean(), rel=1e-5)
    np.testing.assert_array_equal(F.one_hot(lab, 5).numpy(), np.eye(5, dtype=np.float32)[label])
    with pytest.raises(ValueError, match="reduction"):
        F.cross_entropy(t(x), lab, reduction="avg")


def test_cross_entropy_gradient_flows_to_linear():
    fc = Linear(5, 3)
    x = t(np.random.default_rng(5).standard_normal((6, 5)))
    loss = F.cross_entropy(fc(x), core.to_tensor(np.array([0, 1, 2, 0, 1, 2], np.int64)))
    loss.backward()
    assert fc.weight.gradient().shape == (5, 3) and np.abs(fc.weight.gradient()).sum() > 0


# -- static mode -----------------------------------------------------------------------------
def test_layers_build_static_programs(static_mode):
    from core import static

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        fc = Linear(4, 3, act="relu")
        bn = BatchNorm(3, momentum=0.5)
        y = bn(fc(x))
    assert [p.name for p in fc.parameters()] == ["linear_0.w_0", "linear_0.b_0"]
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert {op.type for op in main.global_block().ops} >= {"matmul", "elementwise_add", "relu",
                                                           "batch_norm"}
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = static.Executor(core.CPUPlace())
        exe.run(startup)
        w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
        fc.set_dict({"weight": w, "bias": np.full(3, 0.5, np.float32)})
        xv = np.random.default_rng(6).standard_normal((5, 4)).astype(np.float32)
        out, = exe.run(main, feed={"x": xv}, fetch_list=[y])
        h = np.maximum(xv @ w + 0.5, 0)
        want = (h - h.mean(0)) / np.sqrt(h.var(0) + 1e-5)
        np.testing.assert_allclose(out, want, atol=1e-4)
        mean = np.asarray(scope.find_var(bn._mean.name).get_tensor())
        np.testing.assert_allclose(mean, 0.5 * h.mean(0), rtol=1e-5)
        with pytest.raises(ValueError, match=r"weight.*\[4, 3\].*\[3, 4\]"):
            fc.set_dict({"weight": w.T, "bias": np.zeros(3, np.float32)})


# -- namespaces ------------------------------------------------------------------------------
def test_dygraph_and_imperative_namespaces_save_and_load(tmp_path):
    assert core.dygraph.Linear is Linear and core.dygraph.Layer is Layer
    core.enable_static()
    try:
        assert not core.dygraph.enabled()
        with core.dygraph.guard():
            assert core.dygraph.enabled() and core.imperative.enabled()
            fc = core.dygraph.Linear(3, 2)
            x = core.dygraph.to_variable(np.ones((1, 3), np.float32))
            out = fc(x).numpy()
        assert not core.in_dynamic_mode()
    finally:
        core.disable_static()
    path = str(tmp_path / "fc")
    core.dygraph.save_dygraph(fc.state_dict(), path)
    params, opt_state = core.dygraph.load_dygraph(path)
    assert opt_state is None and sorted(params) == ["bias", "weight"]
    other = Linear(3, 2)
    other.set_dict(params)
    np.testing.assert_array_equal(other(t(np.ones((1, 3)))).numpy(), out)
    opt = core.optimizer.Adam(0.1, parameter_list=fc.parameters())
    fc(t(np.ones((1, 3)))).sum().backward()
    opt.minimize(None)  # eager: the gradients are already there
    core.imperative.save(opt.state_dict(), path)
    _, loaded = core.imperative.load(path)
    assert sorted(loaded) == sorted(opt.state_dict())
    fresh = core.optimizer.Adam(0.1, parameter_list=fc.parameters())
    fresh.set_dict(loaded)
    start = [p.numpy().copy() for p in fc.parameters()]
    results = []
    for o in (opt, fresh):  # the same second step from the same state
        for p, v in zip(fc.parameters(), start):
            p.set_value(v)
        o.minimize(None)
        results.append([p.numpy().copy() for p in fc.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_create_variable_in_both_modes():
    layer = core.nn.Linear(2, 2)
    v = layer.create_variable(persistable=True, dtype="float32", shape=[3])
    assert isinstance(v, core.Tensor) and v.shape == [3] and v.persistable
    assert v.name.startswith(layer.full_name() + ".var_") and v.stop_gradient
    np.testing.assert_array_equal(v.numpy(), np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="known shape"):
        layer.create_variable(shape=[-1, 2])
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        core.enable_static()
        try:
            sv = layer.create_variable(name="cv_static", dtype="int64")
        finally:
            core.disable_static()
    assert main.global_block().var("cv_static") is sv and sv.dtype == np.int64
    assert sv.shape == [-1]

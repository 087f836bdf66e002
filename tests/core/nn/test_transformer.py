"""MultiHeadAttention and the Transformer layers: a numpy reference of attention, masks,
incremental decoding with caches, static programs, gradients and bad input."""
import numpy as np
import pytest

import core
from core.nn import (MultiHeadAttention, Transformer, TransformerDecoder,
                     TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)


def _t(a):
    return core.to_tensor(a)


def _np_linear(x, layer):
    return x @ layer.weight.numpy() + layer.bias.numpy()


def _np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _np_mha(mha, q, k, v, mask=None):
    """Multi-head attention written out in numpy from the layer's parameters."""
    h, d = mha.num_heads, mha.head_dim

    def split(x):
        b, n, _ = x.shape
        return x.reshape(b, n, h, d).transpose(0, 2, 1, 3)

    qh, kh, vh = split(_np_linear(q, mha.q_proj)), split(_np_linear(k, mha.k_proj)), \
        split(_np_linear(v, mha.v_proj))
    scores = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(d)
    if mask is not None:
        scores = scores + (np.where(mask, 0.0, -1e9) if mask.dtype == np.bool_ else mask)
    w = _np_softmax(scores)
    out = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], -1)
    return _np_linear(out, mha.out_proj), w


def _np_layer_norm(x, ln):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * ln.weight.numpy() + ln.bias.numpy()


@pytest.fixture
def rng():
    core.seed(3)
    return np.random.default_rng(0)


def test_mha_matches_numpy_with_masks_and_weights(rng):
    mha = MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    q = rng.standard_normal((3, 4, 8)).astype("float32")
    k = rng.standard_normal((3, 7, 6)).astype("float32")
    v = rng.standard_normal((3, 7, 5)).astype("float32")
    bool_mask = rng.random((3, 1, 1, 7)) > 0.3
    bool_mask[..., 0] = True
    float_mask = np.where(rng.random((4, 7)) > 0.5, 0.0, -1e4).astype("float32")
    for mask in (None, bool_mask, float_mask):
        out, w = mha(_t(q), _t(k), _t(v), None if mask is None else _t(mask))
        want, want_w = _np_mha(mha, q, k, v, mask)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-4, atol=1e-6)
    # an int mask means the same as a bool one
    out_int, _ = mha(_t(q), _t(k), _t(v), _t(bool_mask.astype("int64")))
    np.testing.assert_allclose(out_int.numpy(), _np_mha(mha, q, k, v, bool_mask)[0],
                               rtol=1e-4, atol=1e-5)


def test_mha_self_attention_defaults_and_gradients(rng):
    mha = MultiHeadAttention(6, 3)
    x = _t(rng.standard_normal((2, 5, 6)).astype("float32"))
    x.stop_gradient = False
    out = mha(x)
    assert out.shape == [2, 5, 6]
    np.testing.assert_allclose(out.numpy(), _np_mha(mha, x.numpy(), x.numpy(), x.numpy())[0],
                               rtol=1e-4, atol=1e-5)
    (out * out).sum().backward()
    for p in [x, mha.q_proj.weight, mha.k_proj.weight, mha.v_proj.weight, mha.out_proj.bias]:
        g = p.gradient()
        assert g is not None and np.isfinite(g).all() and np.abs(g).sum() > 0
    # numeric check of one input gradient entry
    eps, idx = 1e-2, (1, 2, 3)
    xp, xm = x.numpy().astype("float64"), x.numpy().astype("float64")
    xp[idx] += eps
    xm[idx] -= eps

    def loss(a):
        o = _np_mha(mha, a, a, a)[0]
        return (o * o).sum()
    num = (loss(xp) - loss(xm)) / (2 * eps)
    np.testing.assert_allclose(x.gradient()[idx], num, rtol=2e-2, atol=1e-3)


def test_state_dict_names_follow_paddle():
    mha = MultiHeadAttention(4, 2)
    names = sorted(mha.state_dict())
    assert names == sorted(f"{p}.{w}" for p in ("q_proj", "k_proj", "v_proj", "out_proj")
                           for w in ("weight", "bias"))
    enc = TransformerEncoderLayer(4, 2, 8)
    assert {"self_attn.q_proj.weight", "linear1.weight", "linear2.bias", "norm1.weight",
            "norm2.bias"} <= set(enc.state_dict())
    dec = TransformerDecoderLayer(4, 2, 8)
    assert {"cross_attn.out_proj.weight", "norm3.weight"} <= set(dec.state_dict())


def test_encoder_layer_matches_numpy_post_and_pre_norm(rng):
    x = rng.standard_normal((2, 3, 8)).astype("float32")
    for pre in (False, True):
        layer = TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=pre)
        got = layer(_t(x)).numpy()

        def attn(a, layer=layer):
            return _np_mha(layer.self_attn, a, a, a)[0]

        def ffn(a, layer=layer):
            return _np_linear(np.maximum(_np_linear(a, layer.linear1), 0), layer.linear2)
        if pre:
            h = x + attn(_np_layer_norm(x, layer.norm1))
            want = h + ffn(_np_layer_norm(h, layer.norm2))
        else:
            h = _np_layer_norm(x + attn(x), layer.norm1)
            want = _np_layer_norm(h + ffn(h), layer.norm2)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_incremental_decoding_with_caches_equals_full_decoding(rng):
    layer = TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    decoder = TransformerDecoder(layer, 2, norm=core.nn.LayerNorm(8))
    decoder.eval()
    memory = _t(rng.standard_normal((2, 5, 8)).astype("float32"))
    tgt = rng.standard_normal((2, 4, 8)).astype("float32")
    causal = Transformer.generate_square_subsequent_mask(4)
    full = decoder(_t(tgt), memory, tgt_mask=causal).numpy()
    cache = decoder.gen_cache(memory)
    assert cache[0][0].k.shape == [2, 2, 0, 4]
    steps = []
    for i in range(4):
        out, cache = decoder(_t(tgt[:, i:i + 1]), memory, cache=cache)
        steps.append(out.numpy())
    assert cache[0][0].k.shape == [2, 2, 4, 4]
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-4, atol=1e-5)
    zipped = decoder.gen_cache(memory, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2


def test_encoder_cache_and_static_cache(rng):
    enc = TransformerEncoder(TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    enc.eval()
    x = rng.standard_normal((1, 3, 8)).astype("float32")
    cache = enc.gen_cache(_t(x))
    out, cache = enc(_t(x), cache=cache)
    assert out.shape == [1, 3, 8] and cache[0].k.shape == [1, 2, 3, 4]
    mha = MultiHeadAttention(8, 2)
    mem = _t(rng.standard_normal((1, 6, 8)).astype("float32"))
    static = mha.gen_cache(mem, type=MultiHeadAttention.StaticCache)
    q = _t(x)
    with_cache, same = mha(q, mem, mem, None, static)
    assert same is static
    np.testing.assert_allclose(with_cache.numpy(), mha(q, mem, mem).numpy(), rtol=1e-5)


def test_clones_are_independent_layers():
    enc = TransformerEncoder(TransformerEncoderLayer(4, 2, 8), 3)
    ws = [layer.linear1.weight for layer in enc.layers]
    assert len({id(w) for w in ws}) == 3
    assert len(enc.parameters()) == 3 * len(enc.layers[0].parameters())


def test_transformer_in_a_static_program_equals_eager(rng):
    core.seed(11)
    model = Transformer(8, 2, 1, 1, 16, dropout=0.0)
    model.eval()
    src = rng.standard_normal((2, 5, 8)).astype("float32")
    tgt = rng.standard_normal((2, 3, 8)).astype("float32")
    causal = np.triu(np.full((3, 3), -1e9, "float32"), 1)
    want = model(_t(src), _t(tgt), tgt_mask=_t(causal)).numpy()
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    main, startup = core.static.Program(), core.static.Program()
    core.enable_static()
    try:
        with core.static.program_guard(main, startup):
            s = core.static.data("src", [None, None, 8], "float32")
            t = core.static.data("tgt", [None, None, 8], "float32")
            m = core.static.data("mask", [None, None], "float32")
            core.seed(11)
            smodel = Transformer(8, 2, 1, 1, 16, dropout=0.0)
            smodel.eval()
            out = smodel(s, t, tgt_mask=m)
        exe = core.static.Executor(core.CPUPlace())
        exe.run(startup)
        scope = core.static.global_scope()
        for (name, value), param in zip(sorted(state.items()), sorted(
                smodel.state_dict().items())):
            assert name == param[0]
            scope.var(param[1].name).set_value(value)
        (got,) = exe.run(main, feed={"src": src, "tgt": tgt, "mask": causal},
                         fetch_list=[out])
    finally:
        core.disable_static()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="divisible by 'num_heads'"):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="'dropout' must be"):
        MultiHeadAttention(4, 2, dropout=1.5)
    mha = MultiHeadAttention(4, 2, kdim=3)
    x = _t(np.zeros((1, 2, 4), "float32"))
    with pytest.raises(ValueError, match=r"'key' must have shape \[batch, length, 3\]"):
        mha(x, x, x)
    mha = MultiHeadAttention(4, 2)
    with pytest.raises(ValueError, match="does not broadcast"):
        mha(x, attn_mask=_t(np.ones((3, 5), "float32")))
    with pytest.raises(ValueError, match="'activation' must be one of"):
        TransformerEncoderLayer(4, 2, 8, activation="swishy")
    with pytest.raises(TypeError, match="'encoder_layer' must be"):
        TransformerEncoder(mha, 2)
    with pytest.raises(ValueError,
                       match=r"TransformerEncoder\(\): argument 'num_layers' must be >= 1, got 0"):
        TransformerEncoder(TransformerEncoderLayer(4, 2, 8), 0)
    with pytest.raises(TypeError, match="'cache' must be"):
        mha(x, cache=(1, 2))

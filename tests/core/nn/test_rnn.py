"""Recurrent layers: cells, RNN / BiRNN, SimpleRNN / LSTM / GRU in eager, static and
declarative code, against a step-by-step numpy reference."""
import numpy as np
import pytest

import core
from core import nn
from core.errors import OpError
from tests.core.ops.op_cases.rnn import rnn_ref
from translator import declarative

rng = np.random.default_rng(21)


def t(a):
    return core.to_tensor(np.asarray(a))


def _ref_layer(cell, x, h0=None, c0=None, lens=None, reverse=False, mode=None):
    p = {k: v.numpy() for k, v in cell.state_dict().items()}
    mode = mode or cell._mode
    return rnn_ref(x, h0, c0, p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"], lens,
                   mode=mode, is_reverse=reverse)


@pytest.mark.parametrize("cls", [nn.SimpleRNNCell, nn.LSTMCell, nn.GRUCell])
def test_cells_follow_paddle_parameter_names_gate_order_and_one_step(cls):
    cell = cls(4, 5)
    g = {"LSTMCell": 4, "GRUCell": 3}.get(cls.__name__, 1)
    assert [(k, list(v.shape)) for k, v in cell.state_dict().items()] == [
        ("weight_ih", [g * 5, 4]), ("weight_hh", [g * 5, 5]), ("bias_ih", [g * 5]),
        ("bias_hh", [g * 5])]
    x = rng.standard_normal((3, 4)).astype(np.float32)
    h0 = rng.standard_normal((3, 5)).astype(np.float32)
    c0 = rng.standard_normal((3, 5)).astype(np.float32)
    states = (t(h0), t(c0)) if cls is nn.LSTMCell else t(h0)
    out, new = cell(t(x), states)
    want_h, _, want_c = _ref_layer(cell, x, h0, c0 if cls is nn.LSTMCell else None)
    np.testing.assert_allclose(out.numpy(), want_h, rtol=1e-5, atol=1e-6)
    if cls is nn.LSTMCell:
        np.testing.assert_allclose(new[1].numpy(), want_c, rtol=1e-5, atol=1e-6)
    # no states: zeros
    out0, _ = cell(t(x))
    want0 = _ref_layer(cell, x)[0]
    np.testing.assert_allclose(out0.numpy(), want0, rtol=1e-5, atol=1e-6)
    zeros = cell.get_initial_states(t(x))
    for z in (zeros if isinstance(zeros, tuple) else (zeros,)):
        assert z.shape == [3, 5] and not z.numpy().any()


class _Wrapped(nn.RNNCellBase):
    """A user-defined cell (runs step by step inside RNN) computing what ``inner`` does."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, inputs, states=None):
        return self.inner(inputs, states)

    @property
    def state_shape(self):
        return self.inner.state_shape


@pytest.mark.parametrize("cls", [nn.SimpleRNNCell, nn.LSTMCell, nn.GRUCell])
def test_rnn_fused_equals_step_by_step_and_reference_with_lengths(cls):
    cell = cls(3, 4)
    x = rng.standard_normal((3, 5, 3)).astype(np.float32)
    lens = np.array([5, 2, 0], np.int64)
    for reverse in (False, True):
        out, final = nn.RNN(cell, is_reverse=reverse)(t(x), sequence_length=t(lens))
        out2, final2 = nn.RNN(_Wrapped(cell), is_reverse=reverse)(t(x), sequence_length=t(lens))
        want_out, want_h, _ = _ref_layer(cell, x, lens=lens, reverse=reverse)
        np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(out2.numpy(), want_out, rtol=1e-5, atol=1e-6)
        h = final[0] if cls is nn.LSTMCell else final
        h2 = final2[0] if cls is nn.LSTMCell else final2
        np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h2.numpy(), want_h, rtol=1e-5, atol=1e-6)
        assert not out.numpy()[1, 2:].any() and not out.numpy()[2].any()


def test_birnn_concatenates_forward_and_backward():
    fw, bw = nn.GRUCell(3, 4), nn.GRUCell(3, 4)
    bi = nn.BiRNN(fw, bw)
    assert list(bi.state_dict())[:2] == ["cell_fw.weight_ih", "cell_fw.weight_hh"]
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    lens = np.array([4, 3], np.int64)
    out, (_, f_bw) = bi(t(x), sequence_length=t(lens))
    np.testing.assert_allclose(out.numpy()[..., :4], _ref_layer(fw, x, lens=lens)[0], atol=1e-6)
    np.testing.assert_allclose(out.numpy()[..., 4:], _ref_layer(bw, x, lens=lens,
                                                                reverse=True)[0], atol=1e-6)
    np.testing.assert_allclose(f_bw.numpy(), _ref_layer(bw, x, lens=lens, reverse=True)[1],
                               atol=1e-6)


def _stacked_ref(net, x, lens):
    """Layer by layer with the reference, for a bidirectional 2-layer net."""
    finals, inp = [], x
    for layer in net:
        o_fw, h_fw, c_fw = _ref_layer(layer.cell_fw, inp, lens=lens)
        o_bw, h_bw, c_bw = _ref_layer(layer.cell_bw, inp, lens=lens, reverse=True)
        inp = np.concatenate([o_fw, o_bw], -1)
        finals += [(h_fw, c_fw), (h_bw, c_bw)]
    return inp, finals


@pytest.mark.parametrize("cls", [nn.SimpleRNN, nn.LSTM, nn.GRU])
def test_stacked_bidirectional_layers_match_reference_and_have_gradients(cls):
    net = cls(3, 4, num_layers=2, direction="bidirectional")
    assert "1.cell_bw.bias_hh" in net.state_dict()
    x = rng.standard_normal((3, 5, 3)).astype(np.float32)
    lens = np.array([5, 1, 3], np.int64)
    xt = t(x)
    xt.stop_gradient = False
    out, final = net(xt, sequence_length=t(lens))
    want, finals = _stacked_ref(net, x, lens)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
    h = final[0] if cls is nn.LSTM else final
    assert h.shape == [4, 3, 4]
    np.testing.assert_allclose(h.numpy(), np.stack([f[0] for f in finals]), atol=1e-5)
    if cls is nn.LSTM:
        np.testing.assert_allclose(final[1].numpy(), np.stack([f[1] for f in finals]),
                                   atol=1e-5)
    core.layers.reduce_sum(out).backward()
    assert xt.gradient().shape == x.shape and not xt.gradient()[1, 1:].any()
    assert all(p.gradient() is not None and np.abs(p.gradient()).sum() > 0
               for p in net.parameters())


def test_lstm_initial_states_and_time_major():
    net = nn.LSTM(3, 4, num_layers=1, time_major=True)
    x = rng.standard_normal((5, 2, 3)).astype(np.float32)
    h0 = rng.standard_normal((1, 2, 4)).astype(np.float32)
    c0 = rng.standard_normal((1, 2, 4)).astype(np.float32)
    out, (_, c) = net(t(x), (t(h0), t(c0)))
    want, _, wc = _ref_layer(net[0].cell, x.transpose(1, 0, 2), h0[0], c0[0])
    np.testing.assert_allclose(out.numpy(), want.transpose(1, 0, 2), atol=1e-5)
    np.testing.assert_allclose(c.numpy()[0], wc, atol=1e-5)


def test_bad_lengths_and_state_shapes_are_clear_errors():
    net = nn.GRU(3, 4)
    x = t(rng.standard_normal((2, 5, 3)).astype(np.float32))
    with pytest.raises(OpError, match=r"sequence_length values must lie in \[0, 5\].*\[2, 6\]"):
        net(x, sequence_length=t(np.array([6, 2], np.int64)))
    with pytest.raises(OpError, match=r"sequence_length values must lie in \[0, 5\].*\[-1, 2\]"):
        net(x, sequence_length=t(np.array([-1, 2], np.int64)))
    with pytest.raises(ValueError, match=r"sequence_length must be \[batch_size\] = \[2\].*\[3\]"):
        net(x, sequence_length=t(np.array([1, 2, 3], np.int64)))
    with pytest.raises(ValueError, match=r"initial_states must be .*\[1, 2, 4\].*\[1, 3, 4\]"):
        net(x, t(np.zeros((1, 3, 4), np.float32)))
    with pytest.raises(ValueError, match=r"initial hidden state.*\[batch_size, hidden_size=4\]"
                                         r".*\[2, 5\]"):
        nn.GRUCell(3, 4)(x[:, 0], t(np.zeros((2, 5), np.float32)))
    with pytest.raises(OpError, match=r"initial hidden state must be \[batch_size, hidden_size\]"
                                      r" = \[2, 4\].*\[3, 4\]"):
        nn.GRUCell(3, 4)(x[:, 0], t(np.zeros((3, 4), np.float32)))
    with pytest.raises(ValueError, match="direction"):
        nn.LSTM(3, 4, direction="sideways")


def test_lstm_static_program_equals_eager(static_mode):
    from core import static

    core.disable_static()
    x = rng.standard_normal((3, 6, 3)).astype(np.float32)
    lens = np.array([6, 4, 1], np.int64)
    net = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    xe = t(x)
    xe.stop_gradient = False
    eager_out, (eager_h, _) = net(xe, sequence_length=t(lens))
    core.layers.reduce_mean(eager_out).backward()
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    core.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data("x", [None, 6, 3], "float32")
        xv.stop_gradient = False
        lv = static.data("lens", [None], "int64")
        snet = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
        out, (h, _) = snet(xv, sequence_length=lv)
        loss = core.layers.reduce_mean(out)
        grads = static.gradients(loss, [xv])
    assert [op.type for op in main.global_block().ops].count("rnn") == 4
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = static.Executor(core.CPUPlace())
        exe.run(startup)
        snet.set_dict(state)
        res = exe.run(main, feed={"x": x, "lens": lens}, fetch_list=[out, h, grads[0]])
    np.testing.assert_allclose(res[0], eager_out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[1], eager_h.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[2], xe.gradient(), rtol=1e-5, atol=1e-7)


class _Tagger(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 4, direction="bidirect")
        self.cell = nn.LSTMCell(8, 4)

    def forward(self, x, lens):
        out, _ = self.rnn(x, sequence_length=lens)
        h = None
        states = None
        for k in range(2):  # a Python loop over steps of a built-in cell
            h, states = self.cell(out[:, k], states)
        return core.layers.reduce_mean(out) + core.layers.reduce_mean(h)


def _declarative_equals_eager_with_gradients(model, *args):
    """``model(*args)``'s value and parameter gradients, eagerly and with a declarative
    ``forward``, agree; returns the eager gradients."""
    want = model(*args)
    want.backward()
    grads = [np.array(p.gradient()) for p in model.parameters()]
    model.clear_gradients()
    got = declarative(model.forward)(*args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    got.backward()
    for p, g in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.gradient(), g, rtol=1e-4, atol=1e-7)
    return grads


def test_rnn_layers_and_cells_inside_declarative_equal_eager():
    model = _Tagger()
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)
    lens = np.array([4, 2], np.int64)
    want = model(t(x), t(lens)).numpy()
    fn = declarative(model.forward)
    got = fn(t(x), t(lens)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    x2 = rng.standard_normal((3, 5, 3)).astype(np.float32)
    lens2 = np.array([5, 1, 3], np.int64)
    np.testing.assert_allclose(fn(t(x2), t(lens2)).numpy(), model(t(x2), t(lens2)).numpy(),
                               rtol=1e-5, atol=1e-6)


# -- fluid units ---------------------------------------------------------------------------------
def _sig(a):
    return 1 / (1 + np.exp(-a))


@pytest.mark.parametrize("origin", [False, True])
def test_gru_unit_uses_paddles_weight_buffer_layout(origin):
    unit = core.dygraph.GRUUnit(12, origin_mode=origin)
    h = 4
    w = rng.standard_normal((h, 3 * h)).astype(np.float32) * 0.5
    b = rng.standard_normal((1, 3 * h)).astype(np.float32) * 0.1
    unit.set_dict({"weight": w, "bias": b})
    x = rng.standard_normal((3, 3 * h)).astype(np.float32)
    h0 = rng.standard_normal((3, h)).astype(np.float32)
    new_h, r_h, gate = unit(t(x), t(h0))
    w_ur, w_c = w.reshape(-1)[:2 * h * h].reshape(h, 2 * h), w.reshape(-1)[2 * h * h:].reshape(h, h)
    g = x + b
    ur = _sig(g[:, :2 * h] + h0 @ w_ur)
    u, r = ur[:, :h], ur[:, h:]
    c = np.tanh(g[:, 2 * h:] + (r * h0) @ w_c)
    want = u * h0 + (1 - u) * c if origin else h0 + u * (c - h0)
    np.testing.assert_allclose(new_h.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r_h.numpy(), r * h0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gate.numpy(), np.concatenate([u, r, c], 1), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"'hidden' must be \[batch_size, 4\].*\[3, 5\]"):
        unit(t(x), t(np.zeros((3, 5), np.float32)))
    with pytest.raises(ValueError, match="3 \\* hidden_size"):
        core.dygraph.GRUUnit(10)


def test_basic_lstm_and_gru_units_match_numpy_and_build_lazily():
    x = rng.standard_normal((2, 3)).astype(np.float32)
    h0 = rng.standard_normal((2, 4)).astype(np.float32)
    c0 = rng.standard_normal((2, 4)).astype(np.float32)
    lstm = nn.BasicLSTMUnit("lstm", 4, forget_bias=0.5)
    assert lstm.parameters() == []
    new_h, new_c = lstm(t(x), t(h0), t(c0))
    w, b = lstm._weight.numpy(), lstm._bias.numpy()
    assert w.shape == (7, 16)
    g = np.concatenate([x, h0], 1) @ w + b
    i, j, f, o = np.split(g, 4, 1)
    want_c = c0 * _sig(f + 0.5) + _sig(i) * np.tanh(j)
    np.testing.assert_allclose(new_c.numpy(), want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_h.numpy(), np.tanh(want_c) * _sig(o), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"'input' must be \[batch_size, 3\].*\[2, 5\]"):
        lstm(t(np.zeros((2, 5), np.float32)), t(h0), t(c0))

    gru = nn.BasicGRUUnit("gru", 4, input_size=3)
    new_h = gru(t(x), t(h0))
    gw, cw = gru._gate_weight.numpy(), gru._candidate_weight.numpy()
    gb, cb = gru._gate_bias.numpy(), gru._candidate_bias.numpy()
    gg = _sig(np.concatenate([x, h0], 1) @ gw + gb)
    r, u = gg[:, :4], gg[:, 4:]
    c = np.tanh(np.concatenate([x, r * h0], 1) @ cw + cb)
    np.testing.assert_allclose(new_h.numpy(), u * h0 + (1 - u) * c, rtol=1e-5, atol=1e-6)


class _UnitsModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.gru = core.dygraph.GRUUnit(12)
        self.lstm = nn.BasicLSTMUnit("l", 4, input_size=4)
        self.bgru = nn.BasicGRUUnit("g", 4, input_size=4)

    def forward(self, x, h):
        h1, _, _ = self.gru(x, h)
        h2, c2 = self.lstm(h1, h, h)
        return core.layers.reduce_mean(self.bgru(h2, c2))


def test_units_inside_declarative_equal_eager_with_gradients():
    model = _UnitsModel()
    x = t(rng.standard_normal((3, 12)).astype(np.float32))
    h = t(rng.standard_normal((3, 4)).astype(np.float32))
    grads = _declarative_equals_eager_with_gradients(model, x, h)
    assert all(np.abs(g).sum() > 0 for g in grads)


# -- dynamic_lstm / dynamic_gru ------------------------------------------------------------------
def _fluid_lstm_ref(x, lens, w, b, reverse=False):
    """fluid's LSTM, written from its formulas: gates ``[c, i, f, o]``; a ``[1, 7 * hidden]``
    bias ends with the peepholes ``w_ic, w_fc, w_oc`` (i and f see c_{t-1}, o sees c_t)."""
    hid = w.shape[0]
    out = np.zeros(x.shape[:2] + (hid,))
    cells = np.zeros_like(out)
    w_ic, w_fc, w_oc = np.split(b[0, 4 * hid:], 3) if b.shape[1] == 7 * hid else (0, 0, 0)
    for n in range(len(x)):
        h, c = np.zeros(hid), np.zeros(hid)
        for s in (range(lens[n] - 1, -1, -1) if reverse else range(lens[n])):
            g = x[n, s] + h @ w + b[0, :4 * hid]
            cand, i, f, o = (g[k * hid:(k + 1) * hid] for k in range(4))
            c = _sig(f + w_fc * c) * c + _sig(i + w_ic * c) * np.tanh(cand)
            h = _sig(o + w_oc * c) * np.tanh(c)
            out[n, s], cells[n, s] = h, c
    return out, cells


def _attr(value):
    """A ParamAttr initialising the parameter to ``value``."""
    return core.ParamAttr(initializer=core.initializer.NumpyArrayInitializer(value))


def _fluid_gru_ref(x, lens, w, b):
    hid = w.shape[0]
    w_ur, w_c = w.reshape(-1)[:2 * hid * hid].reshape(hid, -1), w.reshape(-1)[2 * hid * hid:]
    w_c = w_c.reshape(hid, hid)
    out = np.zeros(x.shape[:2] + (hid,))
    for n in range(len(x)):
        h = np.zeros(hid)
        for s in range(lens[n]):
            g = x[n, s] + b[0]
            ur = _sig(g[:2 * hid] + h @ w_ur)
            u, r = ur[:hid], ur[hid:]
            c = np.tanh(g[2 * hid:] + (r * h) @ w_c)
            h = h + u * (c - h)
            out[n, s] = h
    return out


def test_dynamic_lstm_and_gru_keep_fluid_layouts_eager_and_static():
    from core import static

    x4 = rng.standard_normal((3, 5, 12)).astype(np.float32)
    x3 = rng.standard_normal((3, 5, 9)).astype(np.float32)
    lens = np.array([5, 2, 3], np.int64)
    w = rng.standard_normal((3, 12)).astype(np.float32) * 0.5
    b = rng.standard_normal((1, 12)).astype(np.float32) * 0.1
    h, c = core.layers.dynamic_lstm(t(x4), 12, use_peepholes=False, length=t(lens),
                                    param_attr=_attr(w), bias_attr=_attr(b))
    want_h, want_c = _fluid_lstm_ref(x4, lens, w, b)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)
    mask = (np.arange(5)[None, :] < lens[:, None])[..., None]
    np.testing.assert_allclose(c.numpy() * mask, want_c, rtol=1e-5, atol=1e-6)
    wg = rng.standard_normal((3, 9)).astype(np.float32) * 0.5
    bg = rng.standard_normal((1, 9)).astype(np.float32) * 0.1
    g = core.layers.dynamic_gru(t(x3), 3, param_attr=_attr(wg), bias_attr=_attr(bg),
                                length=t(lens))
    np.testing.assert_allclose(g.numpy(), _fluid_gru_ref(x3, lens, wg, bg), rtol=1e-5,
                               atol=1e-6)
    core.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data("x", [None, 5, 12], "float32")
            xg = static.data("xg", [None, 5, 9], "float32")
            lv = static.data("lens", [None], "int64")
            sh, _ = core.layers.dynamic_lstm(xv, 12, use_peepholes=False, length=lv,
                                             param_attr=_attr(w), bias_attr=_attr(b))
            sg = core.layers.dynamic_gru(xg, 3, param_attr=_attr(wg), bias_attr=_attr(bg),
                                         length=lv)
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        got_h, got_g = exe.run(main, feed={"x": x4, "xg": x3, "lens": lens},
                               fetch_list=[sh, sg], scope=scope)
    finally:
        core.disable_static()
    np.testing.assert_allclose(got_h, h.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_g, g.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("reverse", [False, True])
def test_dynamic_lstm_peepholes_by_default_match_fluids_formulas(reverse):
    from core import static

    x = rng.standard_normal((3, 5, 8)).astype(np.float32)
    lens = np.array([5, 2, 4], np.int64)
    w = rng.standard_normal((2, 8)).astype(np.float32) * 0.5
    b = rng.standard_normal((1, 14)).astype(np.float32) * 0.5
    h, c = core.layers.dynamic_lstm(t(x), 8, param_attr=_attr(w), bias_attr=_attr(b),
                                    length=t(lens), is_reverse=reverse)
    want_h, want_c = _fluid_lstm_ref(x, lens, w, b, reverse)
    np.testing.assert_allclose(h.numpy(), want_h, rtol=1e-5, atol=1e-6)
    mask = (np.arange(5)[None, :] < lens[:, None])[..., None]
    np.testing.assert_allclose(c.numpy() * mask, want_c, rtol=1e-5, atol=1e-6)
    core.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data("x", [None, 5, 8], "float32")
            lv = static.data("lens", [None], "int64")
            sh, _ = core.layers.dynamic_lstm(xv, 8, length=lv, is_reverse=reverse,
                                             param_attr=_attr(w), bias_attr=_attr(b))
            # the default bias is [1, 7 * hidden]: gate biases, then the peepholes
            bias = [p for p in main.all_parameters() if p.shape == [1, 14]]
            assert len(bias) == 1 and len(main.all_parameters()) == 2
            db, = static.gradients([core.layers.reduce_sum(sh)], bias)
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        got, got_db = exe.run(main, feed={"x": x, "lens": lens}, fetch_list=[sh, db],
                              scope=scope)
    finally:
        core.disable_static()
    np.testing.assert_allclose(got, h.numpy(), rtol=1e-6, atol=1e-7)
    assert np.all(np.abs(got_db[0, 8:]) > 0)  # every peephole weight gets a gradient


def test_dynamic_lstm_reads_the_lengths_of_a_lod_level_1_input():
    """fluid's seed pattern: ``data(lod_level=1)`` -> embedding -> dynamic_lstm(emb, size)."""
    core.enable_static()
    try:
        from core import static

        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            words = static.data("words", [None, 1], "int64", lod_level=1)
            emb = core.layers.embedding(words, size=[10, 8], param_attr="emb_w")
            init = core.initializer.NumpyArrayInitializer(
                rng.standard_normal((1, 14)).astype(np.float32))
            h, _ = core.layers.dynamic_lstm(emb, 8, param_attr="lstm_w",
                                            bias_attr=core.ParamAttr("lstm_b", init))
            last = core.layers.sequence_pool(h, "last")
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        data = core.create_lod_tensor([[1, 2, 3], [4], [5, 6]], [[3, 1, 2]], core.CPUPlace())
        got_h, got_last = exe.run(main, feed={"words": data}, fetch_list=[h, last],
                                  scope=scope)
        emb_w, w, b = (np.asarray(scope.find_var(n).get_tensor())
                       for n in ("emb_w", "lstm_w", "lstm_b"))
    finally:
        core.disable_static()
    assert b.shape == (1, 14) and np.abs(b[0, 8:]).min() > 0
    ids = np.array([[1, 2, 3], [4, 0, 0], [5, 6, 0]])
    lens = np.array([3, 1, 2])
    want, _ = _fluid_lstm_ref(emb_w[ids], lens, w, b)
    np.testing.assert_allclose(got_h, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_last, want[np.arange(3), lens - 1], rtol=1e-5, atol=1e-6)


def test_dynamic_rnn_bad_input():
    x = t(np.zeros((2, 4, 8), np.float32))
    with pytest.raises(ValueError, match=r"'input' must be .*size=12.*\[2, 4, 8\]"):
        core.layers.dynamic_lstm(x, 12)
    with pytest.raises(ValueError, match=r"'length' must be \[batch_size\] = \[2\].*\[3\]"):
        core.layers.dynamic_lstm(x, 8, length=t(np.array([1, 2, 3], np.int64)))
    with pytest.raises(ValueError, match=r"'h_0' must be \[batch_size, hidden_size=2\]"):
        core.layers.dynamic_lstm(x, 8, h_0=t(np.zeros((2, 3), np.float32)))
    with pytest.raises(ValueError, match=r"dynamic_gru\(\): 'length' values must lie in "
                       r"\[0, 4\].*\[2, 4, 6\].*\[5, 1\]"):
        core.layers.dynamic_gru(t(np.zeros((2, 4, 6), np.float32)), 2,
                                length=t(np.array([5, 1], np.int64)))
    with pytest.raises(ValueError, match=r"dynamic_lstm\(\): 'length' values must lie in "
                       r"\[0, 4\].*\[-1, 2\]"):
        core.layers.dynamic_lstm(x, 8, length=t(np.array([-1, 2], np.int64)))
    with pytest.raises(ValueError, match=r"'size' must be 4 \* hidden_size, got 10"):
        core.layers.dynamic_lstm(t(np.zeros((2, 4, 10), np.float32)), 10)
    with pytest.raises(TypeError, match=r"'size' must be int"):
        core.layers.dynamic_lstm(x, 8.0)
    with pytest.raises(ValueError, match=r"only cell_activation='tanh'"):
        core.layers.dynamic_lstm(x, 8, cell_activation="relu")
    # in a static program the lengths are known only when it runs: the kernel names them
    core.enable_static()
    try:
        from core import static

        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data("x", [None, 4, 8], "float32")
            lv = static.data("lens", [None], "int64")
            h, _ = core.layers.dynamic_lstm(xv, 8, length=lv)
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        with pytest.raises(OpError, match=r"sequence_length values must lie in \[0, 4\].*"
                           r"\[1, 5\]"):
            exe.run(main, feed={"x": np.zeros((2, 4, 8), np.float32),
                                "lens": np.array([5, 1], np.int64)}, fetch_list=[h], scope=scope)
    finally:
        core.disable_static()


class _UserCellModel(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(_Wrapped(nn.LSTMCell(3, 4)), is_reverse=True)

    def forward(self, x, lens):
        out, (_, c) = self.rnn(x, sequence_length=lens)
        return core.layers.reduce_mean(out) + core.layers.reduce_mean(c)


def test_user_defined_cell_step_loop_inside_declarative_equals_eager():
    model = _UserCellModel()
    x = t(rng.standard_normal((3, 5, 3)).astype(np.float32))
    lens = t(np.array([5, 2, 0], np.int64))
    _declarative_equals_eager_with_gradients(model, x, lens)

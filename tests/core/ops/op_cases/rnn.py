"""Cases for the recurrent op (core/ops/rnn.py).

The reference runs each sequence on its own, step by step, with the gate formulas spelled out
(PaddlePaddle 2.x gate order) and the padded steps handled by stopping at the sequence's
length — independent of the kernel's batched masking.
"""
import numpy as np

from . import Case

r = np.random.default_rng(11)


def f32(*shape, s=0.5):
    return r.uniform(-s, s, shape).astype(np.float32)


def _sig(a):
    return 1.0 / (1.0 + np.exp(-a))


def _step(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, peep, origin_mode=False):
    xg = (x if w_ih is None else w_ih @ x) + (0 if b_ih is None else b_ih)
    if mode == "FLUID_GRU":
        hid = w_hh.shape[0]
        w_ur = w_hh.reshape(-1)[:2 * hid * hid].reshape(hid, 2 * hid)
        w_c = w_hh.reshape(-1)[2 * hid * hid:].reshape(hid, hid)
        ur = _sig(xg[:2 * hid] + h @ w_ur)
        u, rr = ur[:hid], ur[hid:]
        cand = np.tanh(xg[2 * hid:] + (rr * h) @ w_c)
        return (u * h + (1 - u) * cand if origin_mode else h + u * (cand - h)), c
    hid = w_hh.shape[1]
    hg = w_hh @ h + (0 if b_hh is None else b_hh)
    if mode == "LSTM":
        a = xg + hg
        i, f, g, o = (a[k * hid:(k + 1) * hid] for k in range(4))
        p_i, p_f, p_o = (np.zeros(hid),) * 3 if peep is None else np.split(peep, 3)
        # the input and forget gates see the previous cell state, the output gate the new one
        gi, gf = _sig(i + p_i * c), _sig(f + p_f * c)
        c = gf * c + gi * np.tanh(g)
        return _sig(o + p_o * c) * np.tanh(c), c
    if mode == "GRU":
        rr = _sig(xg[:hid] + hg[:hid])
        z = _sig(xg[hid:2 * hid] + hg[hid:2 * hid])
        n = np.tanh(xg[2 * hid:] + rr * hg[2 * hid:])
        return z * h + (1 - z) * n, c
    a = xg + hg
    return (np.maximum(a, 0) if mode == "RNN_RELU" else np.tanh(a)), c


def rnn_ref(x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, peep=None, mode="LSTM", is_reverse=False,
            time_major=False, origin_mode=False):
    single = x.ndim == 2
    xt = x[None] if single else (x if time_major else x.transpose(1, 0, 2))
    steps, batch, _ = xt.shape
    hid = w_hh.shape[0] if mode == "FLUID_GRU" else w_hh.shape[1]
    out = np.zeros((steps, batch, hid), np.float64)
    last_h = np.zeros((batch, hid))
    last_c = np.zeros((batch, hid if mode == "LSTM" else 0))
    for b in range(batch):
        n = steps if lens is None else int(lens[b])
        h = np.zeros(hid) if h0 is None else h0[b].astype(np.float64)
        c = np.zeros(hid) if c0 is None else c0[b].astype(np.float64)
        ts = range(n - 1, -1, -1) if is_reverse else range(n)
        for t in ts:
            h, c = _step(mode, xt[t, b].astype(np.float64), h, c, w_ih, w_hh, b_ih, b_hh,
                         peep, origin_mode)
            out[t, b] = h
        last_h[b] = h
        if mode == "LSTM":
            last_c[b] = c
    dt = x.dtype
    out = out[0] if single else (out if time_major else out.transpose(1, 0, 2))
    return out.astype(dt), last_h.astype(dt), last_c.astype(dt)


def _case(mode, steps=3, batch=2, isz=3, hid=2, lens=None, init=True, bias=True,
          time_major=False, is_reverse=False, single=False, peep=False, name=""):
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    if single:
        x = f32(batch, isz, s=1.0)
    else:
        x = f32(steps, batch, isz, s=1.0) if time_major else f32(batch, steps, isz, s=1.0)
    h0 = f32(batch, hid) if init else None
    c0 = f32(batch, hid) if init and mode == "LSTM" else None
    ins = [x, h0, c0, f32(g * hid, isz), f32(g * hid, hid),
           f32(g * hid) if bias else None, f32(g * hid) if bias else None,
           None if lens is None else np.array(lens, np.int64),
           f32(3 * hid, s=1.0) if peep else None]
    return Case(ins, {"mode": mode, "is_reverse": is_reverse, "time_major": time_major},
                ref=rnn_ref, atol=1e-5, rtol=1e-4, name=name or mode)


CASES = {
    "rnn": [
        _case("LSTM"),
        _case("LSTM", lens=[3, 1], is_reverse=True, name="lstm reverse lengths"),
        _case("LSTM", lens=[2, 0], init=False, time_major=True, name="lstm time-major lengths"),
        _case("LSTM", single=True, name="lstm one step"),
        _case("LSTM", steps=4, lens=[4, 2], peep=True, name="lstm peepholes lengths"),
        _case("LSTM", lens=[1, 3], peep=True, is_reverse=True, init=False, time_major=True,
              name="lstm peepholes reverse time-major"),
        _case("LSTM", single=True, peep=True, name="lstm peepholes one step"),
        Case([f32(3, 4, 8, s=1.0), f32(3, 2), f32(3, 2), None, f32(8, 2), f32(8), None,
              np.array([4, 0, 2], np.int32), f32(6, s=1.0)], {"mode": "LSTM"}, ref=rnn_ref,
             name="lstm peepholes projected input"),
        _case("GRU", lens=[1, 3], name="gru lengths"),
        _case("GRU", lens=[0, 3], is_reverse=True, name="gru zero length keeps the initial state"),
        _case("GRU", is_reverse=True, bias=False, name="gru reverse no bias"),
        _case("GRU", single=True, init=False, name="gru one step"),
        _case("RNN_TANH", lens=[3, 2], is_reverse=True, name="tanh reverse lengths"),
        _case("RNN_RELU", steps=2, name="relu"),
        Case([f32(2, 3, 8, s=1.0), f32(2, 2), f32(2, 2), None, f32(8, 2), f32(8), None,
              np.array([3, 2], np.int64), None], {"mode": "LSTM"}, ref=rnn_ref,
             name="lstm projected input"),
        Case([f32(3, 2, 6, s=1.0), f32(2, 2), None, None, f32(2, 6), f32(6), None,
              np.array([1, 3], np.int64), None], {"mode": "FLUID_GRU", "time_major": True},
             ref=rnn_ref, name="fluid gru"),
        Case([f32(2, 3, 9, s=1.0), None, None, None, f32(3, 9), None, None,
              np.array([3, 2], np.int64), None], {"mode": "FLUID_GRU", "is_reverse": True,
                                            "origin_mode": True},
             ref=rnn_ref, name="fluid gru origin reverse"),
    ],
}

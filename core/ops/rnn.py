"""Recurrent ops: one ``rnn`` op runs a whole sequence through one direction of one layer.

The kernel is written for speed on small batches: the input projection of every step is one
GEMM (``X @ WeightIh^T``), each step adds one GEMM of the hidden state (``H @ WeightHh^T``)
and a few elementwise ops, and the backward pass through time works the same way into
preallocated buffers, finishing with one GEMM each for ``dX``, ``dWeightIh`` and
``dWeightHh``. A 2-D ``Input`` ``[batch, input_size]`` is one step (what the cells run).

Weights, biases and gate order follow PaddlePaddle 2.x (and cuDNN):

* ``RNN_TANH`` / ``RNN_RELU``: ``h = act(x Wih^T + bih + h Whh^T + bhh)``.
* ``LSTM``: gates ``[i, f, g, o]`` (``4 * hidden`` rows); ``c = f * c + i * g``,
  ``h = o * tanh(c)`` with ``i, f, o`` sigmoids and ``g`` a tanh. With ``Peephole``
  (``[3 * hidden]``: the diagonal weights ``[w_ic, w_fc, w_oc]`` of fluid's ``dynamic_lstm``)
  the input and forget gates also see the previous cell state and the output gate the new one:
  ``i = sigmoid(a_i + w_ic * c_prev)``, ``f = sigmoid(a_f + w_fc * c_prev)``,
  ``o = sigmoid(a_o + w_oc * c)``.
* ``GRU``: gates ``[r, z, c]`` (``3 * hidden`` rows); ``r, z`` sigmoids of the summed
  projections, ``c = tanh(xc + r * (h Whh_c^T + bhh_c))``, ``h = z * h + (1 - z) * c``.

* ``FLUID_GRU`` (fluid's ``gru`` / ``dynamic_gru``): gates ``[u, r, c]``; ``WeightHh`` is
  Paddle's ``[hidden, 3 * hidden]`` buffer whose first ``2 * hidden * hidden`` values are
  ``W_ur`` ``[hidden, 2 * hidden]`` and the rest ``W_c`` ``[hidden, hidden]``;
  ``u, r = sigmoid(x_ur + h W_ur)``, ``c = tanh(x_c + (r * h) W_c)``,
  ``h = h + u * (c - h)`` (``origin_mode``: ``u * h + (1 - u) * c``).

``WeightIh`` may be absent: the input is then the projected gates themselves
(``[..., gates * hidden]``, what fluid's ``dynamic_lstm`` / ``dynamic_gru`` take).
``SequenceLength`` (int, ``[batch]``, each in ``[0, steps]``) masks padded steps: past a
sequence's length its state is carried unchanged and its output is zero. ``is_reverse`` runs
the steps last to first (with padding at the end this processes each sequence from its last
real step). ``LastC`` is the final cell state for ``LSTM`` and an empty ``[batch, 0]`` array
otherwise. ``Reserve`` holds the per-step values the backward pass reads.
"""
import numpy as np

from ._shapes import ShapeError
from .registry import Meta, OpDef, register_op

__all__ = ["rnn", "MODES", "gate_count"]

#: mode -> number of gates (rows of the weights per hidden unit)
MODES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3, "FLUID_GRU": 3}
# Reserve columns per step, in hidden units: carried state (simple), gates + c + h (LSTM),
# r, z, c, (h Whh_c + bhh_c), h (GRU).
_RESERVE = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 6, "GRU": 5, "FLUID_GRU": 4}


def gate_count(mode):
    if mode not in MODES:
        raise ShapeError(f"rnn: mode must be one of {sorted(MODES)}, got {mode!r}")
    return MODES[mode]


def _sigmoid(xp, a, out):
    """Overflow-free logistic function: ``0.5 * tanh(0.5 * a) + 0.5``, written into ``out``."""
    xp.multiply(a, 0.5, out=out)
    xp.tanh(out, out=out)
    out *= 0.5
    out += 0.5
    return out


def _dims(x_shape, time_major):
    """``(steps, batch, input_size)`` of an input shape (a 2-D input is one step)."""
    if len(x_shape) == 2:
        return 1, x_shape[0], x_shape[1]
    if len(x_shape) != 3:
        raise ShapeError(f"rnn: Input must be [batch, time, input_size] (time_major=False), "
                         f"[time, batch, input_size] (time_major=True) or one step "
                         f"[batch, input_size], got shape {list(x_shape)}")
    if time_major:
        return x_shape[0], x_shape[1], x_shape[2]
    return x_shape[1], x_shape[0], x_shape[2]


def _known_eq(a, b):
    return a == -1 or b == -1 or a == b


def _check(x_shape, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, mode, time_major):
    """Shape checks shared by ``infer`` and ``forward``; arguments are shapes (or None)."""
    g = gate_count(mode)
    steps, batch, isz = _dims(x_shape, time_major)
    if len(w_hh) != 2 or (w_ih is not None and len(w_ih) != 2):
        raise ShapeError(f"rnn ({mode}): WeightIh and WeightHh must be 2-D, got "
                         f"{w_ih and list(w_ih)} and {list(w_hh)}")
    if mode == "FLUID_GRU":
        hid = w_hh[0]
        if not _known_eq(w_hh[1], 3 * hid):
            raise ShapeError(f"rnn (FLUID_GRU): the weight must be [hidden_size, 3 * "
                             f"hidden_size], got {list(w_hh)}")
    else:
        hid = w_hh[1]
    if w_ih is None:
        if not _known_eq(isz, g * hid):
            raise ShapeError(f"rnn ({mode}): without weight_ih the input is the projected "
                             f"gates and its last dim must be {g} * hidden_size = {g * hid}, "
                             f"got input shape {list(x_shape)}")
    elif not ((mode == "FLUID_GRU" or _known_eq(w_hh[0], g * hid))
              and _known_eq(w_ih[0], g * hid) and _known_eq(w_ih[1], isz)):
        raise ShapeError(f"rnn ({mode}): weight_ih must be [{g} * hidden_size, input_size] = "
                         f"[{g * hid}, {isz}] and weight_hh [{g * hid}, {hid}] for input "
                         f"shape {list(x_shape)}, got weight_ih {list(w_ih)} and weight_hh "
                         f"{list(w_hh)}")
    if mode == "FLUID_GRU" and b_hh is not None:
        raise ShapeError("rnn (FLUID_GRU): the hidden bias is folded into BiasIh; pass none")
    for name, b in (("bias_ih", b_ih), ("bias_hh", b_hh)):
        if b is not None and (len(b) != 1 or not _known_eq(b[0], g * hid)):
            raise ShapeError(f"rnn ({mode}): {name} must be [{g * hid}] ({g} * hidden_size), "
                             f"got {list(b)}")
    for name, s in (("initial hidden state", h0), ("initial cell state", c0)):
        if s is not None and (len(s) != 2 or not _known_eq(s[0], batch)
                              or not _known_eq(s[1], hid)):
            raise ShapeError(f"rnn ({mode}): the {name} must be [batch_size, hidden_size] = "
                             f"[{batch}, {hid}] for input shape {list(x_shape)}, got "
                             f"{list(s)}")
    if c0 is not None and mode != "LSTM":
        raise ShapeError(f"rnn ({mode}): only LSTM takes an initial cell state")
    if lens is not None:
        if len(x_shape) == 2:
            raise ShapeError("rnn: sequence_length needs a 3-D (sequence) input, got one step "
                             f"of shape {list(x_shape)}")
        if len(lens) != 1 or not _known_eq(lens[0], batch):
            raise ShapeError(f"rnn ({mode}): sequence_length must be [batch_size] = [{batch}] "
                             f"for input shape {list(x_shape)}, got shape {list(lens)}")
    return steps, batch, isz, hid, g


def _to_time_major(x, time_major):
    if x.ndim == 2:
        return x[None]
    return x if time_major else x.transpose(1, 0, 2)


def _from_time_major(a, single, time_major, xp):
    if single:
        return a[0]
    return a if time_major else xp.ascontiguousarray(a.transpose(1, 0, 2))


@register_op
class rnn(OpDef):
    """One direction of one recurrent layer over a whole (padded) sequence; see the module
    docstring. ``InitH`` / ``InitC`` / biases / ``SequenceLength`` / ``Peephole`` may be
    absent (None): zero states, no bias, every sequence full length, no peepholes."""

    inputs = ("Input", "InitH", "InitC", "WeightIh", "WeightHh", "BiasIh", "BiasHh",
              "SequenceLength", "Peephole")
    outputs = ("Out", "LastH", "LastC", "Reserve")
    attrs = {"mode": "LSTM", "is_reverse": False, "time_major": False, "origin_mode": False}
    nondiff_inputs = ("SequenceLength",)
    nondiff_outputs = ("Reserve",)

    def infer(self, x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, peep, mode, is_reverse,
              time_major, origin_mode):
        sh = lambda m: None if m is None else tuple(m.shape)  # noqa: E731
        if lens is not None and np.dtype(lens.dtype).kind not in "iu":
            raise ShapeError(f"rnn: sequence_length must be an integer tensor, got "
                             f"{np.dtype(lens.dtype).name}")
        steps, batch, _, hid, _ = _check(tuple(x.shape), sh(h0), sh(c0), sh(w_ih), sh(w_hh),
                                         sh(b_ih), sh(b_hh), sh(lens), mode, time_major)
        _check_peephole(sh(peep), mode, hid)
        single = len(x.shape) == 2
        if single:
            out = (batch, hid)
        else:
            out = (steps, batch, hid) if time_major else (batch, steps, hid)
        dt = x.dtype
        return (Meta(out, dt), Meta((batch, hid), dt),
                Meta((batch, hid if mode == "LSTM" else 0), dt),
                Meta((steps, batch, _RESERVE[mode] * hid), dt))

    def forward(self, ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, peep, mode, is_reverse,
                time_major, origin_mode):
        xp = ctx.xp
        sh = lambda a: None if a is None else tuple(a.shape)  # noqa: E731
        steps, batch, isz, hid, g = _check(x.shape, sh(h0), sh(c0), sh(w_ih), sh(w_hh),
                                           sh(b_ih), sh(b_hh), sh(lens), mode, time_major)
        _check_peephole(sh(peep), mode, hid)
        dt = x.dtype
        xt = _to_time_major(x, time_major)
        mask = _mask(xp, lens, steps, batch, dt)
        G = g * hid
        # the input projection of every step in one GEMM; the hidden bias folds in too except
        # for the GRU candidate, which multiplies it by r
        if w_ih is None:
            xg = xt.astype(dt, copy=True)
        else:
            xg = (xt.reshape(steps * batch, isz) @ w_ih.T).reshape(steps, batch, G)
        if b_ih is not None:
            xg += b_ih
        if b_hh is not None and mode != "GRU":
            xg += b_hh
        whh_t = xp.ascontiguousarray(w_hh.T) if mode != "FLUID_GRU" else None
        h = xp.zeros((batch, hid), dt) if h0 is None else h0.astype(dt, copy=True)
        res = xp.empty((steps, batch, _RESERVE[mode] * hid), dt)
        out = xp.empty((steps, batch, hid), dt)
        order = range(steps - 1, -1, -1) if is_reverse else range(steps)
        hg = xp.empty((batch, G), dt)
        if mode == "LSTM":
            c = xp.zeros((batch, hid), dt) if c0 is None else c0.astype(dt, copy=True)
            tmp = xp.empty((batch, hid), dt)
            h2, h3 = 2 * hid, 3 * hid
            for t in order:
                gates = res[t, :, :G]
                xp.matmul(h, whh_t, out=hg)
                hg += xg[t]
                if peep is None:
                    _sigmoid(xp, hg, gates)
                else:  # i and f see the previous cell state; o waits for the new one
                    for k in range(2):
                        xp.multiply(peep[k * hid:(k + 1) * hid], c, out=tmp)
                        hg[:, k * hid:(k + 1) * hid] += tmp
                    _sigmoid(xp, hg[:, :h2], gates[:, :h2])
                xp.tanh(hg[:, h2:h3], out=gates[:, h2:h3])
                i, f, gg, o = (gates[:, k * hid:(k + 1) * hid] for k in range(4))
                # the new states go straight into the reserve (no copies)
                c_new, h_new = res[t, :, G:G + hid], res[t, :, G + hid:]
                xp.multiply(f, c, out=c_new)
                xp.multiply(i, gg, out=tmp)
                c_new += tmp
                if peep is not None:  # o sees the new cell state
                    xp.multiply(peep[h2:], c_new, out=tmp)
                    hg[:, h3:] += tmp
                    _sigmoid(xp, hg[:, h3:], o)
                xp.tanh(c_new, out=tmp)
                xp.multiply(o, tmp, out=h_new)
                if mask is None:
                    out[t] = h_new
                else:
                    m = mask[t]
                    xp.multiply(h_new, m, out=out[t])
                    keep = ~m[:, 0]
                    c_new[keep] = c[keep]
                    h_new[keep] = h[keep]
                c, h = c_new, h_new
            last_c, h = c.copy(), h.copy()
        elif mode == "GRU":
            bhh = b_hh
            h2 = 2 * hid
            for t in order:
                r_z = res[t, :, :h2]
                xp.matmul(h, whh_t, out=hg)
                if bhh is not None:
                    hg += bhh
                xp.add(xg[t, :, :h2], hg[:, :h2], out=r_z)
                _sigmoid(xp, r_z, r_z)
                cand = res[t, :, h2:3 * hid]
                res[t, :, 3 * hid:4 * hid] = hg[:, h2:]
                xp.multiply(r_z[:, :hid], hg[:, h2:], out=cand)
                cand += xg[t, :, h2:]
                xp.tanh(cand, out=cand)
                z = r_z[:, hid:]
                h_new = h - cand
                h_new *= z
                h_new += cand
                h = _masked_step(xp, h, h_new, None if mask is None else mask[t], out[t])
                res[t, :, 4 * hid:] = h
            last_c = xp.zeros((batch, 0), dt)
        elif mode == "FLUID_GRU":
            h2 = 2 * hid
            w_ur, w_c = _fluid_gru_weights(w_hh)
            hur = xp.empty((batch, h2), dt)
            for t in order:
                ur = res[t, :, :h2]
                xp.matmul(h, w_ur, out=hur)
                xp.add(xg[t, :, :h2], hur, out=ur)
                _sigmoid(xp, ur, ur)
                u, r = ur[:, :hid], ur[:, hid:]
                cand = res[t, :, h2:3 * hid]
                xp.matmul(r * h, w_c, out=cand)
                cand += xg[t, :, h2:]
                xp.tanh(cand, out=cand)
                if origin_mode:
                    h_new = h - cand
                    h_new *= u
                    h_new += cand
                else:
                    h_new = cand - h
                    h_new *= u
                    h_new += h
                h = _masked_step(xp, h, h_new, None if mask is None else mask[t], out[t])
                res[t, :, 3 * hid:] = h
            last_c = xp.zeros((batch, 0), dt)
        else:
            relu = mode == "RNN_RELU"
            for t in order:
                xp.matmul(h, whh_t, out=hg)
                hg += xg[t]
                if relu:
                    h_new = xp.maximum(hg, 0)
                else:
                    h_new = xp.tanh(hg)
                h = _masked_step(xp, h, h_new, None if mask is None else mask[t], out[t])
                res[t] = h
            last_c = xp.zeros((batch, 0), dt)
        return _from_time_major(out, x.ndim == 2, time_major, xp), h, last_c, res

    def backward(self, ctx, ins, outs, douts, mode, is_reverse, time_major, origin_mode):
        xp = ctx.xp
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, lens, peep = ins
        res = outs[3]
        dout, dlast_h, dlast_c = douts[0], douts[1], douts[2]
        steps, batch, isz = _dims(x.shape, time_major)
        fluid = mode == "FLUID_GRU"
        hid = w_hh.shape[0] if fluid else w_hh.shape[1]
        G = gate_count(mode) * hid
        dt = x.dtype
        xt = _to_time_major(x, time_major)
        dyt = _to_time_major(dout, time_major)
        mask = _mask(xp, lens, steps, batch, dt)
        fmask = None if mask is None else mask.astype(dt)
        order = list(range(steps - 1, -1, -1) if is_reverse else range(steps))
        need = ctx.needs_grad or [True] * 9
        dpeep = None
        # carried state before each step (in processing order)
        hcol = slice(G + hid, None) if mode == "LSTM" else \
            slice(4 * hid, None) if mode == "GRU" else \
            slice(3 * hid, None) if fluid else slice(0, None)
        h_init = xp.zeros((batch, hid), dt) if h0 is None else h0
        hprev = xp.empty((steps, batch, hid), dt)
        for k, t in enumerate(order):
            hprev[t] = h_init if k == 0 else res[order[k - 1], :, hcol]
        dh = dlast_h.astype(dt, copy=True)
        dxg = xp.empty((steps, batch, G), dt)
        dhg = xp.empty((steps, batch, G), dt) if mode == "GRU" else dxg
        dhn = xp.empty((batch, hid), dt)
        if mode == "LSTM":
            c_init = xp.zeros((batch, hid), dt) if c0 is None else c0
            dc = dlast_c.astype(dt, copy=True)
            # everything that does not depend on the incoming gradients, for all steps at
            # once: tanh(c), the gate derivatives times what multiplies each gate, and
            # o * tanh'(c) (how dh reaches c); the loop then does a handful of ops per step
            gates = res[:, :, :G]
            c_all = res[:, :, G:G + hid]
            tc = xp.tanh(c_all)
            cprev = xp.empty((steps, batch, hid), dt)
            for k, t in enumerate(order):
                cprev[t] = c_init if k == 0 else c_all[order[k - 1]]
            fac = gates * (1 - gates)
            g_part = gates[:, :, 2 * hid:3 * hid]
            fac[:, :, 2 * hid:3 * hid] = 1 - g_part * g_part
            fac[:, :, :hid] *= g_part                       # di = dc * g * i'
            fac[:, :, hid:2 * hid] *= cprev                 # df = dc * c_prev * f'
            fac[:, :, 2 * hid:3 * hid] *= gates[:, :, :hid]  # dg = dc * i * g'
            fac[:, :, 3 * hid:] *= tc                       # do = dh * tanh(c) * o'
            o_tc = 1 - tc * tc
            o_tc *= gates[:, :, 3 * hid:]
            fac4 = fac.reshape(steps, batch, 4, hid)
            dxg4 = dxg.reshape(steps, batch, 4, hid)
            dcn = xp.empty((batch, hid), dt)
            for k in range(steps - 1, -1, -1):
                t = order[k]
                xp.add(dh, dyt[t], out=dhn)
                if fmask is not None:
                    dhn *= fmask[t]
                xp.multiply(dhn, fac[t, :, 3 * hid:], out=dxg[t, :, 3 * hid:])
                xp.multiply(dhn, o_tc[t], out=dcn)
                dcn += dc
                if peep is not None:  # the output gate's peephole reads c
                    dcn += dxg[t, :, 3 * hid:] * peep[2 * hid:]
                if fmask is not None:
                    dcn *= fmask[t]
                xp.multiply(dcn[:, None, :], fac4[t, :, :3], out=dxg4[t, :, :3])
                new_dc = dcn * gates[t, :, hid:2 * hid]
                if peep is not None:  # the input and forget gates' peepholes read c_prev
                    new_dc += dxg[t, :, :hid] * peep[:hid]
                    new_dc += dxg[t, :, hid:2 * hid] * peep[hid:2 * hid]
                new_dh = dxg[t] @ w_hh
                if fmask is not None:
                    keep = 1 - fmask[t]
                    new_dc += keep * dc
                    new_dh += keep * dh
                dc, dh = new_dc, new_dh
            dc0 = dc
            if peep is not None and need[8]:
                dpeep = xp.concatenate([
                    xp.einsum("tbh,tbh->h", dxg[:, :, :hid], cprev),
                    xp.einsum("tbh,tbh->h", dxg[:, :, hid:2 * hid], cprev),
                    xp.einsum("tbh,tbh->h", dxg[:, :, 3 * hid:], c_all)])
        elif mode == "GRU":
            h2 = 2 * hid
            for k in range(steps - 1, -1, -1):
                t = order[k]
                r, z = res[t, :, :hid], res[t, :, hid:h2]
                n, hc = res[t, :, h2:3 * hid], res[t, :, 3 * hid:4 * hid]
                xp.add(dh, dyt[t], out=dhn)
                if fmask is not None:
                    dhn *= fmask[t]
                dx_t, dh_t = dxg[t], dhg[t]
                # dz, dn -> pre-activation gradients
                xp.subtract(hprev[t], n, out=dx_t[:, hid:h2])
                dx_t[:, hid:h2] *= dhn
                dx_t[:, hid:h2] *= z * (1 - z)
                xp.multiply(dhn, 1 - z, out=dx_t[:, h2:])
                dx_t[:, h2:] *= 1 - n * n
                xp.multiply(dx_t[:, h2:], r, out=dh_t[:, h2:])
                xp.multiply(dx_t[:, h2:], hc, out=dx_t[:, :hid])
                dx_t[:, :hid] *= r * (1 - r)
                dh_t[:, :h2] = dx_t[:, :h2]
                new_dh = dh_t @ w_hh
                new_dh += dhn * z
                if fmask is not None:
                    new_dh += (1 - fmask[t]) * dh
                dh = new_dh
            dc0 = None
        elif fluid:
            h2 = 2 * hid
            w_ur, w_c = _fluid_gru_weights(w_hh)
            rh_all = xp.empty((steps, batch, hid), dt)
            for k in range(steps - 1, -1, -1):
                t = order[k]
                u, r, c = res[t, :, :hid], res[t, :, hid:h2], res[t, :, h2:3 * hid]
                hp = hprev[t]
                xp.add(dh, dyt[t], out=dhn)
                if fmask is not None:
                    dhn *= fmask[t]
                d = dxg[t]
                if origin_mode:
                    xp.subtract(hp, c, out=d[:, :hid])
                    xp.multiply(dhn, 1 - u, out=d[:, h2:])
                    new_dh = dhn * u
                else:
                    xp.subtract(c, hp, out=d[:, :hid])
                    xp.multiply(dhn, u, out=d[:, h2:])
                    new_dh = dhn * (1 - u)
                d[:, :hid] *= dhn
                d[:, :hid] *= u * (1 - u)
                d[:, h2:] *= 1 - c * c
                d_rh = d[:, h2:] @ w_c.T
                xp.multiply(d_rh, hp, out=d[:, hid:h2])
                d[:, hid:h2] *= r * (1 - r)
                new_dh += d_rh * r
                new_dh += d[:, :h2] @ w_ur.T
                xp.multiply(r, hp, out=rh_all[t])
                if fmask is not None:
                    new_dh += (1 - fmask[t]) * dh
                dh = new_dh
            dc0 = None
        else:
            relu = mode == "RNN_RELU"
            for k in range(steps - 1, -1, -1):
                t = order[k]
                s = res[t]
                xp.add(dh, dyt[t], out=dhn)
                if fmask is not None:
                    dhn *= fmask[t]
                d = dxg[t]
                if relu:
                    xp.multiply(dhn, s > 0, out=d)
                else:
                    xp.multiply(dhn, 1 - s * s, out=d)
                new_dh = d @ w_hh
                if fmask is not None:
                    new_dh += (1 - fmask[t]) * dh
                dh = new_dh
            dc0 = None
        dxg2 = dxg.reshape(steps * batch, G)
        dhg2 = dhg.reshape(steps * batch, G)
        dx = dw_ih = dw_hh = db_ih = db_hh = None
        if need[0]:
            dxt = dxg if w_ih is None else (dxg2 @ w_ih).reshape(steps, batch, isz)
            dx = _from_time_major(dxt, x.ndim == 2, time_major, xp)
        if need[3] and w_ih is not None:
            dw_ih = dxg2.T @ xt.reshape(steps * batch, isz)
        if need[4] and fluid:
            dw_ur = hprev.reshape(steps * batch, hid).T @ dxg2[:, :2 * hid]
            dw_c = rh_all.reshape(steps * batch, hid).T @ dxg2[:, 2 * hid:]
            dw_hh = xp.concatenate([dw_ur.reshape(-1), dw_c.reshape(-1)]).reshape(w_hh.shape)
        elif need[4]:
            dw_hh = dhg2.T @ hprev.reshape(steps * batch, hid)
        if b_ih is not None and need[5]:
            db_ih = dxg2.sum(axis=0)
        if b_hh is not None and need[6]:
            db_hh = dhg2.sum(axis=0)
        dh0 = dh if h0 is not None else None
        if c0 is None:
            dc0 = None
        return dx, dh0, dc0, dw_ih, dw_hh, db_ih, db_hh, None, dpeep


def _check_peephole(p, mode, hid):
    """``Peephole`` (a shape, or None) must be ``[3 * hidden]`` and only with ``LSTM``."""
    if p is None:
        return
    if mode != "LSTM":
        raise ShapeError(f"rnn ({mode}): only LSTM takes peephole weights")
    if len(p) != 1 or not _known_eq(p[0], 3 * hid):
        raise ShapeError(f"rnn (LSTM): the peephole weights must be [3 * hidden_size] = "
                         f"[{3 * hid}] ([w_ic, w_fc, w_oc]), got shape {list(p)}")


def _masked_step(xp, h, h_new, m, out_t):
    """One step's state and output under the step's validity mask ``m`` (None: every row
    valid): the new state where valid, the old one past a sequence's length; the output is
    written into ``out_t``, zero where invalid. Returns the state to carry."""
    if m is None:
        out_t[...] = h_new
        return h_new
    xp.multiply(h_new, m, out=out_t)
    return xp.where(m, h_new, h)


def _fluid_gru_weights(w):
    """``(W_ur [hidden, 2 * hidden], W_c [hidden, hidden])`` views of Paddle's GRU buffer."""
    hid = w.shape[0]
    flat = w.reshape(-1)
    return (flat[:2 * hid * hid].reshape(hid, 2 * hid),
            flat[2 * hid * hid:].reshape(hid, hid))


def _mask(xp, lens, steps, batch, dt):
    """``[steps, batch, 1]`` booleans (step < length), or None without lengths; checks the
    lengths' values."""
    if lens is None:
        return None
    if lens.dtype.kind not in "iu":
        raise ShapeError(f"rnn: sequence_length must be an integer tensor, got {lens.dtype}")
    if lens.size:
        lo, hi = int(lens.min()), int(lens.max())
        if lo < 0 or hi > steps:
            raise ShapeError(f"rnn: sequence_length values must lie in [0, {steps}] (the time "
                             f"dim of the input, {steps} steps, batch {batch}); got values in "
                             f"[{lo}, {hi}]")
    return (xp.arange(steps)[:, None] < lens[None, :])[:, :, None]

"""ONNX mapper of the recurrent op (see :mod:`core.ops.rnn`): one ONNX ``LSTM`` / ``GRU`` /
``RNN`` node of one direction per ``rnn`` op.

The kernel's weights follow Paddle 2.x: LSTM gates ``[i, f, g, o]``, GRU ``[r, z, c]`` with the
hidden bias inside the reset product (ONNX ``linear_before_reset=1``). ONNX wants LSTM gates
``[i, o, f, c]`` and GRU ``[z, r, h]``, so the gate rows are gathered into that order (the
weights may be fed tensors, so this is a ``Gather`` in the graph). The fluid GRU (``[u, r, c]``,
reset applied before the candidate's projection) is an ONNX GRU with
``linear_before_reset=0``; its update gate is ONNX's ``z`` in ``origin_mode`` and ``1 - z``
otherwise, which negates that gate's rows (``sigmoid(-a) = 1 - sigmoid(a)``). Without
``WeightIh`` the input is the projected gates, which ONNX takes with an identity input weight.

LSTM peepholes (the kernel's ``Peephole`` ``[w_ic, w_fc, w_oc]``) are ONNX's ``P`` input, in
ONNX's ``[i, o, f]`` order; like the kernel (and fluid), ONNX's input and forget gates see the
previous cell state and its output gate the new one.

``SequenceLength`` is ONNX's ``sequence_lens``: like the kernel, ONNX zeroes the outputs past
each length and returns the state of the last valid step (a sequence of length 0 keeps its
initial state, as in the kernel, through a ``Where``); ``is_reverse`` is direction
``reverse`` (which, like the kernel with end padding, starts at each sequence's last valid
step). A batch-major input is transposed to ONNX's time-major layout and back. ``Reserve`` (the
backward pass's workspace, which ``dynamic_lstm`` slices for its cell sequence) has no ONNX
form: a program that reads it is an ExportError.

The nodes keep the program's dtype (ONNX allows float16 / float32 / float64), but
onnxruntime's CPU kernels for them run float32 only.
"""
import numpy as np

from ..ops.rnn import gate_count
from .registry import ExportError, mapper

#: ONNX's gate order, as indices into the kernel's gate blocks
_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0],
          "FLUID_GRU": [0, 1, 2]}


def _rows(order, hid):
    return np.concatenate([np.arange(k * hid, (k + 1) * hid) for k in order]).astype(np.int64)


def _known(v, slot, dim):
    n = v.var(slot).shape[dim]
    if n is None or n < 0:
        raise ExportError(f"rnn ({v.attrs['mode']}): {slot} needs a known dim {dim} for the "
                          f"ONNX gate reordering, got shape {list(v.var(slot).shape)}")
    return int(n)


def _weights(g, v, mode, hid, dt):
    """ONNX ``W`` ``[1, G, input]``, ``R`` ``[1, G, hidden]`` and ``B`` ``[1, 2G]`` (or '')."""
    n_g = gate_count(mode)
    G = n_g * hid
    rows = _rows(_ORDER[mode], hid)
    sign = None
    if mode == "FLUID_GRU" and not v.attrs["origin_mode"]:
        sign = np.ones(G, dt)
        sign[:hid] = -1  # ONNX's z is 1 - u
    col = None if sign is None else sign.reshape(G, 1)
    if v.has("WeightIh"):
        w = g.node("Gather", [v.x("WeightIh"), g.const(rows, np.int64)], axis=0)
    else:  # the input is the projected gates: an identity input weight
        w = g.const(np.eye(G, dtype=dt)[rows], dt)
    if col is not None:
        w = g.node("Mul", [w, g.const(col, dt)])
    w_hh = v.x("WeightHh")
    if mode == "FLUID_GRU":
        # Paddle's [hidden, 3 * hidden] buffer: W_ur [hidden, 2 * hidden] then W_c
        flat = g.reshape(w_hh, [-1])
        w_ur = g.node("Slice", [flat, g.const([0], np.int64), g.const([2 * hid * hid], np.int64)])
        w_c = g.node("Slice", [flat, g.const([2 * hid * hid], np.int64),
                               g.const([3 * hid * hid], np.int64)])
        r = g.node("Concat", [g.node("Transpose", [g.reshape(w_ur, [hid, 2 * hid])]),
                              g.node("Transpose", [g.reshape(w_c, [hid, hid])])], axis=0)
    else:
        r = g.node("Gather", [w_hh, g.const(rows, np.int64)], axis=0)
    if col is not None:
        r = g.node("Mul", [r, g.const(col, dt)])
    biases = []
    for slot in ("BiasIh", "BiasHh"):
        if v.has(slot):
            b = g.node("Gather", [v.x(slot), g.const(rows, np.int64)], axis=0)
            if sign is not None and slot == "BiasIh":
                b = g.node("Mul", [b, g.const(sign, dt)])
            biases.append(b)
        else:
            biases.append(g.const(np.zeros(G, dt), dt))
    b = ""
    if v.has("BiasIh") or v.has("BiasHh"):
        b = g.unsqueeze(g.node("Concat", biases, axis=0), [0])
    return g.unsqueeze(w, [0]), g.unsqueeze(r, [0]), b


def _check_reserve_unread(v):
    """ExportError when a later op reads ``Reserve`` (``dynamic_lstm``'s cell sequence)."""
    names = set(v.out_names("Reserve"))
    for block in v.op.block.program.blocks:
        for op in block.ops:
            if names & set(op.input_arg_names):
                raise ExportError(f"rnn ({v.attrs['mode']}): op '{op.type}' reads the per-step "
                                  "workspace 'Reserve' (e.g. dynamic_lstm's cell sequence), "
                                  "which ONNX's recurrent nodes do not output; fetch only the "
                                  "hidden outputs and final states")


def _keep_initial(g, v, lens, slot, last):
    """The final state, or the initial one (``slot``) for a sequence of length 0: the kernel
    carries the initial state through, onnxruntime gives zeros there."""
    if lens == "" or not v.has(slot):
        return last
    empty = g.unsqueeze(g.node("Equal", [lens, g.const(np.array(0, np.int32), np.int32)]), [1])
    return g.node("Where", [empty, v.x(slot), last])


@mapper("rnn")
def _rnn(g, v):
    mode, time_major = v.attrs["mode"], v.attrs["time_major"]
    _check_reserve_unread(v)
    dt = np.dtype(v.var("Input").dtype)
    hid = _known(v, "WeightHh", 0 if mode == "FLUID_GRU" else 1)
    w, r, b = _weights(g, v, mode, hid, dt)
    x = v.x("Input")
    single = v.rank("Input") == 2
    if single:
        x = g.unsqueeze(x, [0])
    elif not time_major:
        x = g.node("Transpose", [x], perm=[1, 0, 2])
    lens = ""
    if v.has("SequenceLength"):
        lens = g.cast(v.x("SequenceLength"), v.var("SequenceLength").dtype, np.int32)
    h0 = g.unsqueeze(v.x("InitH"), [0]) if v.has("InitH") else ""
    attrs = {"hidden_size": hid, "direction": "reverse" if v.attrs["is_reverse"] else "forward"}
    if mode == "LSTM":
        c0 = g.unsqueeze(v.x("InitC"), [0]) if v.has("InitC") else ""
        ins = [x, w, r, b, lens, h0, c0]
        if v.has("Peephole"):
            ins.append(g.unsqueeze(g.node("Gather", [v.x("Peephole"),
                                                     g.const(_rows([0, 2, 1], hid), np.int64)],
                                          axis=0), [0]))
        y, y_h, y_c = g.node("LSTM", ins, outputs=3, **attrs)
    elif mode in ("GRU", "FLUID_GRU"):
        y, y_h = g.node("GRU", [x, w, r, b, lens, h0], outputs=2,
                        linear_before_reset=int(mode == "GRU"), **attrs)
    else:
        y, y_h = g.node("RNN", [x, w, r, b, lens, h0], outputs=2,
                        activations=["Relu" if mode == "RNN_RELU" else "Tanh"], **attrs)
    out = g.squeeze(y, [0, 1] if single else [1])  # [time, 1, batch, hidden]
    if not single and not time_major:
        out = g.node("Transpose", [out], perm=[1, 0, 2])
    last_h = _keep_initial(g, v, lens, "InitH", g.squeeze(y_h, [0]))
    if mode == "LSTM":
        last_c = _keep_initial(g, v, lens, "InitC", g.squeeze(y_c, [0]))
    else:  # an empty [batch, 0]
        last_c = g.node("Slice", [last_h, g.const([0], np.int64), g.const([0], np.int64),
                                  g.const([1], np.int64)])
    return {"Out": g.node("Identity", [out], hint=v.out_hint("Out")),
            "LastH": g.node("Identity", [last_h], hint=v.out_hint("LastH")),
            "LastC": g.node("Identity", [last_c], hint=v.out_hint("LastC"))}


"""Recurrent layers (PaddlePaddle 2.x signatures): the cells ``SimpleRNNCell``, ``LSTMCell``,
``GRUCell``, the ``RNN`` / ``BiRNN`` wrappers, and the multi-layer ``SimpleRNN``, ``LSTM``,
``GRU``.

Parameters are named ``weight_ih`` ``[gates * hidden, input]``, ``weight_hh``
``[gates * hidden, hidden]``, ``bias_ih`` and ``bias_hh`` ``[gates * hidden]`` with Paddle's
gate order (LSTM ``i, f, g, o``; GRU ``r, z, c``), all initialised uniformly on
``[-1/sqrt(hidden), 1/sqrt(hidden)]``. A multi-layer network is a ``LayerList`` of ``RNN``
(or ``BiRNN``) wrappers, so its state dict keys are Paddle's (``0.cell.weight_ih``,
``1.cell_fw.bias_hh``, ...).

A built-in cell inside ``RNN`` runs the whole sequence as one ``rnn`` op (see
``core/ops/rnn.py``); a user-defined cell runs step by step (its ``forward`` once per time
step; the time dim must then be known). Variable-length batches are a padded tensor plus an
integer ``sequence_length`` ``[batch]``: padded steps keep the state and output zeros.

The fluid 1.x units ``GRUUnit``, ``BasicLSTMUnit`` and ``BasicGRUUnit`` (one step each, with
their own weight layouts) are composed of registered ops.
"""
import math

from ..checks import check_float_input
from ..checks import check_int as integer
from ..dispatch import apply
from ..dtypes import dtype_name
from ..initializer import Uniform
from .container import LayerList
from .layer import Layer

__all__ = ["BasicGRUUnit", "BasicLSTMUnit", "BiRNN", "GRU", "GRUCell", "GRUUnit", "LSTM",
           "LSTMCell", "RNN", "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]


def _shape(t):
    return [int(d) for d in t.shape]


class RNNCellBase(Layer):
    """Base of the cells: ``forward(inputs, states=None) -> (outputs, new_states)`` for one
    step; ``state_shape`` (without the batch dim) and :meth:`get_initial_states`."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with ``init_value``, batch size taken from ``batch_ref``'s dim
        ``batch_dim_idx``; ``shape`` (default ``state_shape``) is one shape or a nested
        tuple of shapes without the batch dim."""
        shape = self.state_shape if shape is None else shape
        dtype = dtype or self._dtype
        nd = len(batch_ref.shape)
        other = [a for a in range(nd) if a != batch_dim_idx]
        col = batch_ref
        if other:
            col = apply("slice", [col], {"axes": other, "starts": [0] * len(other),
                                         "ends": [1] * len(other)})
            col = apply("squeeze", [col], {"axes": other})
        col = apply("fill_any_like", [col], {"value": float(init_value), "dtype": dtype})

        def make(s):
            s = [int(d) for d in s]
            t = apply("unsqueeze", [col], {"axes": list(range(1, len(s) + 1))})
            return apply("tile", [t], {"repeat_times": [1] + s})

        if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple)):
            return tuple(make(s) for s in shape)
        return make(shape)

    @property
    def state_shape(self):
        raise NotImplementedError(f"{type(self).__name__} does not define state_shape")


class _FusedCell(RNNCellBase):
    """A built-in cell: its parameters, and the ``rnn`` op mode that runs it."""

    _gates = 1
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        who = type(self).__name__
        self.input_size = integer(input_size, "input_size", who, minimum=1)
        self.hidden_size = integer(hidden_size, "hidden_size", who, minimum=1)
        k = 1.0 / math.sqrt(self.hidden_size)
        init = Uniform(-k, k)
        g = self._gates * self.hidden_size
        self.weight_ih = self.create_parameter([g, self.input_size], weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter([g, self.hidden_size], weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter([g], bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter([g], bias_hh_attr, is_bias=True,
                                             default_initializer=init)

    def _run(self, inputs, h0, c0, sequence_length=None, is_reverse=False, time_major=False):
        """The ``rnn`` op over ``inputs`` (one step when 2-D): ``(out, last_h, last_c)``."""
        who = type(self).__name__
        check_float_input(inputs, who)
        if inputs.shape[-1] not in (-1, self.input_size):
            raise ValueError(f"{who}: the input's last dim must be input_size="
                             f"{self.input_size}, got input shape {_shape(inputs)}")
        for arg, s in (("initial hidden state", h0), ("initial cell state", c0)):
            if s is not None and (len(s.shape) != 2 or s.shape[-1] not in (-1, self.hidden_size)):
                raise ValueError(f"{who}: the {arg} (states) must be [batch_size, hidden_size="
                                 f"{self.hidden_size}], got shape {_shape(s)}")
        out, last_h, last_c, _ = apply(
            "rnn", [inputs, h0, c0, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                    sequence_length, None],
            {"mode": self._mode, "is_reverse": bool(is_reverse), "time_major": bool(time_major)})
        return out, last_h, last_c

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(_FusedCell):
    """``h = act(x @ weight_ih^T + bias_ih + h @ weight_hh^T + bias_hh)``, ``activation``
    ``'tanh'`` or ``'relu'``. ``forward(inputs, states=None) -> (h, h)``."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: 'activation' must be 'tanh' or 'relu', got "
                             f"{activation!r}")
        self.activation = activation
        self._mode = "RNN_TANH" if activation == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, name)

    def forward(self, inputs, states=None):
        out, _, _ = self._run(inputs, states, None)
        return out, out


class LSTMCell(_FusedCell):
    """Gates ``[i, f, g, o]``: ``c = f * c + i * g``, ``h = o * tanh(c)``.
    ``forward(inputs, states=None)`` with ``states = (h, c)`` returns ``(h, (h, c))``."""

    _gates = 4
    _mode = "LSTM"

    def forward(self, inputs, states=None):
        h0, c0 = (None, None) if states is None else _pair_states(states, "LSTMCell")
        out, _, last_c = self._run(inputs, h0, c0)
        return out, (out, last_c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(_FusedCell):
    """Gates ``[r, z, c]``: ``c = tanh(x_c + r * (h @ W_hc^T + b_hc))``,
    ``h = z * h + (1 - z) * c``. ``forward(inputs, states=None) -> (h, h)``."""

    _gates = 3
    _mode = "GRU"

    def forward(self, inputs, states=None):
        out, _, _ = self._run(inputs, states, None)
        return out, out


def _pair_states(states, who):
    if not isinstance(states, (list, tuple)) or len(states) != 2:
        raise TypeError(f"{who}: states must be a pair (h, c) of [batch_size, hidden_size] "
                        f"tensors, got {type(states).__name__}")
    return states[0], states[1]


def _flatten(s):
    if isinstance(s, (list, tuple)):
        return [a for x in s for a in _flatten(x)]
    return [s]


def _pack(structure, flat):
    it = iter(flat)

    def go(s):
        if isinstance(s, (list, tuple)):
            return type(s)(go(x) for x in s)
        return next(it)

    return go(structure)


class RNN(Layer):
    """Runs ``cell`` over the time steps of ``inputs`` (``[batch, time, ...]``, or
    ``[time, batch, ...]`` with ``time_major``), last step first with ``is_reverse``.
    ``forward(inputs, initial_states=None, sequence_length=None) -> (outputs,
    final_states)``."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(f"RNN: 'cell' must be a cell Layer, got {type(cell).__name__}")
        self.cell = cell
        self.is_reverse = bool(is_reverse)
        self.time_major = bool(time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if len(inputs.shape) != 3:
            raise ValueError(f"RNN: inputs must be 3-D ([batch, time, input_size], or "
                             f"[time, batch, input_size] with time_major=True), got shape "
                             f"{_shape(inputs)}")
        _check_lengths(sequence_length, inputs, self.time_major, "RNN")
        if isinstance(self.cell, _FusedCell) and not kwargs:
            return _fused(self.cell, inputs, initial_states, sequence_length, self.is_reverse,
                          self.time_major)
        return self._step_by_step(inputs, initial_states, sequence_length, **kwargs)

    def _step_by_step(self, inputs, states, sequence_length, **kwargs):
        t_axis = 0 if self.time_major else 1
        steps = int(inputs.shape[t_axis])
        if steps < 0:
            raise ValueError(f"RNN: a user-defined cell runs step by step and needs a known "
                             f"time dim; got input shape {_shape(inputs)}")
        xs = apply("unstack", [inputs], {"axis": t_axis, "num": steps})
        if states is None:
            states = self.cell.get_initial_states(batch_ref=xs[0])
        mask_dtype = inputs.dtype
        outs = [None] * steps
        order = range(steps - 1, -1, -1) if self.is_reverse else range(steps)
        for t in order:
            out, new_states = self.cell(xs[t], states, **kwargs)
            if sequence_length is not None:
                m = apply("less_than", [float(t), apply("cast", [sequence_length],
                                                        {"out_dtype": "float32"})])
                m = apply("unsqueeze", [apply("cast", [m], {"out_dtype": dtype_name(mask_dtype)})],
                          {"axes": [1]})
                keep = apply("scale", [m], {"scale": -1.0, "bias": 1.0})
                new_flat = [apply("elementwise_add", [apply("elementwise_mul", [n, m]),
                                                      apply("elementwise_mul", [o, keep])])
                            for n, o in zip(_flatten(new_states), _flatten(states))]
                new_states = _pack(new_states, new_flat)
                out = apply("elementwise_mul", [out, m])
            outs[t] = out
            states = new_states
        return apply("stack", [outs], {"axis": t_axis}), states


def _check_lengths(sequence_length, inputs, time_major, who):
    if sequence_length is None:
        return
    shape = _shape(sequence_length)
    batch = inputs.shape[1 if time_major else 0]
    if len(shape) != 1 or (batch != -1 and shape[0] not in (-1, batch)):
        raise ValueError(f"{who}: sequence_length must be [batch_size] = [{batch}] for inputs "
                         f"of shape {_shape(inputs)}, got shape {shape}")


def _fused(cell, inputs, initial_states, sequence_length, is_reverse, time_major):
    h0 = c0 = None
    if initial_states is not None:
        if isinstance(cell, LSTMCell):
            h0, c0 = _pair_states(initial_states, "RNN (LSTMCell)")
        else:
            h0 = initial_states
    out, last_h, last_c = cell._run(inputs, h0, c0, sequence_length, is_reverse, time_major)
    final = (last_h, last_c) if isinstance(cell, LSTMCell) else last_h
    return out, final


class BiRNN(Layer):
    """``cell_fw`` forward and ``cell_bw`` backward over the same inputs; outputs concatenated
    on the last dim. ``forward(inputs, initial_states=None, sequence_length=None)`` with
    ``initial_states = (states_fw, states_bw)`` returns ``(outputs, (final_fw, final_bw))``."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = bool(time_major)
        # the wrappers share the cells; only the cells are registered (Paddle's keys)
        object.__setattr__(self, "_fw", RNN(cell_fw, False, time_major))
        object.__setattr__(self, "_bw", RNN(cell_bw, True, time_major))

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            s_fw = s_bw = None
        else:
            if not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
                raise TypeError("BiRNN: initial_states must be a pair (states_fw, states_bw)")
            s_fw, s_bw = initial_states
        out_fw, f_fw = self._fw(inputs, s_fw, sequence_length, **kwargs)
        out_bw, f_bw = self._bw(inputs, s_bw, sequence_length, **kwargs)
        return apply("concat", [[out_fw, out_bw]], {"axis": -1}), (f_fw, f_bw)


_DIRECTIONS = {"forward": 1, "bidirect": 2, "bidirectional": 2}


class _RNNBase(LayerList):
    """``num_layers`` stacked ``RNN`` / ``BiRNN`` wrappers with dropout between layers."""

    _cell = None

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None, **cell_kwargs):
        super().__init__()
        who = type(self).__name__
        self.input_size = integer(input_size, "input_size", who, minimum=1)
        self.hidden_size = integer(hidden_size, "hidden_size", who, minimum=1)
        self.num_layers = integer(num_layers, "num_layers", who, minimum=1)
        if direction not in _DIRECTIONS:
            raise ValueError(f"{who}: 'direction' must be one of {sorted(_DIRECTIONS)}, got "
                             f"{direction!r}")
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"{who}: 'dropout' must be in [0, 1], got {dropout}")
        self.direction = direction
        self.num_directions = _DIRECTIONS[direction]
        self.time_major = bool(time_major)
        self.dropout = float(dropout)
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for layer in range(self.num_layers):
            isz = self.input_size if layer == 0 else self.hidden_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(self._cell(isz, self.hidden_size, **attrs), False, time_major))
            else:
                self.append(BiRNN(self._cell(isz, self.hidden_size, **attrs),
                                  self._cell(isz, self.hidden_size, **attrs), time_major))

    def _split_states(self, initial_states, inputs):
        """Per (layer, direction) initial states from ``[num_layers * num_directions, batch,
        hidden]`` tensors (a pair for LSTM); None entries when absent."""
        who = type(self).__name__
        n = self.num_layers * self.num_directions
        if initial_states is None:
            return [None] * n
        is_lstm = self._cell is LSTMCell
        parts = _pair_states(initial_states, who) if is_lstm else (initial_states,)
        batch = inputs.shape[1 if self.time_major else 0]
        split = []
        for p in parts:
            s = _shape(p)
            if len(s) != 3 or s[0] not in (-1, n) or s[2] not in (-1, self.hidden_size) or (
                    batch != -1 and s[1] not in (-1, batch)):
                raise ValueError(f"{who}: initial_states must be [num_layers * num_directions, "
                                 f"batch_size, hidden_size] = [{n}, {batch}, {self.hidden_size}]"
                                 f" for inputs of shape {_shape(inputs)}, got shape {s}")
            split.append(apply("unstack", [p], {"axis": 0, "num": n}))
        if is_lstm:
            return list(zip(split[0], split[1]))
        return split[0]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        who = type(self).__name__
        if len(inputs.shape) != 3:
            raise ValueError(f"{who}: inputs must be 3-D ([batch, time, input_size], or "
                             f"[time, batch, input_size] with time_major=True), got shape "
                             f"{_shape(inputs)}")
        _check_lengths(sequence_length, inputs, self.time_major, who)
        states = self._split_states(initial_states, inputs)
        finals = []
        x = inputs
        for k, layer in enumerate(self):
            if self.num_directions == 1:
                x, f = _fused(layer.cell, x, states[k], sequence_length, False, self.time_major)
                finals.append(f)
            else:
                o_fw, f_fw = _fused(layer.cell_fw, x, states[2 * k], sequence_length, False,
                                    self.time_major)
                o_bw, f_bw = _fused(layer.cell_bw, x, states[2 * k + 1], sequence_length, True,
                                    self.time_major)
                x = apply("concat", [[o_fw, o_bw]], {"axis": -1})
                finals += [f_fw, f_bw]
            if self.dropout > 0 and k < self.num_layers - 1:
                x = apply("dropout", [x], {"dropout_prob": self.dropout,
                                           "is_test": not self.training,
                                           "dropout_implementation": "upscale_in_train"})[0]
        if self._cell is LSTMCell:
            final = (apply("stack", [[f[0] for f in finals]], {"axis": 0}),
                     apply("stack", [[f[1] for f in finals]], {"axis": 0}))
        else:
            final = apply("stack", [finals], {"axis": 0})
        return x, final

    def extra_repr(self):
        return (f"{self.input_size}, {self.hidden_size}, num_layers={self.num_layers}, "
                f"direction={self.direction!r}")


class SimpleRNN(_RNNBase):
    """Stacked ``SimpleRNNCell`` layers; ``activation`` ``'tanh'`` (default) or ``'relu'``."""

    _cell = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, name,
                         activation=activation)


class LSTM(_RNNBase):
    """Stacked ``LSTMCell`` layers; states are ``(h, c)``, each ``[num_layers *
    num_directions, batch, hidden]``."""

    _cell = LSTMCell


class GRU(_RNNBase):
    """Stacked ``GRUCell`` layers."""

    _cell = GRUCell


# -- fluid 1.x units ---------------------------------------------------------------------------
_UNIT_ACTS = ("sigmoid", "tanh", "relu", "identity")


def _unit_act(x, act, who, arg):
    if act not in _UNIT_ACTS:
        raise ValueError(f"{who}: '{arg}' must be one of {list(_UNIT_ACTS)}, got {act!r}")
    return x if act == "identity" else apply(act, [x])


def _cols(x, start, stop):
    return apply("slice", [x], {"axes": [1], "starts": [start], "ends": [stop]})


def _mm(a, b):
    return apply("matmul", [a, b])


def _add(a, b):
    return apply("elementwise_add", [a, b])


def _mul(a, b):
    return apply("elementwise_mul", [a, b])


def _sub(a, b):
    return apply("elementwise_sub", [a, b])


def _check_2d(t, arg, who, cols):
    s = _shape(t)
    if len(s) != 2 or s[1] not in (-1, cols):
        raise ValueError(f"{who}: '{arg}' must be [batch_size, {cols}], got shape {s}")


class GRUUnit(Layer):
    """One step of fluid's GRU on an already projected input (``fluid.dygraph.GRUUnit``).

    ``size`` is ``3 * hidden``; ``forward(input [batch, 3 * hidden], hidden [batch, hidden])``
    returns ``(new_hidden, reset_hidden_prev, gate)``. Gates ``[u, r, c]`` (update, reset,
    candidate): ``u, r = gate_act(x_ur + h @ W_ur)``, ``c = act(x_c + (r * h) @ W_c)``, and
    ``new_hidden = h + u * (c - h)`` (``origin_mode``: ``u * h + (1 - u) * c``). ``weight``
    ``[hidden, 3 * hidden]`` is Paddle's buffer: its first ``2 * hidden * hidden`` values are
    ``W_ur`` ``[hidden, 2 * hidden]``, the rest ``W_c`` ``[hidden, hidden]``; ``bias`` is
    ``[1, 3 * hidden]``."""

    def __init__(self, size, param_attr=None, bias_attr=None, activation="tanh",
                 gate_activation="sigmoid", origin_mode=False, dtype=None):
        super().__init__(dtype=dtype)
        size = integer(size, "size", "GRUUnit", minimum=3)
        if size % 3:
            raise ValueError(f"GRUUnit: 'size' must be 3 * hidden_size, got {size}")
        for arg, a in (("activation", activation), ("gate_activation", gate_activation)):
            if a not in _UNIT_ACTS:
                raise ValueError(f"GRUUnit: '{arg}' must be one of {list(_UNIT_ACTS)}, got "
                                 f"{a!r}")
        self._hidden = size // 3
        self._act, self._gate_act, self._origin = activation, gate_activation, bool(origin_mode)
        self.weight = self.create_parameter([self._hidden, size], param_attr, dtype)
        self.bias = self.create_parameter([1, size], bias_attr, dtype, is_bias=True)

    def forward(self, input, hidden):
        h = self._hidden
        _check_2d(input, "input", "GRUUnit", 3 * h)
        _check_2d(hidden, "hidden", "GRUUnit", h)
        g = input if self.bias is None else _add(input, self.bias)
        flat = apply("reshape", [self.weight], {"shape": [-1]})
        w_ur = apply("reshape", [apply("slice", [flat], {"axes": [0], "starts": [0],
                                                         "ends": [2 * h * h]})],
                     {"shape": [h, 2 * h]})
        w_c = apply("reshape", [apply("slice", [flat], {"axes": [0], "starts": [2 * h * h],
                                                        "ends": [3 * h * h]})],
                    {"shape": [h, h]})
        ur = _unit_act(_add(_cols(g, 0, 2 * h), _mm(hidden, w_ur)), self._gate_act, "GRUUnit",
                       "gate_activation")
        u, r = _cols(ur, 0, h), _cols(ur, h, 2 * h)
        r_h = _mul(r, hidden)
        c = _unit_act(_add(_cols(g, 2 * h, 3 * h), _mm(r_h, w_c)), self._act, "GRUUnit",
                      "activation")
        if self._origin:
            new_h = _add(_mul(u, hidden), _mul(apply("scale", [u], {"scale": -1.0, "bias": 1.0}),
                                               c))
        else:
            new_h = _add(hidden, _mul(u, _sub(c, hidden)))
        return new_h, r_h, apply("concat", [[u, r, c]], {"axis": 1})


class _BasicUnit(Layer):
    """Shared by ``BasicLSTMUnit`` / ``BasicGRUUnit``: parameters are created on the first
    call (their input size comes from the input), or at once when ``input_size`` is given
    (needed when the first call happens inside a ``declarative`` function)."""

    def __init__(self, name_scope, hidden_size, param_attr, bias_attr, gate_activation,
                 activation, dtype, input_size):
        super().__init__(name_scope, dtype=dtype)
        who = type(self).__name__
        self._hidden_size = integer(hidden_size, "hidden_size", who, minimum=1)
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._gate_activation = gate_activation or "sigmoid"
        self._activation = activation or "tanh"
        for arg, a in (("gate_activation", self._gate_activation),
                       ("activation", self._activation)):
            if a not in _UNIT_ACTS:
                raise ValueError(f"{who}: '{arg}' must be one of {list(_UNIT_ACTS)}, got {a!r}")
        self._input_size = None
        if input_size is not None:
            self._build(integer(input_size, "input_size", who, minimum=1))

    def _ensure(self, input):
        who = type(self).__name__
        s = _shape(input)
        if len(s) != 2 or s[1] < 0:
            raise ValueError(f"{who}: 'input' must be [batch_size, input_size] with a known "
                             f"input_size, got shape {s}")
        if self._input_size is None:
            self._build(s[1])
        elif s[1] != self._input_size:
            raise ValueError(f"{who}: 'input' must be [batch_size, {self._input_size}] (the "
                             f"size the parameters were built for), got shape {s}")


class BasicLSTMUnit(_BasicUnit):
    """fluid's ``BasicLSTMUnit``: ``[i, j, f, o] = concat(input, h) @ weight + bias``;
    ``c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``, ``h = tanh(c) * sigmoid(o)``
    (the activations configurable). ``forward(input, pre_hidden, pre_cell) -> (h, c)``;
    ``weight`` ``[input_size + hidden, 4 * hidden]``, ``bias`` ``[4 * hidden]``."""

    def __init__(self, name_scope=None, hidden_size=None, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, forget_bias=1.0, dtype=None,
                 input_size=None):
        self._forget_bias = float(forget_bias)
        super().__init__(name_scope, hidden_size, param_attr, bias_attr, gate_activation,
                         activation, dtype, input_size)

    def _build(self, input_size):
        h = self._hidden_size
        self._input_size = input_size
        self._weight = self.create_parameter([input_size + h, 4 * h], self._param_attr)
        self._bias = self.create_parameter([4 * h], self._bias_attr, is_bias=True)

    def forward(self, input, pre_hidden, pre_cell):
        self._ensure(input)
        h = self._hidden_size
        _check_2d(pre_hidden, "pre_hidden", "BasicLSTMUnit", h)
        _check_2d(pre_cell, "pre_cell", "BasicLSTMUnit", h)
        gates = _mm(apply("concat", [[input, pre_hidden]], {"axis": 1}), self._weight)
        if self._bias is not None:
            gates = _add(gates, self._bias)
        ga, act = self._gate_activation, self._activation
        i, j, f, o = (_cols(gates, k * h, (k + 1) * h) for k in range(4))
        f = apply("scale", [f], {"scale": 1.0, "bias": self._forget_bias})
        new_c = _add(_mul(pre_cell, _unit_act(f, ga, "BasicLSTMUnit", "gate_activation")),
                     _mul(_unit_act(i, ga, "BasicLSTMUnit", "gate_activation"),
                          _unit_act(j, act, "BasicLSTMUnit", "activation")))
        new_h = _mul(_unit_act(new_c, act, "BasicLSTMUnit", "activation"),
                     _unit_act(o, ga, "BasicLSTMUnit", "gate_activation"))
        return new_h, new_c


class BasicGRUUnit(_BasicUnit):
    """fluid's ``BasicGRUUnit``: ``[r, u] = gate_act(concat(input, h) @ gate_weight +
    gate_bias)``, ``c = act(concat(input, r * h) @ candidate_weight + candidate_bias)``,
    ``h = u * h + (1 - u) * c``. ``forward(input, pre_hidden) -> h``."""

    def __init__(self, name_scope=None, hidden_size=None, param_attr=None, bias_attr=None,
                 gate_activation=None, activation=None, dtype=None, input_size=None):
        super().__init__(name_scope, hidden_size, param_attr, bias_attr, gate_activation,
                         activation, dtype, input_size)

    def _build(self, input_size):
        h = self._hidden_size
        self._input_size = input_size
        self._gate_weight = self.create_parameter([input_size + h, 2 * h], self._param_attr)
        self._candidate_weight = self.create_parameter([input_size + h, h], self._param_attr)
        self._gate_bias = self.create_parameter([2 * h], self._bias_attr, is_bias=True)
        self._candidate_bias = self.create_parameter([h], self._bias_attr, is_bias=True)

    def forward(self, input, pre_hidden):
        self._ensure(input)
        h = self._hidden_size
        _check_2d(pre_hidden, "pre_hidden", "BasicGRUUnit", h)
        g = _mm(apply("concat", [[input, pre_hidden]], {"axis": 1}), self._gate_weight)
        if self._gate_bias is not None:
            g = _add(g, self._gate_bias)
        g = _unit_act(g, self._gate_activation, "BasicGRUUnit", "gate_activation")
        r, u = _cols(g, 0, h), _cols(g, h, 2 * h)
        c = _mm(apply("concat", [[input, _mul(r, pre_hidden)]], {"axis": 1}),
                self._candidate_weight)
        if self._candidate_bias is not None:
            c = _add(c, self._candidate_bias)
        c = _unit_act(c, self._activation, "BasicGRUUnit", "activation")
        return _add(_mul(u, pre_hidden),
                    _mul(apply("scale", [u], {"scale": -1.0, "bias": 1.0}), c))

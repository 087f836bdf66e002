"""Functional API: fluid's ``dynamic_lstm`` / ``dynamic_gru`` over variable-length batches.

fluid runs these over LoD tensors; here a batch of sequences is a padded tensor
``[batch, time, gates * hidden]`` (the projected gates, as fluid expects them) plus an int
``length`` ``[batch]`` (None: the lengths the input carries, e.g. from a ``lod_level=1``
``data`` variable, else every sequence fills the time dim); the outputs carry the lengths.
Padded steps give zero hidden outputs and leave the state unchanged. Each call is one ``rnn``
op (see ``core/ops/rnn.py``); the weights keep fluid's layouts, so parameters carry over:

* ``dynamic_lstm``: ``weight`` ``[hidden, 4 * hidden]`` and ``bias`` ``[1, 4 * hidden]`` with
  fluid's gate order ``[c, i, f, o]`` (candidate, input, forget, output). With peepholes
  (fluid's default ``use_peepholes=True``) the bias is ``[1, 7 * hidden]``: the gate biases
  followed by the diagonal peephole weights ``w_ic``, ``w_fc``, ``w_oc``; the input and forget
  gates see the previous cell state (``i = sigmoid(a_i + w_ic * c_prev)``, likewise ``f``) and
  the output gate the new one (``o = sigmoid(a_o + w_oc * c)``). Without a bias
  (``bias_attr=False``) there are no peephole weights either.
* ``dynamic_gru``: ``weight`` ``[hidden, 3 * hidden]`` (Paddle's buffer: update/reset weights
  then candidate weights) and ``bias`` ``[1, 3 * hidden]``, gates ``[u, r, c]``.
"""
from .. import unique_name
from ..checks import FLOATS, check_type, check_variable
from ..dispatch import apply
from ..dtypes import dtype_name
from ..mode import in_dynamic_mode
from ..nn.param import create_parameter
from ..param_attr import ParamAttr
from ..static.lod import lengths_of, set_lengths

__all__ = ["dynamic_gru", "dynamic_lstm"]


def _check_input(input, length, size, gates, api):
    check_variable(input, "input", api, FLOATS)
    s = [int(d) for d in input.shape]
    if len(s) != 3 or s[2] not in (-1, size):
        raise ValueError(f"{api}(): 'input' must be the padded projected gates [batch, time, "
                         f"size={size}], got shape {s}")
    if size % gates:
        raise ValueError(f"{api}(): 'size' must be {gates} * hidden_size, got {size}")
    if length is not None:
        check_variable(length, "length", api, ("int32", "int64"))
        ls = [int(d) for d in length.shape]
        if len(ls) != 1 or (s[0] != -1 and ls[0] not in (-1, s[0])):
            raise ValueError(f"{api}(): 'length' must be [batch_size] = [{s[0]}] for input "
                             f"shape {s}, got shape {ls}")
        if in_dynamic_mode() and s[1] >= 0:
            values = length.numpy()
            if values.size and (values.min() < 0 or values.max() > s[1]):
                raise ValueError(f"{api}(): 'length' values must lie in [0, {s[1]}] (the time "
                                 f"dim of 'input' {s}), got {values.tolist()}")


def _check_state(state, arg, hidden, api):
    if state is None:
        return
    check_variable(state, arg, api, FLOATS)
    s = [int(d) for d in state.shape]
    if len(s) != 2 or s[1] not in (-1, hidden):
        raise ValueError(f"{api}(): '{arg}' must be [batch_size, hidden_size={hidden}], got "
                         f"shape {s}")


def _acts(api, **given):
    for arg, (value, want) in given.items():
        if value != want:
            raise ValueError(f"{api}(): only {arg}={want!r} is implemented, got {value!r}")


def _params(api, name, hidden, gates, dtype, param_attr, bias_attr, bias_size):
    layer = name or unique_name.generate(api)
    weight = create_parameter([hidden, gates * hidden], dtype_name(dtype), attr=param_attr,
                              prefix=f"{layer}.w")
    bias = None
    if ParamAttr._to_attr(bias_attr) is not False:
        bias = create_parameter([1, bias_size], dtype_name(dtype), attr=bias_attr,
                                is_bias=True, prefix=f"{layer}.b")
    return weight, bias


def _cols(x, axis, start, stop):
    return apply("slice", [x], {"axes": [axis], "starts": [start], "ends": [stop]})


def _cifo_to_ifco(x, axis, hidden):
    """Reorder fluid's LSTM gate blocks ``[c, i, f, o]`` to the kernel's ``[i, f, c, o]``."""
    c, i, f, o = (_cols(x, axis, k * hidden, (k + 1) * hidden) for k in range(4))
    return apply("concat", [[i, f, c, o]], {"axis": axis})


def dynamic_lstm(input, size, h_0=None, c_0=None, param_attr=None, bias_attr=None,
                 use_peepholes=True, is_reverse=False, gate_activation="sigmoid",
                 cell_activation="tanh", candidate_activation="tanh", dtype="float32",
                 name=None, length=None):
    """fluid's LSTM over a padded batch: ``(hidden, cell)``, each ``[batch, time, hidden]``.

    ``cell`` holds the cell state after each step (carried unchanged over padded steps) and
    is not differentiable (it comes from the op's saved values; train through ``hidden``)."""
    api = "dynamic_lstm"
    check_type(size, "size", int, api)
    length = lengths_of(input) if length is None else length
    _check_input(input, length, size, 4, api)
    hidden = size // 4
    _check_state(h_0, "h_0", hidden, api)
    _check_state(c_0, "c_0", hidden, api)
    _acts(api, gate_activation=(gate_activation, "sigmoid"),
          cell_activation=(cell_activation, "tanh"),
          candidate_activation=(candidate_activation, "tanh"))
    peepholes = bool(use_peepholes)
    weight, bias = _params(api, name, hidden, 4, dtype, param_attr, bias_attr,
                           (7 if peepholes else 4) * hidden)
    w_hh = apply("transpose", [_cifo_to_ifco(weight, 1, hidden)], {"axis": [1, 0]})
    x = _cifo_to_ifco(input, 2, hidden)
    b = peep = None
    if bias is not None:
        flat = apply("reshape", [bias], {"shape": [-1]})
        b = _cifo_to_ifco(_cols(flat, 0, 0, 4 * hidden), 0, hidden)
        if peepholes:
            peep = _cols(flat, 0, 4 * hidden, 7 * hidden)
    out, _, _, reserve = apply("rnn", [x, h_0, c_0, None, w_hh, b, None, length, peep],
                               {"mode": "LSTM", "is_reverse": bool(is_reverse)})
    cell = apply("transpose", [_cols(reserve, 2, 4 * hidden, 5 * hidden)], {"axis": [1, 0, 2]})
    cell.stop_gradient = True
    if length is None:
        return out, cell
    return set_lengths(out, length), set_lengths(cell, length)


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False,
                gate_activation="sigmoid", candidate_activation="tanh", h_0=None,
                origin_mode=False, name=None, length=None, dtype="float32"):
    """fluid's GRU over a padded batch (``size`` is ``hidden``; ``input`` holds the projected
    gates ``[batch, time, 3 * size]``): the hidden states ``[batch, time, size]``."""
    api = "dynamic_gru"
    check_type(size, "size", int, api)
    length = lengths_of(input) if length is None else length
    _check_input(input, length, 3 * size, 3, api)
    _check_state(h_0, "h_0", size, api)
    _acts(api, gate_activation=(gate_activation, "sigmoid"),
          candidate_activation=(candidate_activation, "tanh"))
    weight, bias = _params(api, name, size, 3, dtype, param_attr, bias_attr, 3 * size)
    b = None if bias is None else apply("reshape", [bias], {"shape": [3 * size]})
    out = apply("rnn", [input, h_0, None, None, weight, b, None, length, None],
                {"mode": "FLUID_GRU", "is_reverse": bool(is_reverse),
                 "origin_mode": bool(origin_mode)})
    return out[0] if length is None else set_lengths(out[0], length)

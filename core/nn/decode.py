"""Decoding (``core.nn``): the ``Decoder`` interface, ``BeamSearchDecoder`` and
``dynamic_decode``, with PaddlePaddle 2.x semantics (``paddle.nn.BeamSearchDecoder``,
``paddle.nn.dynamic_decode``).

``dynamic_decode`` runs ``decoder.step`` until every sequence (every beam) has finished or
``max_step_num`` is passed. Eagerly it is a Python loop that looks at the finished flags after
each step. In static mode (a Program being built, or code inside ``declarative``) the first
step is traced once before the loop (it fixes the outputs' dtypes and shapes) and the rest of
the decode is ONE ``while`` operator (``core.layers.while_loop``) whose loop variables are the
decoder's inputs and states, the finished flags, the lengths and one tensor array per output;
its condition is "some sequence not finished, and the step count not past ``max_step_num``".
Both paths run the same step code, so they give the same results. A state may change shape
from step to step (a ``MultiHeadAttention.Cache`` grows by one position): the loop retraces
with that dim unknown, and the beam search reshapes between ``[batch, beam_size, ...]`` and
``[batch * beam_size, ...]`` with its run-time size.
"""
import collections

import numpy as np

from .. import layers as L
from ..checks import check_int
from ..mode import in_dynamic_mode
from ..static import structure as _st
from ..static.variable import Variable

__all__ = ["BeamSearchDecoder", "Decoder", "dynamic_decode"]


def _map(fn, *structs):
    """``fn`` applied leaf by leaf to equally nested structures (tuples, lists, dicts)."""
    leaves, tree = _st.flatten(structs[0])
    others = [_st.flatten(s)[0] for s in structs[1:]]
    return _st.pack(tree, [fn(*xs) for xs in zip(leaves, *others)])


def _dims(x, start):
    """``x.shape[start:]`` as reshape entries: the known dims as ints, an unknown one (a
    static dim that varies, e.g. a state that grows each step of a decode loop) as its
    run-time size."""
    out, shape = [], None
    for k, d in enumerate(x.shape[start:], start):
        if d >= 0:
            out.append(int(d))
            continue
        shape = L.shape(x) if shape is None else shape
        out.append(L.slice(shape, axes=[0], starts=[k], ends=[k + 1]))
    return out


class Decoder:
    """The interface ``dynamic_decode`` drives (``paddle.nn.decode.Decoder``).

    ``initialize(inits)`` returns ``(initial_inputs, initial_states, finished)``;
    ``step(time, inputs, states, **kwargs)`` returns ``(outputs, next_states, next_inputs,
    finished)``; ``finalize(outputs, final_states, sequence_lengths)`` (optional) post-processes
    the stacked, time-major outputs. ``tracks_own_finished`` True means ``step`` keeps finished
    sequences finished itself (and its states carry ``lengths``).
    """

    def initialize(self, inits):
        raise NotImplementedError(f"{type(self).__name__}.initialize is not implemented")

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.step is not implemented")

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError(f"{type(self).__name__}.finalize is not implemented")

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over a cell (``paddle.nn.BeamSearchDecoder``).

    ``cell(inputs, states)`` returns ``(outputs, new_states)`` for ``batch * beam_size`` rows;
    ``output_fn`` turns its outputs into logits ``[.., vocab_size]``; ``embedding_fn`` turns
    ids into the next inputs (without it the ids themselves are the inputs). Initial states
    are ``[batch, ...]``; the decoder tiles them to every beam. Each step outputs
    ``OutputWrapper(scores, predicted_ids, parent_ids)``, each ``[batch, beam_size]``;
    ``finalize`` turns the stacked ids into full sequences with :func:`gather_tree`. A finished
    beam only extends with ``end_token`` at no cost, so it keeps its score.
    """

    OutputWrapper = collections.namedtuple("OutputWrapper",
                                           ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper",
                                          ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        api = "BeamSearchDecoder()"
        if not callable(cell):
            raise TypeError(f"{api}: argument 'cell' must be callable (a Layer with "
                            f"forward(inputs, states)), got {type(cell).__name__}")
        self.cell = cell
        self.start_token = check_int(start_token, "start_token", api, minimum=0)
        self.end_token = check_int(end_token, "end_token", api, minimum=0)
        self.beam_size = check_int(beam_size, "beam_size", api, minimum=1)
        for arg, fn in (("embedding_fn", embedding_fn), ("output_fn", output_fn)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{api}: argument '{arg}' must be callable or None, got "
                                f"{type(fn).__name__}")
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.kinf = 1e9

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """``x`` ``[batch, ...]`` repeated ``beam_size`` times per entry: ``[batch * beam_size,
        ...]``, entry ``b`` at rows ``b * beam_size`` to ``(b + 1) * beam_size - 1`` (how
        encoder outputs reach the cell of a beam search)."""
        api = "BeamSearchDecoder.tile_beam_merge_with_batch()"
        beam_size = check_int(beam_size, "beam_size", api, minimum=1)
        if not hasattr(x, "shape") or not len(x.shape):
            raise ValueError(f"{api}: argument 'x' must be a tensor of rank >= 1, got "
                             f"{getattr(x, 'shape', type(x).__name__)}")
        return L.reshape(BeamSearchDecoder._tile(x, beam_size), [-1] + _dims(x, 1))

    @staticmethod
    def _tile(x, beam_size):
        x = L.unsqueeze(x, [1])
        return L.expand(x, [1, beam_size] + [1] * (len(x.shape) - 2))

    def _split_batch_beams(self, x):
        return L.reshape(x, [-1, self.beam_size] + _dims(x, 1))

    def _merge_batch_beams(self, x):
        return L.reshape(x, [-1] + _dims(x, 2))

    def _batch_beam(self, like, dtype, value):
        """A ``[batch, beam_size]`` tensor of ``value`` (batch taken from ``like``)."""
        col = L.slice(L.reshape(like, [0, -1]), axes=[1], starts=[0], ends=[1])
        zeros = L.cast(L.zeros_like(col), dtype)
        return L.expand(zeros, [1, self.beam_size]) + np.asarray(value).astype(dtype)

    def initialize(self, initial_cell_states):
        """``(initial_inputs, StateWrapper, finished)`` for cell states ``[batch, ...]``."""
        leaves, _ = _st.flatten(initial_cell_states)
        if not leaves or not all(hasattr(v, "shape") and len(v.shape) >= 1 for v in leaves):
            raise ValueError("BeamSearchDecoder.initialize(): 'initial_cell_states' must hold "
                             "tensors of shape [batch, ...]")
        batch = {int(v.shape[0]) for v in leaves if v.shape[0] >= 0}
        if len(batch) > 1:
            raise ValueError(f"BeamSearchDecoder.initialize(): the initial cell states have "
                             f"different batch sizes: {[list(v.shape) for v in leaves]}")
        states = _map(lambda x: self._tile(x, self.beam_size), initial_cell_states)
        first = np.full(self.beam_size, -self.kinf, np.float32)
        first[0] = 0.0
        log_probs = self._batch_beam(leaves[0], "float32", first)
        finished = L.cast(self._batch_beam(leaves[0], "int64", 0), "bool")
        lengths = self._batch_beam(leaves[0], "int64", 0)
        inputs = self._batch_beam(leaves[0], "int64", self.start_token)
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(states, log_probs, finished, lengths), finished

    def _mask_probs(self, probs, finished):
        """A finished beam's step log-probabilities: 0 for ``end_token``, ``-kinf`` else."""
        vocab = probs.shape[-1]
        noend = np.full(vocab, -self.kinf, probs.dtype)
        noend[self.end_token] = 0.0
        mask = L.expand(L.unsqueeze(finished, [2]), [1, 1, vocab])
        return L.where(mask, L.zeros_like(probs) + noend, probs)

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        if len(logits.shape) != 3 or vocab < 0:
            raise ValueError(f"BeamSearchDecoder.step(): the cell's output (after output_fn) "
                             f"must be logits [batch * beam_size, vocab_size] with a known "
                             f"vocab_size, got shape {list(logits.shape)} after splitting beams")
        if self.end_token >= vocab:
            raise ValueError(f"BeamSearchDecoder: end_token={self.end_token} is not below the "
                             f"vocabulary size {vocab} of the logits")
        step_log_probs = L.log_softmax(L.cast(logits, "float32"), axis=-1)
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = step_log_probs + L.unsqueeze(beam_state.log_probs, [2])
        scores = L.reshape(log_probs, [-1, self.beam_size * vocab])
        topk_scores, topk_indices = L.topk(scores, k=self.beam_size)
        beam_indices = L.elementwise_floordiv(topk_indices, np.int64(vocab))
        token_indices = L.elementwise_mod(topk_indices, np.int64(vocab))
        gather = lambda x: L.beam_gather(x, beam_indices)  # noqa: E731
        next_cell_states = _map(gather, next_cell_states)
        next_finished = gather(beam_state.finished)
        next_lengths = gather(beam_state.lengths) + L.cast(L.logical_not(next_finished),
                                                           "int64")
        next_finished = L.logical_or(next_finished,
                                     L.equal(token_indices, np.int64(self.end_token)))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, topk_scores, next_finished, next_lengths))

    def _check_rows(self, what, struct, rows):
        for v in _st.flatten(struct)[0]:
            if not hasattr(v, "shape") or not len(v.shape):
                raise ValueError(f"BeamSearchDecoder.step(): the cell's {what} must be tensors "
                                 f"[batch * beam_size, ...], got {getattr(v, 'shape', v)!r}")
            if rows >= 0 and v.shape[0] >= 0 and v.shape[0] != rows:
                raise ValueError(f"BeamSearchDecoder.step(): the cell's {what} have "
                                 f"{v.shape[0]} rows (shape {list(v.shape)}) but its inputs "
                                 f"have {rows} = batch * beam_size rows; the cell must keep "
                                 f"the batch dim")

    def step(self, time, inputs, states, **kwargs):
        """One beam search step: ``(OutputWrapper, StateWrapper, next_inputs, finished)``."""
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        rows = _st.flatten(inputs)[0][0].shape[0]
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        self._check_rows("outputs", cell_outputs, rows)
        self._check_rows("new states", next_cell_states, rows)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        ids = output.predicted_ids
        ids.stop_gradient = True
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """The full id sequences (time-major ``[steps, batch, beam_size]``) and the states."""
        return L.gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True


def _maybe_copy(state, new_state, finished):
    """``state`` where the sequence has finished, else ``new_state``."""
    mask = L.reshape(finished, [-1] + [1] * (len(state.shape) - 1))
    mask = L.expand(mask, [1] + list(state.shape[1:]))
    return L.where(mask, state, new_state)


def _one_step(decoder, time, inputs, states, finished, lengths, impute_finished, kwargs):
    outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states,
                                                                    **kwargs)
    if decoder.tracks_own_finished:
        next_lengths = getattr(next_states, "lengths", lengths)
    else:
        next_finished = L.logical_or(next_finished, finished)
        next_lengths = lengths + L.cast(L.logical_not(finished), "int64")
        if impute_finished:
            next_states = _map(lambda a, b: _maybe_copy(a, b, finished), states, next_states)
    return outputs, next_states, next_inputs, next_finished, next_lengths


def _all_finished(finished):
    """Static: a bool ``[1]`` that is True when every entry of ``finished`` is."""
    least = L.reshape(L.reduce_min(L.cast(finished, "int32")), [1])
    return L.equal(least, L.fill_constant([1], "int32", 1))


def _check_decoder(decoder):
    for name in ("initialize", "step"):
        if not callable(getattr(decoder, name, None)):
            raise TypeError(f"dynamic_decode(): argument 'decoder' must be a Decoder (with "
                            f"initialize() and step()), got {type(decoder).__name__}")


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` until every sequence has finished (``paddle.nn.dynamic_decode``).

    At least one step runs; after each, decoding stops when every entry of the finished flags
    is True or, with ``max_step_num``, when ``max_step_num + 1`` steps have run (as
    PaddlePaddle counts). ``kwargs`` go to ``decoder.step``. Returns ``(outputs, final_states)``
    (and the int64 ``sequence_lengths`` when ``return_length``); outputs are batch-major
    ``[batch, steps, ...]`` unless ``output_time_major``, and for a ``BeamSearchDecoder`` are
    the full id sequences ``[batch, steps, beam_size]``. In static mode the loop is one
    ``while`` operator (see the module docstring).
    """
    _check_decoder(decoder)
    if max_step_num is not None:
        max_step_num = check_int(max_step_num, "max_step_num", "dynamic_decode()", minimum=0)
    inputs, states, finished = decoder.initialize(inits)
    lengths = L.cast(L.zeros_like(finished), "int64")
    leaves = _st.flatten([inputs, states, finished])[0]
    if not in_dynamic_mode() and any(isinstance(v, Variable) for v in leaves):
        outputs, states, lengths = _decode_static(decoder, inputs, states, finished, lengths,
                                                  max_step_num, impute_finished, is_test,
                                                  kwargs)
    else:
        outputs, states, lengths = _decode_eager(decoder, inputs, states, finished, lengths,
                                                 max_step_num, impute_finished, kwargs)
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = _map(lambda x: L.transpose(x, [1, 0] + list(range(2, len(x.shape)))), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _decode_eager(decoder, inputs, states, finished, lengths, max_step_num, impute, kwargs):
    steps = []
    t = 0
    while True:
        time = L.fill_constant([1], "int64", t)
        out, states, inputs, finished, lengths = _one_step(decoder, time, inputs, states,
                                                           finished, lengths, impute, kwargs)
        steps.append(_st.flatten(out))
        t += 1
        if bool(np.all(finished.numpy())):
            break
        if max_step_num is not None and t > max_step_num:
            break
    tree = steps[0][1]
    stacked = [L.stack([s[0][k] for s in steps], axis=0) for k in range(len(steps[0][0]))]
    return _st.pack(tree, stacked), states, lengths


def _decode_static(decoder, inputs, states, finished, lengths, max_step_num, impute, is_test,
                   kwargs):
    # The first step, traced before the loop, fixes the outputs' structure and dtypes (the
    # tensor arrays need them); the while op runs the others.
    t0 = L.fill_constant([1], "int64", 0)
    out, states, inputs, finished, lengths = _one_step(decoder, t0, inputs, states, finished,
                                                       lengths, impute, kwargs)
    out_leaves, out_tree = _st.flatten(out)
    arrays = [L.array_write(v, t0) for v in out_leaves]
    limit = None if max_step_num is None else L.fill_constant([1], "int64", max_step_num)

    def cond(t, inputs, states, finished, lengths, arrays):
        go = L.logical_not(_all_finished(finished))
        return go if limit is None else L.logical_and(go, L.less_equal(t, limit))

    def body(t, inputs, states, finished, lengths, arrays):
        out, states, inputs, finished, lengths = _one_step(decoder, t, inputs, states,
                                                           finished, lengths, impute, kwargs)
        leaves, tree = _st.flatten(out)
        if len(leaves) != len(arrays):
            raise ValueError(f"dynamic_decode(): decoder.step returned {_st.describe(tree)} "
                             f"after {_st.describe(out_tree)} on the first step")
        arrays = [L.array_write(v, t, a) for v, a in zip(leaves, arrays)]
        return [L.increment(t, 1, in_place=False), inputs, states, finished, lengths, arrays]

    loop_vars = [L.increment(t0, 1, in_place=False), inputs, states, finished, lengths, arrays]
    _, _, states, _, lengths, arrays = L.while_loop(cond, body, loop_vars, is_test=is_test)
    outputs = _st.pack(out_tree, [L.stack(a, axis=0) for a in arrays])
    return outputs, states, lengths


# fluid 1.8 also spells these ``fluid.layers.Decoder`` / ``BeamSearchDecoder`` /
# ``dynamic_decode``. The functional stair cannot import this one, so this module installs
# the names there when it is imported (``import core`` imports it).
for _name in ("BeamSearchDecoder", "Decoder", "dynamic_decode"):
    setattr(L, _name, globals()[_name])

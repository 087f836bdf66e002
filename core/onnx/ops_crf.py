"""ONNX mapper of ``crf_decoding`` (Viterbi decoding over a padded batch), step for step the
kernel's computation in float64:

* the forward pass is a ``Loop`` over the time steps carrying ``delta`` ``[batch, num_tags]``;
  step 0 sets ``delta = start + E[:, 0]``, every later step takes the max and the first argmax
  (``ArgMax`` with ``select_last_index=0``, numpy's tie-breaking) of
  ``delta[:, :, None] + trans`` over the previous tag, adds ``E[:, s]``, and keeps ``delta``
  unchanged for the sequences already past their length; the argmaxes (backpointers) are the
  Loop's scan output ``[time, batch, num_tags]``;
* the backtracking is a second ``Loop`` walking the steps from the last to the first carrying
  the current tag ``[batch]``: a sequence takes the best final tag at its own last step,
  writes its tag while inside its length (0 past it), and follows its backpointer
  (``GatherElements``); the scan output, reversed and transposed, is the path.

With ``time == 0`` both Loops run no iteration and the path is ``[batch, 0]``.
"""
import numpy as np

from ._deps import TensorProto, helper
from .graph import Graph
from .registry import mapper

_INT64_MIN = int(np.iinfo(np.int64).min)


def _loop_inputs(body, *carried):
    """The Loop body's inputs: iteration number, condition, then ``(name, elem type)`` pairs."""
    it, c_in = body.fresh("iter"), body.fresh("cond_in")
    inputs = [helper.make_tensor_value_info(it, TensorProto.INT64, []),
              helper.make_tensor_value_info(c_in, TensorProto.BOOL, [])]
    names = []
    for hint, elem in carried:
        name = body.fresh(hint)
        names.append(name)
        inputs.append(helper.make_tensor_value_info(name, elem, None))
    return it, c_in, names, inputs


def _outputs(*pairs):
    return [helper.make_tensor_value_info(name, elem, None) for name, elem in pairs]


@mapper("crf_decoding")
def _crf_decoding(g, v):
    f8, i8 = np.float64, np.int64
    e = g.cast(v.x("Emission"), v.var("Emission").dtype, f8)
    w = g.cast(v.x("Transition"), v.var("Transition").dtype, f8)
    length = g.reshape(g.cast(v.x("Length"), v.var("Length").dtype, i8), [-1])
    len_col = g.unsqueeze(length, [1])                                      # [n, 1]
    start = g.node("Gather", [w, g.const(0)], axis=0)                       # [k]
    end = g.node("Gather", [w, g.const(1)], axis=0)                         # [k]
    trans = g.node("Slice", [w, g.const([2]), g.const([np.iinfo(np.int64).max]),
                             g.const([0])])                                 # [k, k]
    steps = g.shape_of(e, 1, 2)                                             # [1]: time
    nk = g.node("Concat", [g.shape_of(e, 0, 1), g.shape_of(e, 2, 3)], axis=0)
    delta0 = g.node("Expand", [start, nk])                                  # [n, k]

    # -- forward pass: delta and the backpointers --------------------------------------------
    fw = Graph(g.ctx, parent=g)
    s, c_in, (delta,), inputs = _loop_inputs(fw, ("delta", TensorProto.DOUBLE))
    scores = fw.node("Add", [fw.unsqueeze(delta, [2]), trans])              # [n, k, k]
    top = fw.reduce("ReduceMax", scores, [1], False)                        # [n, k]
    arg = fw.node("ArgMax", [scores], axis=1, keepdims=0, select_last_index=0)
    first = fw.node("Equal", [s, g.const(0)])
    e_s = fw.node("Gather", [e, s], axis=1)                                 # [n, k]
    step = fw.node("Add", [fw.node("Where", [first, start, top]), e_s])
    active = fw.node("Or", [first, fw.node("Less", [s, len_col])])         # [n, 1]
    delta_next = fw.node("Where", [active, step, delta], hint="delta_next")
    back = fw.node("Where", [first, g.const(0), arg], hint="backpointer")
    c_out = fw.node("Identity", [c_in])
    body = helper.make_graph(fw.nodes, g.fresh("viterbi_forward"), inputs,
                             _outputs((c_out, TensorProto.BOOL),
                                      (delta_next, TensorProto.DOUBLE),
                                      (back, TensorProto.INT64)))
    delta_t, backs = g.node("Loop", [g.scalar(steps), ""] + [delta0], outputs=2, body=body)
    best = g.node("ArgMax", [g.node("Add", [delta_t, end])], axis=1, keepdims=0,
                  select_last_index=0)                                      # [n]

    # -- backtracking: from the last step to the first -----------------------------------------
    bw = Graph(g.ctx, parent=g)
    i, c_in, (tag,), inputs = _loop_inputs(bw, ("tag", TensorProto.INT64))
    last = bw.node("Sub", [bw.node("Sub", [g.scalar(steps), g.const(1)]), i])  # s = t - 1 - i
    tag = bw.node("Where", [bw.node("Equal", [bw.node("Sub", [length, g.const(1)]), last]),
                            best, tag])
    inside = bw.node("Less", [last, length])                                # [n]
    out = bw.node("Where", [inside, tag, g.const(0)], hint="path_step")
    back_s = bw.node("Gather", [backs, last], axis=0)                      # [n, k]
    prev = bw.squeeze(bw.node("GatherElements", [back_s, bw.unsqueeze(tag, [1])], axis=1), [1])
    tag_next = bw.node("Where", [inside, prev, tag], hint="tag_next")
    c_out = bw.node("Identity", [c_in])
    body = helper.make_graph(bw.nodes, g.fresh("viterbi_backtrack"), inputs,
                             _outputs((c_out, TensorProto.BOOL),
                                      (tag_next, TensorProto.INT64),
                                      (out, TensorProto.INT64)))
    _, rev = g.node("Loop", [g.scalar(steps), "", best], outputs=2, body=body)
    path = g.node("Slice", [rev, g.const([-1]), g.const([_INT64_MIN]), g.const([0]),
                            g.const([-1])])                                 # [t, n], in order
    # NOTE: after no iteration onnxruntime gives the scan output the shape [0]; the reshape
    # (allowzero: a 0 in the shape is a 0-sized dim) makes it [0, n].
    tn = g.node("Concat", [steps, g.shape_of(e, 0, 1)], axis=0)
    path = g.node("Reshape", [path, tn], allowzero=1)
    return {"ViterbiPath": g.node("Transpose", [path], perm=[1, 0],
                                  hint=v.out_hint("ViterbiPath"))}

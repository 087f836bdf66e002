"""ONNX mappers of the beam search ops: ``beam_gather`` is GatherElements along the beam dim
(the index broadcast over the trailing dims); ``gather_tree`` and ``beam_search_decode`` are a
``Loop`` walking the steps backwards, carrying each hypothesis' parent and scanning the ids
(and scores) it reaches, reversed afterwards; fluid's ``beam_search`` is two ``TopK``s."""
import numpy as np

from ._deps import TensorProto, helper
from .graph import onnx_dtype
from .registry import mapper


@mapper("beam_gather")
def _beam_gather(g, v):
    x = v.x("X")
    idx = g.cast(v.x("Index"), v.var("Index").dtype, np.int64)
    rank = v.rank("X")
    if rank > 2:
        shape = g.node("Concat", [g.shape_of(idx), g.shape_of(x, start=2)], axis=0)
        idx = g.node("Expand", [g.unsqueeze(idx, list(range(2, rank))), shape])
    return {"Out": g.node("GatherElements", [x, idx], axis=1, hint=v.out_hint("Out"))}


@mapper("gather_tree")
def _gather_tree(g, v):
    dt = v.var("Ids").dtype
    ids = g.cast(v.x("Ids"), dt, np.int64)
    parents = g.cast(v.x("Parents"), v.var("Parents").dtype, np.int64)
    steps = g.scalar(g.shape_of(ids, start=0, end=1))
    beam = g.scalar(g.shape_of(ids, start=2, end=3))
    # every beam starts as its own parent: [batch, beam] filled with 0 .. beam - 1
    own = g.node("Range", [g.const(0), beam, g.const(1)])
    own = g.node("Expand", [own, g.shape_of(ids, start=1, end=3)])
    body = type(g)(g.ctx, parent=g)
    it, c_in, parent = body.fresh("iter"), body.fresh("cond_in"), body.fresh("parent")
    # NOTE: iteration i visits step T - 1 - i, so the scan output runs backwards in time.
    t = body.node("Sub", [body.node("Sub", [steps, body.const(1)]), it])
    tok = body.node("GatherElements", [body.node("Gather", [ids, t], axis=0), parent], axis=1)
    nxt = body.node("GatherElements", [body.node("Gather", [parents, t], axis=0), parent],
                    axis=1)
    c_out = body.node("Identity", [c_in])
    info = helper.make_tensor_value_info
    graph = helper.make_graph(
        body.nodes, g.fresh("gather_tree_body"),
        [info(it, TensorProto.INT64, []), info(c_in, TensorProto.BOOL, []),
         info(parent, TensorProto.INT64, None)],
        [info(c_out, TensorProto.BOOL, []), info(nxt, TensorProto.INT64, None),
         info(tok, TensorProto.INT64, None)])
    _, scanned = g.node("Loop", [steps, g.const(True, bool), own], outputs=2, body=graph)
    out = g.node("Slice", [scanned, g.const([-1]), g.const([np.iinfo(np.int64).min]),
                           g.const([0]), g.const([-1])])
    return {"Out": g.node("Identity", [g.cast(out, np.int64, dt)], hint=v.out_hint("Out"))}


@mapper("beam_search")
def _beam_search(g, v):
    a = v.attrs
    beam, end = int(a["beam_size"]), int(a["end_id"])
    dt = v.var("Scores").dtype
    scores = v.x("Scores")
    pre_ids = g.reshape(g.cast(v.x("PreIds"), v.var("PreIds").dtype, np.int64), [-1, 1])
    pre = g.reshape(g.cast(v.x("PreScores"), v.var("PreScores").dtype, dt), [-1, 1])
    cand = scores if a["is_accumulated"] else g.node("Add", [pre, g.node("Log", [scores])])
    k = g.scalar(g.shape_of(scores, start=1, end=2))
    cols = g.node("Range", [g.const(0), k, g.const(1)])
    ids = g.cast(v.x("Ids"), v.var("Ids").dtype, np.int64) if v.has("Ids") else \
        g.node("Expand", [cols, g.shape_of(scores)])
    done = g.node("Equal", [pre_ids, g.const(end)])
    cand_ids = g.node("Where", [done, g.const(end), ids])
    cand = g.node("Where", [done, pre, cand])
    valid = g.node("Or", [g.node("Not", [done]), g.node("Equal", [cols, g.const(0)])])
    # per source: [batch, beam * K]; NOTE: as in the kernel, two sorts give the order
    # (valid first, higher score, lower position): TopK keeps equal values in index order.
    width = g.node("Mul", [g.shape_of(scores, start=1, end=2), g.const([beam])])
    per_source = g.node("Concat", [g.const([-1]), width], axis=0)
    cand = g.node("Reshape", [cand, per_source])
    cand_ids = g.node("Reshape", [cand_ids, per_source])
    valid = g.node("Reshape", [g.cast(valid, bool, np.int32), per_source])
    _, order = g.node("TopK", [cand, width], outputs=2, axis=-1, largest=1, sorted=1)
    valid_sorted = g.node("GatherElements", [valid, order], axis=1)
    _, first_valid = g.node("TopK", [valid_sorted, g.const([beam])], outputs=2, axis=-1,
                            largest=1, sorted=1)
    pick = g.node("GatherElements", [order, first_valid], axis=1)
    sel_scores = g.reshape(g.node("GatherElements", [cand, pick], axis=1), [-1, 1])
    sel_ids = g.reshape(g.node("GatherElements", [cand_ids, pick], axis=1), [-1, 1])
    batch = g.scalar(g.shape_of(cand, start=0, end=1))
    base = g.node("Mul", [g.node("Range", [g.const(0), batch, g.const(1)]), g.const(beam)])
    parent = g.node("Add", [g.node("Div", [pick, g.unsqueeze(k, [0])]), g.unsqueeze(base, [1])])
    return {"SelectedIds": g.node("Identity", [sel_ids], hint=v.out_hint("SelectedIds")),
            "SelectedScores": g.node("Identity", [sel_scores],
                                     hint=v.out_hint("SelectedScores")),
            "ParentIdx": g.reshape(parent, [-1], hint=v.out_hint("ParentIdx"))}


def _walk_back(g, steps, start, gathered, parents, hint):
    """A Loop over steps ``T - 1 .. 0`` carrying ``start`` through ``parents`` (a Gather per
    step); scans ``Gather(x[t], carried)`` for each ``x`` in ``gathered``, returned in time
    order."""
    body = type(g)(g.ctx, parent=g)
    it, c_in, carried = body.fresh("iter"), body.fresh("cond_in"), body.fresh("carried")
    t = body.node("Sub", [body.node("Sub", [steps, body.const(1)]), it])

    def pick(x):
        return body.node("GatherElements", [body.node("Gather", [x, t], axis=0), carried],
                         axis=start[1])

    scans = [pick(x) for x, _ in gathered]
    nxt = pick(parents)
    info = helper.make_tensor_value_info
    graph = helper.make_graph(
        body.nodes, g.fresh(hint),
        [info(it, TensorProto.INT64, []), info(c_in, TensorProto.BOOL, []),
         info(carried, TensorProto.INT64, None)],
        [info(body.node("Identity", [c_in]), TensorProto.BOOL, []),
         info(nxt, TensorProto.INT64, None)]
        + [info(s, onnx_dtype(d), None) for s, (_, d) in zip(scans, gathered)])
    outs = g.node("Loop", [steps, g.const(True, bool), start[0]], outputs=1 + len(gathered),
                  body=graph)
    rev = [g.const([-1]), g.const([np.iinfo(np.int64).min]), g.const([0]), g.const([-1])]
    return [g.node("Slice", [s] + rev) for s in outs[1:]]


@mapper("beam_search_decode")
def _beam_search_decode(g, v):
    a = v.attrs
    beam, end = int(a["beam_size"]), int(a["end_id"])
    dt = v.var("Scores").dtype
    ids = g.cast(v.x("Ids"), v.var("Ids").dtype, np.int64)
    parents = g.cast(v.x("Parents"), v.var("Parents").dtype, np.int64)
    scores = v.x("Scores")
    steps = g.scalar(g.shape_of(ids, start=0, end=1))
    rows = g.node("Range", [g.const(0), g.scalar(g.shape_of(ids, start=1, end=2)),
                            g.const(1)])
    out_ids, out_sc = _walk_back(g, steps, (rows, 0), [(ids, np.int64), (scores, dt)],
                                 parents, "beam_search_decode_body")
    # after a sentence's first end_id: end_id, and the score it ended with
    is_end = g.node("Equal", [out_ids, g.const(end)])
    seen = g.node("CumSum", [g.cast(is_end, bool, np.int64), g.const(0)])
    after = g.node("Greater", [g.node("Sub", [seen, g.cast(is_end, bool, np.int64)]),
                               g.const(0)])
    out_ids = g.node("Where", [after, g.const(end), out_ids])
    first_end = g.node("ArgMax", [g.cast(is_end, bool, np.int32)], axis=0, keepdims=1)
    any_end = g.node("Greater", [g.reduce("ReduceMax", g.cast(is_end, bool, np.int32), [0],
                                          True), g.const(0, np.int32)])
    last = g.node("Gather", [out_sc, g.const([-1])], axis=0)
    end_sc = g.node("Where", [any_end, g.node("GatherElements", [out_sc, first_end], axis=0),
                              last])
    out_sc = g.node("Where", [after, end_sc, out_sc])
    # [steps, batch * beam] -> [batch, beam, steps], beams sorted by final score
    shape = g.node("Concat", [g.const([-1, beam]), g.shape_of(ids, start=0, end=1)], axis=0)
    out_ids = g.node("Reshape", [g.node("Transpose", [out_ids], perm=[1, 0]), shape])
    out_sc = g.node("Reshape", [g.node("Transpose", [out_sc], perm=[1, 0]), shape])
    final = g.node("Gather", [out_sc, g.const(-1)], axis=2)
    _, order = g.node("TopK", [final, g.const([beam])], outputs=2, axis=-1, largest=1,
                      sorted=1)
    order = g.node("Expand", [g.unsqueeze(order, [2]), g.shape_of(out_sc)])
    return {"SentenceIds": g.node("GatherElements", [out_ids, order], axis=1,
                                  hint=v.out_hint("SentenceIds")),
            "SentenceScores": g.node("GatherElements", [out_sc, order], axis=1,
                                     hint=v.out_hint("SentenceScores"))}

"""Fusion of ``conv2d`` + bias ``elementwise_add`` (+ ``relu``) into ``conv2d_fusion``.

The bias must be a 1-D variable with one value per filter, added along the channel axis
(``axis=1`` for NCHW, ``3`` or ``-1`` for NHWC), of the convolution's dtype. In a training
program the gradient operators of the chain (``relu_grad``, ``elementwise_add_grad``,
``conv2d_grad``) become one ``conv2d_fusion_grad`` (the op's registered backward, which
reuses the windows the forward pass kept as its ``Columns`` output).

A ``conv2d_fusion`` followed by a max ``pool2d`` that alone reads its output (and their
gradient ops) then becomes one ``conv2d_pool2d_fusion`` (and one gradient op) where the
pooling windows tile the convolution's output exactly (window == stride, no padding, one
group): the GEMM writes its rows in tile-phase order so that pooling and its gradient run
over long contiguous blocks (see :mod:`core.ops.conv_pool`). Other pools after a ReLU take the
ReLU over instead: ``conv2d_fusion`` without activation followed by ``relu_pool2d``
(``max_pool(relu(x)) == relu(max_pool(x))`` exactly), so the ReLU (and its gradient mask)
runs on the smaller pooled map.

Preserves: the values of the chain's output and of every gradient it produced (the fused op
computes ``act(conv2d(Input, Filter) + Bias)``; the registry's tests check its values and
gradients, and a test checks it against the unfused sequence), every variable name other
than the chain's private intermediates, and the order of everything else. Fuses only where
the intermediates have no other readers (see :mod:`core.static.passes.chain`).
"""
import numpy as np

from ...ops._shapes import ShapeError
from ...ops.conv_pool import tiles_exactly
from ...ops.registry import Meta, get_op
from ..analysis import op_reads, op_writes
from .chain import forward_reader, fresh_name, fuse, grad_slot, match, out_slot
from .graph import changed, new_op, replace_ops

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Fuse in place; returns the number of rewrites (chains fused, ReLUs moved)."""
    return fuse(program, feed_names, fetch_names, _match, _rewrite) + \
        fuse(program, feed_names, fetch_names, _match_pool, _rewrite_pool)


def _match_pool(uses, block, conv):
    """A ``conv2d_fusion`` whose output only a max ``pool2d`` reads (and, in a training
    program, their two gradient ops): ``(chain, grads, whole)``, ``whole`` when the pool's
    windows tile the output exactly and the pair becomes one ``conv2d_pool2d_fusion``;
    otherwise only a ReLU moves (and without one there is nothing to do)."""
    if conv.type != "conv2d_fusion" or conv.attrs.get("activation") not in ("relu", "identity"):
        return None
    r = conv.outputs["Output"][0]
    pool = forward_reader(uses, r, block)
    if pool is None or pool.type != "pool2d" or pool.inputs.get("X") != [r] or \
            pool.attrs.get("pooling_type", "max") != "max":
        return None
    grads = [g for g in uses.readers.get(r, ()) if g.type.endswith("_grad")]
    g_conv = [g for g in grads if g.type == "conv2d_fusion_grad" and
              g.inputs.get("Output") == [r]]
    g_pool = [g for g in grads if g.type == "pool2d_grad" and g.inputs.get("X") == [r]]
    if len(grads) != len(g_conv) + len(g_pool) or len(g_conv) != len(g_pool) or \
            len(g_conv) > 1 or not uses.private(r, [pool] + grads):
        return None
    grads = g_conv + g_pool
    whole = _tiles(block, conv, pool) and _fits(uses, block, conv, pool, grads)
    if not whole and conv.attrs.get("activation") != "relu":
        return None
    return [conv, pool], grads, whole


def _tiles(block, conv, pool):
    """Whether ``conv2d_pool2d_fusion`` supports the pair: one group, one data format, plain
    max-pooling windows tiling the (statically known) convolution output exactly."""
    out = block._find_var_recursive(conv.outputs["Output"][0])
    try:
        a = get_op("pool2d").full_attrs(pool.attrs)
        c = get_op("conv2d_fusion").full_attrs(conv.attrs)
    except TypeError:
        return False
    if c["groups"] != 1 or out is None or out.shape is None or len(out.shape) != 4 or \
            a["global_pooling"] or a["adaptive"] or a["data_format"] != c["data_format"]:
        return False
    oh, ow = out.shape[1:3] if c["data_format"] == "NHWC" else out.shape[2:4]
    try:
        return tiles_exactly(oh, ow, a["ksize"], a["strides"], a["paddings"])
    except ShapeError:
        return False


def _fits(uses, block, conv, pool, grads):
    """Whether the fused forward op may stand where the pool stood (its inputs unchanged in
    between) and, with gradients, the fused gradient op where the convolution's gradient
    stood: the gradient between the two is theirs alone and nothing in between touches what
    the fused gradient op reads."""
    pos = {id(op): i for i, op in enumerate(block.ops)}
    i, j = pos.get(id(conv)), pos.get(id(pool))
    if i is None or j is None or j < i:
        return False
    ins = set(op_reads(conv))
    if any(n in ins for op in block.ops[i + 1:j] for n in op_writes(op)):
        return False
    if not grads:
        return True
    g_conv, g_pool = grads
    gi, gj = pos.get(id(g_pool)), pos.get(id(g_conv))
    if gi is None or gj is None or gj < gi or g_pool.block is not block:
        return False
    dr = g_pool.outputs.get("X@GRAD", [])
    if len(dr) != 1 or g_conv.inputs.get("Output@GRAD") != dr or \
            not uses.private(dr[0], [g_conv]):
        return False
    reads = set(op_reads(g_pool)) | set(op_reads(g_conv))
    return not any(n in reads for op in block.ops[gi + 1:gj] for n in op_writes(op))


def _rewrite_pool(block, chain, grads, whole):
    conv, pool = chain
    if whole:
        _rewrite_whole(block, conv, pool, grads)
        return
    conv.attrs["activation"] = "identity"  # the Output is now the pre-activation
    changed(block.program)
    replace_ops(block, [pool], new_op(block, "relu_pool2d", pool.inputs, pool.outputs,
                                      dict(pool.attrs), pool), pool)
    if grads:
        g_conv, g_pool = grads
        g_conv.attrs["activation"] = "identity"
        replace_ops(block, [g_pool], new_op(block, "relu_pool2d_grad", g_pool.inputs,
                                            g_pool.outputs, dict(g_pool.attrs), g_pool),
                    g_pool)


def _rewrite_whole(block, conv, pool, grads):
    a = get_op("pool2d").full_attrs(pool.attrs)
    attrs = dict(conv.attrs, pooling_type="max", ksize=list(a["ksize"]),
                 pool_strides=list(a["strides"]), pool_paddings=list(a["paddings"]))
    ins = {s: list(conv.inputs[s]) for s in ("Input", "Filter", "Bias")}
    opdef = get_op("conv2d_pool2d_fusion")
    metas = [Meta(tuple(block._find_var_recursive(ns[0]).shape),
                  np.dtype(block._find_var_recursive(ns[0]).dtype)) for ns in ins.values()]
    conv_meta = opdef.infer(*metas, **opdef.full_attrs(attrs))[2]
    r = conv.outputs["Output"][0]
    pre = block.create_var(fresh_name(block, r + ".phases"), shape=list(conv_meta.shape),
                           dtype=conv_meta.dtype, stop_gradient=True)
    outs = {"Output": list(pool.outputs["Out"]), "Columns": list(conv.outputs["Columns"]),
            "ConvOut": [pre.name]}
    replace_ops(block, [conv, pool],
                new_op(block, "conv2d_pool2d_fusion", ins, outs, attrs, pool), pool)
    if not grads:
        return
    g_conv, g_pool = grads
    bwd = new_op(block, "conv2d_pool2d_fusion_grad",
                 dict(ins, **{s: outs[s] for s in outs},
                      **{"Output@GRAD": list(g_pool.inputs["Out@GRAD"])}),
                 {s: grad_slot(g_conv, s) for s in ("Input@GRAD", "Filter@GRAD", "Bias@GRAD")},
                 dict(attrs), g_conv)
    replace_ops(block, [g_pool, g_conv], bwd, g_conv)


def _match(uses, block, conv):
    t1 = out_slot(conv) if conv.type == "conv2d" else None
    if t1 is None:
        return None
    add = forward_reader(uses, t1[1], block)
    if add is None or add.type != "elementwise_add" or add.inputs.get("X") != [t1[1]]:
        return None
    w = block._find_var_recursive(conv.input("Filter")[0])
    b = block._find_var_recursive(add.input("Y")[0])
    out = block._find_var_recursive(t1[1])
    if w is None or b is None or out is None or w.shape is None or b.shape is None:
        return None
    nhwc = conv.attrs.get("data_format", "NCHW") == "NHWC"
    axis = add.attrs.get("axis", -1)
    if list(b.shape) != [w.shape[0]] or w.shape[0] < 0 or b.dtype != out.dtype or \
            axis not in ((3, -1) if nhwc else (1,)):
        return None
    chain, links = [conv, add], [None, "X"]
    relu = forward_reader(uses, out_slot(add)[1], block)
    if relu is not None and relu.type == "relu":
        grads = match(uses, block, chain + [relu], links + ["X"])
        if grads is not None:
            return chain + [relu], grads
    grads = match(uses, block, chain, links)
    return None if grads is None else (chain, grads)


def _rewrite(block, chain, grads):
    conv, add = chain[0], chain[1]
    last = out_slot(chain[-1])[1]
    x, w, b = conv.input("Input")[0], conv.input("Filter")[0], add.input("Y")[0]
    attrs = dict(conv.attrs, activation="relu" if len(chain) == 3 else "identity")
    opdef = get_op("conv2d_fusion")
    metas = [Meta(tuple(block._find_var_recursive(n).shape),
                  np.dtype(block._find_var_recursive(n).dtype)) for n in (x, w, b)]
    cols_meta = opdef.infer(*metas, **opdef.full_attrs(attrs))[1]
    cols = block.create_var(fresh_name(block, last + ".columns"), shape=list(cols_meta.shape),
                            dtype=cols_meta.dtype, stop_gradient=True)
    fwd = new_op(block, "conv2d_fusion", {"Input": [x], "Filter": [w], "Bias": [b]},
                 {"Output": [last], "Columns": [cols.name]}, attrs, conv)
    replace_ops(block, chain, fwd, chain[-1])
    if not grads:
        return
    g_conv, g_add = grads[0], grads[1]
    bwd = new_op(block, "conv2d_fusion_grad",
                 {"Input": [x], "Filter": [w], "Bias": [b], "Output": [last],
                  "Columns": [cols.name], "Output@GRAD": grads[-1].input("Out@GRAD")},
                 {"Input@GRAD": grad_slot(g_conv, "Input@GRAD"),
                  "Filter@GRAD": grad_slot(g_conv, "Filter@GRAD"),
                  "Bias@GRAD": grad_slot(g_add, "Y@GRAD")}, attrs, g_conv)
    replace_ops(block, grads, bwd, grads[-1])



"""Fusion of ``conv2d`` + bias ``elementwise_add`` (+ ``relu``) into ``conv2d_fusion``.

The bias must be a 1-D variable with one value per filter, added along the channel axis
(``axis=1`` for NCHW, ``3`` or ``-1`` for NHWC), of the convolution's dtype. In a training
program the gradient operators of the chain (``relu_grad``, ``elementwise_add_grad``,
``conv2d_grad``) become one ``conv2d_fusion_grad`` (the op's registered backward, which
reuses the windows the forward pass kept as its ``Columns`` output).

A ``conv2d_fusion`` with ReLU followed by a max ``pool2d`` that alone reads its output (and
their gradient ops) then becomes ``conv2d_fusion`` without activation followed by
``relu_pool2d``: ``max_pool(relu(x)) == relu(max_pool(x))`` exactly, so the ReLU (and its
gradient mask) runs on the 4x smaller pooled map.

Preserves: the values of the chain's output and of every gradient it produced (the fused op
computes ``act(conv2d(Input, Filter) + Bias)``; the registry's tests check its values and
gradients, and a test checks it against the unfused sequence), every variable name other
than the chain's private intermediates, and the order of everything else. Fuses only where
the intermediates have no other readers (see :mod:`core.static.passes.chain`).
"""
import numpy as np

from ...ops.registry import Meta, get_op
from .chain import forward_reader, fresh_name, fuse, grad_slot, match, out_slot
from .graph import new_op, replace_ops

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Fuse in place; returns the number of rewrites (chains fused, ReLUs moved)."""
    return fuse(program, feed_names, fetch_names, _match, _rewrite) + \
        fuse(program, feed_names, fetch_names, _match_pool, _rewrite_pool)


def _match_pool(uses, block, conv):
    """A ``conv2d_fusion`` with ReLU whose output only a max ``pool2d`` reads (and, in a
    training program, their two gradient ops)."""
    if conv.type != "conv2d_fusion" or conv.attrs.get("activation") != "relu":
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
    return [conv, pool], g_conv + g_pool


def _rewrite_pool(block, chain, grads):
    conv, pool = chain
    conv.attrs["activation"] = "identity"  # the Output is now the pre-activation
    replace_ops(block, [pool], new_op(block, "relu_pool2d", pool.inputs, pool.outputs,
                                      dict(pool.attrs), pool), pool)
    if grads:
        g_conv, g_pool = grads
        g_conv.attrs["activation"] = "identity"
        replace_ops(block, [g_pool], new_op(block, "relu_pool2d_grad", g_pool.inputs,
                                            g_pool.outputs, dict(g_pool.attrs), g_pool),
                    g_pool)


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



"""Fusion of a GEMM + bias ``elementwise_add`` (+ activation) into ``fc``.

The GEMM is ``mul`` (``y_num_col_dims == 1``) or ``matmul`` without transposes and with
``alpha == 1``, of a 2-D weight; the bias a 1-D variable with one value per output column,
added along the last axis, of the GEMM's dtype; the activation, when there is one, ``relu``,
``tanh``, ``sigmoid`` or ``softmax`` over the last axis. In a training program the chain's
gradient operators become one ``fc_grad``.

Preserves: the chain's output value (``fc`` runs the same GEMM, adds the same bias and calls
the activation's own kernel), the gradients it produced (the activation's own backward, then
the GEMM's), every variable name other than the chain's private intermediates. Fuses only
where the intermediates have no other readers (see :mod:`core.static.passes.chain`).
"""
from ...ops.fused import FC_ACTIVATIONS
from .chain import forward_reader, fuse, grad_slot, match, out_slot
from .graph import new_op, replace_ops

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Fuse in place; returns the number of chains fused."""
    return fuse(program, feed_names, fetch_names, _match, _rewrite)


def _num_col_dims(block, gemm):
    """``in_num_col_dims`` of the ``fc`` equal to ``gemm``, or None when there is none."""
    x = block._find_var_recursive(gemm.inputs.get("X", [""])[0])
    w = block._find_var_recursive(gemm.inputs.get("Y", [""])[0])
    if x is None or w is None or x.shape is None or w.shape is None or len(w.shape) != 2 or \
            x.dtype != w.dtype:
        return None
    if gemm.type == "mul":
        k = gemm.attrs.get("x_num_col_dims", 1)
        ok = gemm.attrs.get("y_num_col_dims", 1) == 1 and 1 <= k < len(x.shape)
        return k if ok else None
    if gemm.type == "matmul" and len(x.shape) >= 2 and not gemm.attrs.get("transpose_X") and \
            not gemm.attrs.get("transpose_Y") and gemm.attrs.get("alpha", 1.0) == 1.0:
        return len(x.shape) - 1
    return None


def _match(uses, block, gemm):
    if gemm.type not in ("mul", "matmul") or out_slot(gemm) is None:
        return None
    k = _num_col_dims(block, gemm)
    t1 = out_slot(gemm)[1]
    add = forward_reader(uses, t1, block)
    if k is None or add is None or add.type != "elementwise_add" or \
            add.inputs.get("X") != [t1]:
        return None
    out = block._find_var_recursive(t1)
    b = block._find_var_recursive(add.inputs.get("Y", [""])[0])
    if b is None or out is None or b.shape is None or out.shape is None or \
            list(b.shape) != [out.shape[-1]] or b.shape[0] < 0 or b.dtype != out.dtype or \
            add.attrs.get("axis", -1) not in (-1, len(out.shape) - 1):
        return None
    chain, links = [gemm, add], [None, "X"]
    act = forward_reader(uses, out_slot(add)[1], block)
    if act is not None and act.type in FC_ACTIVATIONS and act.inputs.get("X") and \
            (act.type != "softmax" or act.attrs.get("axis", -1) in (-1, len(out.shape) - 1)):
        grads = match(uses, block, chain + [act], links + ["X"])
        if grads is not None:
            return chain + [act], grads
    grads = match(uses, block, chain, links)
    return None if grads is None else (chain, grads)


def _rewrite(block, chain, grads):
    gemm, add = chain[0], chain[1]
    last = out_slot(chain[-1])[1]
    x, w, b = gemm.inputs["X"][0], gemm.inputs["Y"][0], add.inputs["Y"][0]
    attrs = {"in_num_col_dims": _num_col_dims(block, gemm),
             "activation_type": chain[2].type if len(chain) == 3 else ""}
    fwd = new_op(block, "fc", {"Input": [x], "W": [w], "Bias": [b]}, {"Out": [last]}, attrs,
                 gemm)
    replace_ops(block, chain, fwd, chain[-1])
    if not grads:
        return
    g_gemm, g_add = grads[0], grads[1]
    bwd = new_op(block, "fc_grad",
                 {"Input": [x], "W": [w], "Bias": [b], "Out": [last],
                  "Out@GRAD": grads[-1].inputs["Out@GRAD"]},
                 {"Input@GRAD": grad_slot(g_gemm, "X@GRAD"), "W@GRAD": grad_slot(g_gemm, "Y@GRAD"),
                  "Bias@GRAD": grad_slot(g_add, "Y@GRAD")}, attrs, g_gemm)
    replace_ops(block, grads, bwd, grads[-1])

"""Loop-invariant GEMM hoisting: ``matmul(X[i], W)`` inside a ``while`` body, where neither
``X`` nor ``W`` changes in the loop, becomes one ``matmul(X, W)`` before the loop and a row
``XW[i]`` of it inside (a recurrent net's input projection: one large GEMM instead of one
small GEMM per step).

The row is taken by a ``getitem`` with one tensor index (it selects along axis 0 only, so
``matmul(X, W)[i] == matmul(X[i], W)`` for ``X`` of rank 2 or more and a 2-D ``W``); the
``matmul`` has no transposes and ``alpha == 1``; the row is read by nothing else; ``X`` and
``W`` are declared outside the body and written by nothing in it. Only in programs without
gradient operators (a ``while_grad`` replays the body as built).

Preserves: every variable name, every fetched value up to the rounding of the dot products
(a BLAS may sum a large GEMM's products in another order than a small one's), the order of
all other operators. It computes rows the loop may never reach (all of ``X``), so it trades
those for the per-step GEMM calls.
"""
from ..analysis import op_writes, sub_blocks
from .chain import fresh_name, out_slot
from .graph import Uses, has_grad_ops, new_op, replace_ops

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Hoist in place; returns the number of GEMMs hoisted."""
    if has_grad_ops(program):
        return 0
    hoisted = 0
    while True:
        uses = Uses(program, feed_names, fetch_names)
        found = _find(program, uses)
        if found is None:
            if hoisted:
                program._bump()
            return hoisted
        _rewrite(program, *found)
        hoisted += 1


def _written_in(program, block):
    names, stack = set(), [block.idx]
    while stack:
        b = program.block(stack.pop())
        for op in b.ops:
            names.update(op_writes(op))
            stack.extend(sub_blocks(op))
    return names


def _find(program, uses):
    for parent in program.blocks:
        for loop in parent.ops:
            if loop.type != "while":
                continue
            body = program.block(loop.attrs["sub_block"])
            written = _written_in(program, body)
            for g in body.ops:
                m = _match(uses, body, g, written)
                if m is not None:
                    return parent, loop, body, g, m
    return None


def _outer(body, name, written):
    v = body._find_var_recursive(name)
    return v is not None and v.block is not body and name not in written and \
        v.shape is not None and -1 not in v.shape[1:]


def _match(uses, body, g, written):
    index = g.attrs.get("index")
    if g.type != "getitem" or not isinstance(index, list) or len(index) != 1 or \
            index[0].get("kind") != "tensor" or len(g.inputs.get("Index", ())) != 1 or \
            out_slot(g) is None:
        return None
    x, t = g.inputs["X"][0], out_slot(g)[1]
    readers = uses.readers.get(t, ())
    m = readers[0] if len(readers) == 1 else None
    if m is None or m.type != "matmul" or m.block is not body or m.inputs.get("X") != [t] or \
            m.attrs.get("transpose_X") or m.attrs.get("transpose_Y") or \
            m.attrs.get("alpha", 1.0) != 1.0 or not uses.private(t, [m]):
        return None
    w = m.inputs["Y"][0]
    xv, wv = body._find_var_recursive(x), body._find_var_recursive(w)
    if not (_outer(body, x, written) and _outer(body, w, written)) or len(xv.shape) < 2 or \
            len(wv.shape) != 2 or wv.shape[0] < 0 or xv.dtype != wv.dtype:
        return None
    return m


def _rewrite(program, parent, loop, body, g, m):
    x, w = g.inputs["X"][0], m.inputs["Y"][0]
    xv, wv = parent._find_var_recursive(x), parent._find_var_recursive(w)
    xw = parent.create_var(fresh_name(parent, out_slot(m)[1] + ".hoisted"),
                           shape=list(xv.shape[:-1]) + [wv.shape[1]], dtype=xv.dtype,
                           stop_gradient=True)
    gemm = new_op(parent, "matmul", {"X": [x], "Y": [w]}, {"Out": [xw.name]}, dict(m.attrs), m)
    parent.ops.insert(parent.ops.index(loop), gemm)
    row = new_op(body, "getitem", {"X": [xw.name], "Index": list(g.inputs["Index"])},
                 {"Out": list(m.outputs["Out"])}, dict(g.attrs), g)
    replace_ops(body, [g, m], row, m)
    loop.inputs["X"] = list(loop.inputs["X"]) + [xw.name]

"""Loop-invariant GEMM hoisting: ``matmul(X[i], W)`` inside a ``while`` body, where neither
``X`` nor ``W`` changes in the loop, becomes one ``matmul(X, W)`` before the loop and a row
``XW[i]`` of it inside (a recurrent net's input projection: one large GEMM instead of one
small GEMM per step). The same for an unrolled loop: ``matmul(X[k], W)`` for constant ``k``,
repeated in one block for at least half of ``X``'s rows, with ``X`` and ``W`` written by no
operator of the program (fed or read from the scope), becomes one ``matmul(X, W)`` before the
first of them and a row of it each.

The row is taken by a ``getitem`` with one tensor or int index (it selects along axis 0 only,
so ``matmul(X, W)[i] == matmul(X[i], W)`` for ``X`` of rank 2 or more and a 2-D ``W``); the
``matmul`` has no transposes and ``alpha == 1``; the row is read by nothing else. Only in
programs without gradient operators (a ``while_grad`` replays the body as built, and the
gradient ops of the row's ``getitem`` and ``matmul`` read what they read).

Preserves: every variable name, every fetched value up to the rounding of the dot products
(a BLAS may sum a large GEMM's products in another order than a small one's), the order of
all other operators. It computes rows the loop may never reach (all of ``X``), so it trades
those for the per-step GEMM calls.
"""
from ..analysis import op_writes, sub_blocks
from .chain import fresh_name, out_slot
from .graph import changed, has_grad_ops, new_op, replace_ops, uses_of

__all__ = ["run"]


def run(program, feed_names, fetch_names):
    """Hoist in place; returns the number of GEMMs hoisted."""
    if has_grad_ops(program):
        return 0
    hoisted = 0
    while True:
        uses = uses_of(program, feed_names, fetch_names)
        found = _find(program, uses)
        if found is None:
            break
        _rewrite(program, *found)
        hoisted += 1
    uses = None
    for block in program.blocks:
        if uses is None:  # NOTE: program-wide, so rebuilt only after a block was rewritten
            uses = uses_of(program, feed_names, fetch_names)
        done = _unrolled(program, block, uses)
        if done:
            hoisted, uses = hoisted + done, None
    if hoisted:
        program._bump()
    return hoisted


def _unrolled(program, block, uses):
    """Batch the ``matmul(X[k], W)`` of an unrolled loop in ``block``; returns how many
    ``(X, W)`` groups were batched."""
    written = {n for n, ws in uses.writers.items() if ws}
    groups = {}
    for g in block.ops:
        index = g.attrs.get("index")
        if g.type == "getitem" and isinstance(index, list) and len(index) == 1 and \
                index[0].get("kind") == "int":
            m = _match(uses, block, g, written, outer=False)
            if m is not None:
                groups.setdefault((g.inputs["X"][0], m.inputs["Y"][0]), []).append((g, m))
    done = 0
    for (x, w), pairs in groups.items():
        rows = block._find_var_recursive(x).shape[0]
        if len(pairs) < 2 or rows < 0 or 2 * len(pairs) < rows:
            continue
        xw = _gemm_before(block, pairs[0][0], x, w, pairs[0][1])
        for g, m in pairs:
            _row_of(block, xw, g, m)
        done += 1
    return done


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


def _invariant(body, name, written, outer):
    v = body._find_var_recursive(name)
    return v is not None and (v.block is not body or not outer) and name not in written and \
        v.shape is not None and -1 not in v.shape[1:]


def _match(uses, body, g, written, outer=True):
    index = g.attrs.get("index")
    if g.type != "getitem" or not isinstance(index, list) or len(index) != 1 or \
            out_slot(g) is None:
        return None
    kind = index[0].get("kind")
    if not ((kind == "tensor" and len(g.inputs.get("Index", ())) == 1) or
            (kind == "int" and not g.inputs.get("Index"))):
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
    if not (_invariant(body, x, written, outer) and _invariant(body, w, written, outer)) or \
            len(xv.shape) < 2 or \
            len(wv.shape) != 2 or wv.shape[0] < 0 or xv.dtype != wv.dtype:
        return None
    return m


def _rewrite(program, parent, loop, body, g, m):
    x, w = g.inputs["X"][0], m.inputs["Y"][0]
    xw = _gemm_before(parent, loop, x, w, m)
    _row_of(body, xw, g, m)
    loop.inputs["X"] = list(loop.inputs["X"]) + [xw]
    changed(program)  # the loop's inputs changed in place


def _gemm_before(block, anchor, x, w, like):
    """A new ``matmul(x, w)`` in ``block`` just before ``anchor``; returns its output."""
    xv, wv = block._find_var_recursive(x), block._find_var_recursive(w)
    xw = block.create_var(fresh_name(block, out_slot(like)[1] + ".hoisted"),
                          shape=list(xv.shape[:-1]) + [wv.shape[1]], dtype=xv.dtype,
                          stop_gradient=True)
    gemm = new_op(block, "matmul", {"X": [x], "Y": [w]}, {"Out": [xw.name]}, dict(like.attrs),
                  like)
    block.ops.insert(block.ops.index(anchor), gemm)
    return xw.name


def _row_of(block, xw, g, m):
    """``m``'s output as the row of ``xw`` that ``g`` selected."""
    row = new_op(block, "getitem", {"X": [xw], "Index": list(g.inputs.get("Index", []))},
                 {"Out": list(m.outputs["Out"])}, dict(g.attrs), g)
    replace_ops(block, [g, m], row, m)

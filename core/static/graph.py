"""A Program as a graph: ops, the values between them, and control-flow sub-blocks.

:func:`graph_of` reads a Program into plain data (no rendering): per block its ops (type,
inputs, outputs, attrs, the user's ``file:line`` and source line where the op recorded one)
and the sub-blocks each ``cond`` / ``while`` op owns (any int attribute naming a block, such
as ``true_block``, ``false_block``, ``sub_block``). Edges go from the op that last wrote a
variable to each op that reads it; a sub-block's own variables that no op writes (loop
variables) come from the op owning the block; other variables no op of the program writes
(fed inputs, parameters) are source nodes.

:func:`program_to_dot` renders that as Graphviz DOT: ops are boxes labelled with their type
and user line (``tooltip`` holds the source line, ``URL`` a ``file://`` link to it), source
variables are ellipses, edges carry the variable name, and each sub-block is a nested
``cluster`` labelled with its owner op and role. ``core.static.graph_html`` draws the same
data as one self-contained HTML page.
"""
import os

__all__ = ["GraphData", "graph_of", "program_to_dot"]


class GraphData:
    """``ops``: ``[{id, type, block, inputs, outputs, attrs, origin, children}]`` in block
    order (``children``: ``[(attr name, block index)]``); ``sources``: ``[{id, name, shape,
    dtype, kind}]``; ``edges``: ``[(from id, to id, variable name)]``; ``blocks``:
    ``{index: {parent, owner, role, ops}}`` for every block reached (``owner`` the id of the
    op owning it, None for block 0)."""

    def __init__(self):
        self.ops, self.sources, self.edges, self.blocks = [], [], [], {}


def _sub_blocks(op, num_blocks):
    found = []
    for name in sorted(op.attrs):
        value = op.attrs[name]
        if name.endswith("block") and isinstance(value, int) and 0 < value < num_blocks:
            found.append((name, value))
    return found


def _json_attr(value):
    if isinstance(value, (list, tuple)) and len(value) > 8:
        return f"[{len(value)} items]"
    return value


def graph_of(program):
    """The :class:`GraphData` of ``program`` (every block reachable from the global one)."""
    g = GraphData()
    nblocks = len(program.blocks)
    writer = {}  # variable name -> id of the op (or source) that last wrote it
    sources = {}
    order = [(0, None, None)]
    while order:
        idx, owner, role = order.pop(0)
        block = program.blocks[idx]
        info = g.blocks[idx] = {"parent": block.parent_idx, "owner": owner, "role": role,
                                "ops": []}
        for k, op in enumerate(block.ops):
            op_id = f"b{idx}_op{k}"
            children = _sub_blocks(op, nblocks)
            for name in op.input_arg_names:
                src = writer.get(name)
                if src is None and owner is not None and name in block.vars:
                    src = owner  # a sub-block's own input (a loop variable): set by its owner
                if src is None:
                    src = sources.get(name)
                    if src is None:
                        var = block._find_var_recursive(name)
                        src = sources[name] = f"v{len(sources)}"
                        g.sources.append({
                            "id": src, "name": name,
                            "shape": list(getattr(var, "shape", []) or []),
                            "dtype": str(getattr(var, "dtype", "")),
                            "kind": "parameter" if getattr(var, "persistable", False)
                            else "input"})
                g.edges.append((src, op_id, name))
            g.ops.append({"id": op_id, "type": op.type, "block": idx,
                          "inputs": {s: list(v) for s, v in op.inputs.items()},
                          "outputs": {s: list(v) for s, v in op.outputs.items()},
                          "attrs": {a: _json_attr(v) for a, v in sorted(op.attrs.items())},
                          "origin": list(op.origin) if op.origin else None,
                          "children": children})
            info["ops"].append(op_id)
            for name, child in children:
                if child not in g.blocks and all(child != o[0] for o in order):
                    order.append((child, op_id, name))
            for name in op.output_arg_names:
                writer[name] = op_id
    return g


def _q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _origin_label(origin):
    return f"{os.path.basename(origin[0])}:{origin[1]}" if origin else ""


def program_to_dot(program, name="program"):
    """Graphviz DOT text for ``program``: ops as boxes with their user line, fed inputs and
    parameters as ellipses, edges labelled with the variable, ``cond`` / ``while`` sub-blocks
    as nested clusters (render with ``dot -Tsvg``)."""
    g = graph_of(program)
    by_id = {op["id"]: op for op in g.ops}
    lines = [f"digraph {_q(name)} {{", "  compound=true;", "  rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", '
             'fontname="Helvetica", fontsize=11];',
             '  edge [fontname="Helvetica", fontsize=9, color="#667788"];']
    for s in g.sources:
        shape = "x".join("?" if d is None or d < 0 else str(d) for d in s["shape"])
        color = "#fff4d6" if s["kind"] == "parameter" else "#e6f5e6"
        lines.append(f"  {s['id']} [shape=ellipse, fillcolor=\"{color}\", "
                     f"label={_q(s['name'] + chr(10) + s['dtype'] + '[' + shape + ']')}];")

    def emit_block(idx, indent):
        pad = "  " * indent
        for op_id in g.blocks[idx]["ops"]:
            op = by_id[op_id]
            label = op["type"] + ("\n" + _origin_label(op["origin"]) if op["origin"] else "")
            extra = ""
            if op["origin"]:
                path, line, source = os.path.abspath(op["origin"][0]), *op["origin"][1:3]
                extra = (f", tooltip={_q(f'{path}:{line}: {source}')}, "
                         f"URL={_q(f'file://{path}#L{line}')}")
            color = ', fillcolor="#fde2e2"' if op["children"] else ""
            lines.append(f"{pad}{op_id} [label={_q(label)}{extra}{color}];")
            for attr, child in op["children"]:
                if g.blocks.get(child, {}).get("owner") != op_id:
                    continue
                lines.append(f"{pad}subgraph cluster_b{child} {{")
                title = f"block {child}: {op['type']} {attr}"
                lines.append(f"{pad}  label={_q(title)};")
                lines.append(f'{pad}  style="rounded,dashed"; color="#aa4444";')
                if not g.blocks[child]["ops"]:
                    lines.append(f'{pad}  b{child}_empty [label="(empty)", shape=plaintext];')
                emit_block(child, indent + 1)
                lines.append(f"{pad}}}")

    emit_block(0, 1)
    for src, dst, var in g.edges:
        lines.append(f"  {src} -> {dst} [label={_q(var)}];")
    for op in g.ops:
        for attr, child in op["children"]:
            if g.blocks.get(child, {}).get("owner") != op["id"]:
                continue
            first = g.blocks[child]["ops"][0] if g.blocks[child]["ops"] else f"b{child}_empty"
            lines.append(f"  {op['id']} -> {first} [lhead=cluster_b{child}, style=dashed, "
                         f"label={_q(attr)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"

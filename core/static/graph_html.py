"""A Program as one self-contained HTML page: an SVG drawing, with pan, zoom and op details.

The page needs nothing from the network: the drawing is inline SVG laid out here, and the
script (a few dozen lines, inline) pans on drag, zooms on the wheel around the pointer, fits
the drawing on "Fit", and shows an op's inputs, outputs, attributes and the user's source line
when the op is clicked (or named in the address: ``page.html#op=b0_op3``).

Layout (:func:`layout`): each block is laid out on its own as layers, top to bottom. An item
(a source variable, an op, or the box of a sub-block) sits one layer below the lowest item
whose output it reads; a sub-block's box sits below the op that owns it; a source variable
sits just above its first reader. A sub-block is laid
out first, recursively, so its box has a size its parent can place. Items of a layer are
centred side by side in program order. Edges are drawn between the absolute positions of their
ends, whichever boxes those are in.
"""
import html
import json
import os

from .graph import graph_of

__all__ = ["layout", "program_to_html"]

_CHAR_W, _OP_H, _GAP_X, _GAP_Y, _PAD, _TITLE = 7.0, 34.0, 22.0, 34.0, 14.0, 20.0


def _op_size(label_lines):
    width = max(len(s) for s in label_lines) * _CHAR_W + 20
    return max(width, 60.0), _OP_H if len(label_lines) < 2 else _OP_H + 12


class _Box:
    """A laid-out item: ``kind`` ('op', 'source', 'block'), ``ref`` (op/source id or block
    index), size, and position relative to its block's origin."""

    __slots__ = ("kind", "ref", "w", "h", "x", "y", "layer", "inner")

    def __init__(self, kind, ref, w, h, inner=None):
        self.kind, self.ref, self.w, self.h, self.inner = kind, ref, w, h, inner
        self.x = self.y = 0.0
        self.layer = 0


def _labels(op):
    lines = [op["type"]]
    if op["origin"]:
        lines.append(f"{os.path.basename(op['origin'][0])}:{op['origin'][1]}")
    return lines


def _layout_block(g, idx, by_id, sources_of):
    """``(boxes, width, height)`` of block ``idx``; boxes positioned inside it."""
    boxes, box_of = [], {}
    for s in sources_of.get(idx, []):
        w = max(len(s["name"]) * _CHAR_W + 20, 50.0)
        b = _Box("source", s["id"], w, 26.0)
        boxes.append(b)
        box_of[s["id"]] = b
    readers = {}
    for src, dst, _ in g.edges:
        readers.setdefault(dst, []).append(src)
    for op_id in g.blocks[idx]["ops"]:
        op = by_id[op_id]
        w, h = _op_size(_labels(op))
        b = _Box("op", op_id, w, h)
        layer = 0
        for src in readers.get(op_id, []):
            pred = box_of.get(src)
            if pred is not None:
                layer = max(layer, pred.layer + 1)
        b.layer = layer
        boxes.append(b)
        box_of[op_id] = b
        for attr, child in op["children"]:
            if g.blocks.get(child, {}).get("owner") != op_id:
                continue
            inner, cw, ch = _layout_block(g, child, by_id, sources_of)
            title = len(f"block {child}: {op['type']} {attr}") * _CHAR_W + 16
            if title > cw + 2 * _PAD:  # centre the content under a wider title
                for b in inner:
                    b.x += (title - cw - 2 * _PAD) / 2
                cw = title - 2 * _PAD
            cb = _Box("block", child, cw + 2 * _PAD, ch + 2 * _PAD + _TITLE, inner)
            cb.layer = layer + 1
            boxes.append(cb)
            box_of[f"block{child}"] = cb
            for inner_box in _walk(inner):  # ops inside count as the box for their readers
                if inner_box.kind == "op":
                    box_of.setdefault(inner_box.ref, cb)
    for b in boxes:  # a source sits just above its first reader, not all at the top
        if b.kind == "source":
            below = [box_of[dst].layer for src, dst, _ in g.edges
                     if src == b.ref and dst in box_of]
            b.layer = max(min(below, default=1) - 1, 0)
    layers = {}
    for b in boxes:
        layers.setdefault(b.layer, []).append(b)
    widths = {k: sum(b.w for b in row) + _GAP_X * (len(row) - 1) for k, row in layers.items()}
    width = max(widths.values(), default=80.0)
    y = 0.0
    for k in sorted(layers):
        row = layers[k]
        x = (width - widths[k]) / 2
        height = max(b.h for b in row)
        for b in row:
            b.x, b.y = x, y
            x += b.w + _GAP_X
        y += height + _GAP_Y
    return boxes, width, max(y - _GAP_Y, 30.0)


def _walk(boxes):
    todo = list(boxes)
    while todo:
        b = todo.pop()
        yield b
        if b.inner:
            todo.extend(b.inner)


def layout(program):
    """``(graph data, {item id: (x, y, w, h)}, [(block index, x, y, w, h)], width, height)``
    with absolute coordinates; item ids are op and source ids."""
    g = graph_of(program)
    by_id = {op["id"]: op for op in g.ops}
    sources_of = {0: g.sources}
    boxes, width, height = _layout_block(g, 0, by_id, sources_of)
    pos, clusters = {}, []
    todo = [(b, _PAD, _PAD) for b in boxes]
    while todo:
        b, ox, oy = todo.pop()
        x, y = ox + b.x, oy + b.y
        if b.kind == "block":
            clusters.append((b.ref, x, y, b.w, b.h))
            todo.extend((c, x + _PAD, y + _PAD + _TITLE) for c in b.inner)
        else:
            pos[b.ref] = (x, y, b.w, b.h)
    clusters.sort()
    return g, pos, clusters, width + 2 * _PAD, height + 2 * _PAD


def _svg(g, pos, clusters, width, height):
    by_id = {op["id"]: op for op in g.ops}
    e = html.escape
    out = [f'<svg id="graph" xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" data-width="{width:.0f}" '
           f'data-height="{height:.0f}">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
           'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#667788"/>'
           '</marker></defs>', '<g id="viewport">']
    for idx, x, y, w, h in clusters:
        info = g.blocks[idx]
        owner = by_id.get(info["owner"], {}).get("type", "")
        out.append(f'<g class="cluster"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" '
                   f'height="{h:.1f}" rx="8" fill="#fbf3f3" stroke="#aa4444" '
                   f'stroke-dasharray="5,3"/><text x="{x + 8:.1f}" y="{y + 15:.1f}" '
                   f'class="ctitle">block {idx}: {e(owner)} {e(info["role"] or "")}</text></g>')
    for src, dst, var in g.edges:
        if src not in pos or dst not in pos:
            continue
        x1, y1, w1, h1 = pos[src]
        x2, y2, w2, _ = pos[dst]
        ax, ay, bx, by = x1 + w1 / 2, y1 + h1, x2 + w2 / 2, y2
        mid = (ay + by) / 2
        out.append(f'<path class="edge" d="M{ax:.1f},{ay:.1f} C{ax:.1f},{mid:.1f} '
                   f'{bx:.1f},{mid:.1f} {bx:.1f},{by:.1f}" fill="none" stroke="#8899aa" '
                   f'marker-end="url(#arrow)"><title>{e(var)}</title></path>')
    for s in g.sources:
        x, y, w, h = pos[s["id"]]
        fill = "#fff4d6" if s["kind"] == "parameter" else "#e6f5e6"
        out.append(f'<g class="source"><ellipse cx="{x + w / 2:.1f}" cy="{y + h / 2:.1f}" '
                   f'rx="{w / 2:.1f}" ry="{h / 2:.1f}" fill="{fill}" stroke="#889966"/>'
                   f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 4:.1f}" text-anchor="middle">'
                   f'{e(s["name"])}</text><title>{e(s["name"])} {e(s["dtype"])}'
                   f'{e(str(s["shape"]))} ({s["kind"]})</title></g>')
    for op in g.ops:
        if op["id"] not in pos:
            continue
        x, y, w, h = pos[op["id"]]
        fill = "#fde2e2" if op["children"] else "#eef3fb"
        lines = _labels(op)
        text = "".join(f'<tspan x="{x + w / 2:.1f}" dy="{0 if k == 0 else 14}">{e(t)}</tspan>'
                       for k, t in enumerate(lines))
        out.append(f'<g class="op" data-id="{op["id"]}"><rect x="{x:.1f}" y="{y:.1f}" '
                   f'width="{w:.1f}" height="{h:.1f}" rx="5" fill="{fill}" stroke="#4a6a9a"/>'
                   f'<text x="{x + w / 2:.1f}" y="{y + 20:.1f}" text-anchor="middle">{text}'
                   f'</text></g>')
    out.append("</g></svg>")
    return "\n".join(out)


_STYLE = """
html, body { margin: 0; height: 100%; font-family: Helvetica, Arial, sans-serif; }
#main { display: flex; height: 100%; }
#canvas { flex: 1; overflow: hidden; background: #ffffff; cursor: grab; position: relative; }
#canvas.dragging { cursor: grabbing; }
#side { width: 320px; border-left: 1px solid #ccd; padding: 10px; overflow: auto;
        font-size: 12px; background: #f7f8fb; }
#side pre { white-space: pre-wrap; background: #fff; border: 1px solid #dde; padding: 6px; }
#tools { position: absolute; top: 8px; left: 8px; }
#tools button { margin-right: 4px; }
svg text { font-size: 11px; fill: #223; pointer-events: none; }
svg .ctitle { font-size: 11px; fill: #883333; }
svg .op { cursor: pointer; }
svg .op.selected rect { stroke: #d04010; stroke-width: 2.5; }
"""

# NOTE: written for this page; the view box is the whole state, so zoom and pan are exact
_SCRIPT = """
(function () {
  var svg = document.getElementById('graph');
  var canvas = document.getElementById('canvas');
  var data = JSON.parse(document.getElementById('graph-data').textContent);
  var W = +svg.getAttribute('data-width'), H = +svg.getAttribute('data-height');
  var view = {x: 0, y: 0, w: W, h: H};
  function apply() {
    svg.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + view.w + ' ' + view.h);
  }
  function fit() {
    var r = canvas.getBoundingClientRect();
    var s = 1.06 * Math.max(W / Math.max(r.width, 1), H / Math.max(r.height, 1));  // a margin
    view = {w: r.width * s, h: r.height * s, x: 0, y: 0};
    view.x = (W - view.w) / 2; view.y = (H - view.h) / 2; apply();
  }
  function zoom(factor, cx, cy) {
    var r = canvas.getBoundingClientRect();
    var px = view.x + (cx - r.left) / r.width * view.w;
    var py = view.y + (cy - r.top) / r.height * view.h;
    view.w *= factor; view.h *= factor;
    view.x = px - (cx - r.left) / r.width * view.w;
    view.y = py - (cy - r.top) / r.height * view.h; apply();
  }
  canvas.addEventListener('wheel', function (ev) {
    ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY);
  }, {passive: false});
  var drag = null;
  canvas.addEventListener('mousedown', function (ev) {
    drag = {x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y};
    canvas.classList.add('dragging');
  });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var r = canvas.getBoundingClientRect();
    view.x = drag.vx - (ev.clientX - drag.x) / r.width * view.w;
    view.y = drag.vy - (ev.clientY - drag.y) / r.height * view.h; apply();
  });
  window.addEventListener('mouseup', function () {
    drag = null; canvas.classList.remove('dragging');
  });
  document.getElementById('fit').onclick = fit;
  function zoomCentre(factor) {
    var r = canvas.getBoundingClientRect();
    zoom(factor, r.left + r.width / 2, r.top + r.height / 2);
  }
  document.getElementById('zin').onclick = function () { zoomCentre(1 / 1.3); };
  document.getElementById('zout').onclick = function () { zoomCentre(1.3); };
  function show(id) {
    var op = data.ops[id], side = document.getElementById('details');
    side.textContent = '';
    function add(tag, text) { var n = document.createElement(tag); n.textContent = text;
                              side.appendChild(n); }
    add('h3', op.type);
    if (op.origin) {
      var link = document.createElement('a');
      link.href = 'file://' + op.origin[0] + '#L' + op.origin[1];
      link.textContent = op.origin[0] + ':' + op.origin[1];
      side.appendChild(link); add('pre', op.origin[2]);
    }
    add('h4', 'inputs'); add('pre', JSON.stringify(op.inputs, null, 1));
    add('h4', 'outputs'); add('pre', JSON.stringify(op.outputs, null, 1));
    add('h4', 'attributes'); add('pre', JSON.stringify(op.attrs, null, 1));
  }
  Array.prototype.forEach.call(document.querySelectorAll('.op'), function (node) {
    node.addEventListener('click', function (ev) {
      Array.prototype.forEach.call(document.querySelectorAll('.op.selected'),
                                   function (n) { n.classList.remove('selected'); });
      node.classList.add('selected'); show(node.getAttribute('data-id')); ev.stopPropagation();
    });
  });
  window.addEventListener('resize', fit);
  fit();
  var wanted = /^#op=(.+)$/.exec(window.location.hash);  // a link to one op: page.html#op=ID
  if (wanted && data.ops[wanted[1]]) {
    document.querySelector('.op[data-id="' + wanted[1] + '"]').classList.add('selected');
    show(wanted[1]);
  }
  document.body.setAttribute('data-ready', '1');
})();
"""


def program_to_html(program, title="program"):
    """One self-contained HTML page drawing ``program`` (see the module docstring)."""
    g, pos, clusters, width, height = layout(program)
    details = {op["id"]: {k: op[k] for k in ("type", "inputs", "outputs", "attrs", "origin")}
               for op in g.ops}
    payload = json.dumps({"ops": details}, default=str).replace("</", "<\\/")
    nops = len(g.ops)
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style></head><body>",
        '<div id="main"><div id="canvas"><div id="tools"><button id="fit">Fit</button>'
        '<button id="zin">+</button><button id="zout">&minus;</button></div>',
        _svg(g, pos, clusters, width, height), "</div>",
        f'<div id="side"><b>{html.escape(title)}</b><div>{nops} ops in {len(g.blocks)} '
        'block(s). Drag to pan, wheel to zoom, click an op for details.</div>'
        '<div id="details"></div></div></div>',
        f'<script type="application/json" id="graph-data">{payload}</script>',
        f"<script>{_SCRIPT}</script>", "</body></html>", ""])

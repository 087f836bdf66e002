"""core.static.program_to_dot / program_to_html: ops, edges, sub-block clusters, origins;
the HTML page rendered in a headless Chromium (marker ``browser``)."""
import json
import os
import re
import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

import core
from core.static.graph import graph_of
from core.static.graph_html import layout


def _program():
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 4], "float32")
            h = core.layers.fc(x, 3)
            pred = core.layers.reduce_mean(h) > 0
            h = core.layers.cond(pred, lambda: core.layers.relu(h), lambda: h * 0.5)
            i = core.layers.fill_constant([], "int64", 0)
            i, h = core.layers.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, h + 1.0),
                                          [i, h])
            out = core.layers.reduce_sum(h)
        finally:
            core.disable_static()
    return main, out


def test_graph_of_ops_edges_blocks():
    main, _ = _program()
    g = graph_of(main)
    types = [op["type"] for op in g.ops]
    assert types.count("cond") == 1 and types.count("while") == 1
    assert {b["role"] for i, b in g.blocks.items() if i} == {"true_block", "false_block",
                                                               "sub_block"}
    assert [s["name"] for s in g.sources if s["kind"] == "input"] == ["x"]
    assert sum(s["kind"] == "parameter" for s in g.sources) == 2  # fc weight and bias
    ids = {op["id"] for op in g.ops} | {s["id"] for s in g.sources}
    assert all(a in ids and b in ids for a, b, _ in g.edges)
    # the relu in the true block reads the fc output computed in block 0
    relu = next(op for op in g.ops if op["type"] == "relu")
    assert relu["block"] > 0
    assert any(dst == relu["id"] for _, dst, _ in g.edges)


def test_program_to_dot_clusters_and_origin_links():
    main, _ = _program()
    dot = core.static.program_to_dot(main)
    assert dot.startswith('digraph "program" {') and dot.rstrip().endswith("}")
    assert dot.count("subgraph cluster_b") == 3
    assert 'label="block 3: while sub_block"' in dot or "while sub_block" in dot
    assert "URL=" not in dot  # ops built without a translator carry no origin
    assert dot.count("{") == dot.count("}")
    assert re.search(r"b0_op\d+ -> b\d_op0 \[lhead=cluster_b\d", dot)


def test_program_to_dot_of_translated_function_names_user_lines():
    from translator import ProgramTranslator, declarative

    @declarative
    def f(x):
        if x.sum() > 0:
            y = x * 2.0
        else:
            y = x - 1.0
        return y

    main, *_ = ProgramTranslator().get_program(f, core.to_tensor(np.ones((2, 2), "float32")))
    dot = core.static.program_to_dot(main)
    line = f.dygraph_function.__code__.co_firstlineno
    assert f"test_graph.py:{line + 3}" in dot  # y = x * 2.0 inside the true block's cluster
    cluster = dot[dot.index("subgraph cluster_b1"):]
    assert f"test_graph.py:{line + 3}" in cluster.split("}")[0] or \
        f"test_graph.py:{line + 5}" in cluster.split("}")[0]


def test_html_is_self_contained_with_layout_inside_clusters():
    main, _ = _program()
    page = core.static.program_to_html(main, "demo")
    assert page.startswith("<!DOCTYPE html>")
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "<link" not in page and " src=" not in page
    data = json.loads(re.search(r'id="graph-data">(.*?)</script>', page, re.S).group(1))
    assert len(data["ops"]) == len(graph_of(main).ops)
    g, pos, clusters, width, height = layout(main)
    for idx, x, y, w, h in clusters:  # every op of a sub-block lies inside its box
        for op in g.ops:
            if op["block"] == idx:
                ox, oy, ow, oh = pos[op["id"]]
                assert x <= ox and ox + ow <= x + w and y <= oy and oy + oh <= y + h
    assert all(0 <= x and x + w <= width + 1 and 0 <= y and y + h <= height + 1
               for x, y, w, h in pos.values())


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _read_png(path):
    """RGB(A) pixels of an 8-bit PNG as an array (height, width, channels)."""
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(raw):
        n, kind = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, color = header[:4]
    assert depth == 8 and color in (2, 6)
    ch = 3 if color == 2 else 4
    data = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + width * ch)
    out = np.zeros((height, width * ch), np.int32)
    prev = np.zeros(width * ch, np.int32)
    for r in range(height):
        kind, line = data[r, 0], data[r, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) % 256
        else:
            cur = np.zeros_like(line)
            for i in range(len(line)):
                a = cur[i - ch] if i >= ch else 0
                b, c = prev[i], prev[i - ch] if i >= ch else 0
                if kind == 1:
                    pred = a
                elif kind == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + pred) % 256
        out[r] = prev = cur
    return out.reshape(height, width, ch)[:, :, :3]


@pytest.mark.browser
def test_html_renders_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium found (apt-get install chromium)")
    main, _ = _program()
    page = tmp_path / "graph.html"
    page.write_text(core.static.program_to_html(main, "demo"), encoding="utf-8")
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=480,360", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=False,
                   env={**os.environ, "HOME": str(tmp_path)})
    assert shot.exists(), "Chromium wrote no screenshot"
    pixels = _read_png(str(shot))
    assert pixels.shape[:2] == (360, 480)
    graph_area = pixels[:, :480 - 330]  # left of the 320px details panel
    ink = np.any(graph_area < 200, axis=-1).mean()
    assert ink > 0.01, f"the graph area is blank ({ink:.4f} dark)"
    op_fill = np.all(np.abs(graph_area - np.array([0xee, 0xf3, 0xfb])) <= 3, axis=-1).sum()
    cluster_fill = np.all(np.abs(graph_area - np.array([0xfb, 0xf3, 0xf3])) <= 3, axis=-1).sum()
    assert op_fill > 50 and cluster_fill > 50, (op_fill, cluster_fill)
    # the inline script ran without error: it marks the body ready after fitting the view
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=480,360", "--dump-dom", page.as_uri()],
                         capture_output=True, timeout=120, text=True, check=False,
                         env={**os.environ, "HOME": str(tmp_path)}).stdout
    assert 'data-ready="1"' in dom
    # an op named in the address is selected and its details shown, as a click does
    cond_id = next(op["id"] for op in graph_of(main).ops if op["type"] == "cond")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=480,360", "--dump-dom", page.as_uri() + f"#op={cond_id}"],
                         capture_output=True, timeout=120, text=True, check=False,
                         env={**os.environ, "HOME": str(tmp_path)}).stdout
    assert "<h3>cond</h3>" in dom and "true_block" in dom

"""The layering of core, read from the source: no import cycle among its files, the static IR
never imports the eager side or the layers above it, few in-function imports, and every
package imports on its own in a fresh interpreter."""
import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import core

ROOT = Path(__file__).resolve().parents[2]
# What the static IR (core/static/) may not import: the eager side and everything above it.
ABOVE_STATIC = ("core/tensor.py", "core/autograd.py", "core/dispatch.py", "core/indexing.py",
                "core/parameter.py", "core/layers/", "core/nn/", "core/optimizer.py", "core/io/")
MAX_IN_FUNCTION_IMPORTS = 10


def _resolve(module, current, level):
    """The core file an import names, relative to ``current`` (a path under ROOT), or None."""
    if level:
        parts = current.split("/")[:-level] + (module.split(".") if module else [])
    else:
        parts = (module or "").split(".")
        if parts[0] not in ("core", "translator"):
            return None
    path = "/".join(parts)
    if (ROOT / f"{path}.py").is_file():
        return f"{path}.py"
    if (ROOT / path / "__init__.py").is_file():
        return f"{path}/__init__.py"
    return None


def _imports(rel):
    """``[(target file, line, at module level)]`` for the core imports of file ``rel``."""
    tree = ast.parse((ROOT / rel).read_text())
    top = {id(n) for n in tree.body}
    guarded = {id(n) for s in tree.body if isinstance(s, (ast.If, ast.Try)) for n in ast.walk(s)}
    out = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            module = _resolve(node.module, rel, node.level)
            for alias in node.names:
                sub = _resolve(f"{node.module}.{alias.name}" if node.module else alias.name,
                               rel, node.level)
                targets.append(sub or module)
        elif isinstance(node, ast.Import):
            targets = [_resolve(a.name, rel, 0) for a in node.names]
        for t in targets:
            if t is not None and t != rel:
                out.append((t, node.lineno, id(node) in top or id(node) in guarded))
    return out


def _core_files(package="core"):
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / package).rglob("*.py")
                  if "__pycache__" not in p.parts)


@pytest.fixture(scope="module")
def graph():
    return {f: _imports(f) for f in _core_files()}


def _cycle(edges):
    """One import cycle as a list of files, or None (iterative depth-first search)."""
    state = {}
    for start in edges:
        if start in state:
            continue
        stack = [(start, iter(edges[start]))]
        state[start] = "open"
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = "done"
                stack.pop()
            elif state.get(nxt) == "open":
                path = [n for n, _ in stack]
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = "open"
                stack.append((nxt, iter(edges.get(nxt, ()))))
    return None


def test_no_import_cycle_among_core_files(graph):
    edges = {f: sorted({t for t, _, _ in imps}) for f, imps in graph.items()}
    cycle = _cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_import_cycle_in_the_translator_and_core_never_imports_it(graph):
    tr = {f: _imports(f) for f in _core_files("translator")}
    edges = {f: sorted({t for t, _, _ in imps}) for f, imps in tr.items()}
    cycle = _cycle(edges)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
    up = [f"{f}:{line} -> {t}" for f, imps in graph.items() for t, line, _ in imps
          if t.startswith("translator/")]
    assert not up, up


def test_translator_uses_no_private_core_name():
    """No ``from core.x import _y`` and no ``_y`` attribute of a core module, class or object
    the translator got from core (``core.x._y``, ``Block._remove_op``, ``tensor._data``)."""
    private_core_attrs = {"_data", "_remove_op", "_remove_var", "_bump", "_state", "_wrap",
                          "_grad_state", "_find_var_recursive", "_node", "_grad"}
    bad = []
    for rel in _core_files("translator"):
        tree = ast.parse((ROOT / rel).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("core"):
                bad += [f"{rel}:{node.lineno} {a.name}" for a in node.names
                        if a.name.startswith("_")]
            elif isinstance(node, ast.Attribute) and node.attr in private_core_attrs and \
                    not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                bad.append(f"{rel}:{node.lineno} .{node.attr}")
    assert not bad, "translator uses private core names:\n" + "\n".join(bad)


def test_cycle_finder_reports_a_cycle():
    assert _cycle({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) in (
        ["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"])
    assert _cycle({"a": ["b"], "b": [], "c": ["a", "b"]}) is None


def test_static_ir_never_imports_the_eager_side_or_above(graph):
    bad = [f"{f}:{line} -> {t}" for f, imps in graph.items() if f.startswith("core/static/")
           for t, line, _ in imps if t.startswith(ABOVE_STATIC)]
    assert not bad, "static IR imports a higher stair:\n" + "\n".join(bad)


def test_few_in_function_imports(graph):
    lazy = [f"{f}:{line}" for f, imps in graph.items() for _, line, top in imps if not top]
    assert len(set(lazy)) <= MAX_IN_FUNCTION_IMPORTS, lazy


@pytest.mark.parametrize("module", ["core", "core.static", "translator", "core.static.program",
                                    "core.nn", "core.layers", "core.static.builder",
                                    "core.tensor"])
def test_imports_alone_in_a_fresh_interpreter(module):
    run = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_one_create_parameter_behind_every_spelling():
    from core import parameter
    from core.nn import param

    assert param.create_parameter is parameter.create_parameter
    assert core.static.create_parameter is core.layers.create_parameter
    assert not hasattr(core.static.builder, "create_parameter")


def test_hooks_are_registered_by_the_modules_above():
    from core import dispatch, indexing, operator_mixin

    shape = importlib.import_module("core.layers.shape")  # core.layers.shape is the function
    assert operator_mixin.apply is dispatch.apply
    assert operator_mixin.getitem is indexing.getitem
    assert operator_mixin.setitem is indexing.setitem
    assert operator_mixin.reshape is shape.reshape
    with pytest.raises(ValueError, match="unknown hook"):
        operator_mixin.register(transpose=None)

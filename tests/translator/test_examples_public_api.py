"""The examples use the public API only, and lint finds no errors in them."""
import ast
import os

from translator import lint

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
INTERNAL = ("core.dispatch", "core.ops", "core.static.builder", "core.static.codegen",
            "core.autograd", "translator.convert_ops", "translator.partial_program")


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def test_examples_use_public_names_only():
    bad = []
    for name in sorted(os.listdir(EXAMPLES)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(EXAMPLES, name)
        with open(path) as f:
            tree = ast.parse(f.read())
        with open(path) as f:
            assert ast.get_docstring(ast.parse(f.read())), f"{name} has no module docstring"
        for node in ast.walk(tree):
            used = []
            if isinstance(node, ast.ImportFrom) and node.module:
                used = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                used = [a.name for a in node.names]
            elif isinstance(node, ast.Attribute):
                used = [_dotted(node)]
            for u in used:
                if u.startswith(INTERNAL) or any(p.startswith("_") and not p.startswith("__")
                                                 for p in u.split(".")[1:]
                                                 if u.split(".")[0] in ("core", "translator")):
                    bad.append(f"{name}:{node.lineno}: {u}")
    assert bad == []


def test_lint_finds_no_errors_in_examples():
    errors = [str(f) for f in lint(EXAMPLES) if f.severity == "error"]
    assert errors == []

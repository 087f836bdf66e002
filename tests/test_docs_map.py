"""`docs/internals.md` is the one-hop map of the tree: these tests keep it from rotting.

Every op family module, optimisation pass module and source transformer module is named in
it by its path; every op type is listed in its family's row of the op family table; every
path written in backticks exists; every link to a section of the page finds its heading.
"""
import pathlib
import re

import pytest

from core.ops.registry import all_ops

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC_PATH = ROOT / "docs" / "internals.md"
DOC = DOC_PATH.read_text(encoding="utf-8")

# `core/static/plan.py`, `core/indexing.py::setitem`, `core/io/`, `prefetch.py`, `../x.md`
_PATH = re.compile(r"^((?:\.\./|[\w.-]+/)*[\w.-]+(?:\.(?:py|md|toml|txt|cfg)|/))(?:::?\w+)?$")


def _modules(package, skip=("__init__",)):
    """The ``.py`` modules directly in ``package`` (a path relative to the root), as
    root-relative paths, leaving out private ones and those in ``skip``."""
    return sorted(f"{package}/{p.name}" for p in (ROOT / package).glob("*.py")
                  if not p.stem.startswith("_") and p.stem not in skip)


def _backticked_paths(text):
    """The file and folder paths written in backticks in ``text`` (templates such as
    ``core/ops/<family>.py`` left out)."""
    paths = []
    for token in re.findall(r"`([^`\n]+)`", text):
        m = _PATH.match(token.strip())
        if m and "<" not in token:
            paths.append(m.group(1))
    return sorted(set(paths))


def _tree_files():
    return {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts}


def _family_rows():
    """``{family module path: its row of the op family table}``."""
    rows = {}
    for line in DOC.splitlines():
        m = re.match(r"^\| `(core/ops/\w+\.py)` \|", line)
        if m:
            assert m.group(1) not in rows, f"two rows for {m.group(1)}"
            rows[m.group(1)] = line
    return rows


def _anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


FAMILIES = _modules("core/ops", skip=("__init__", "registry"))
PASSES = _modules("core/static/passes")
TRANSFORMERS = _modules("translator/transformers")


def test_the_module_lists_are_not_empty():
    # NOTE: an empty glob (a moved package) would make the parametrized tests vacuous
    assert "core/ops/math.py" in FAMILIES
    assert "core/static/passes/dce.py" in PASSES
    assert "translator/transformers/loop.py" in TRANSFORMERS


@pytest.mark.parametrize("module", FAMILIES)
def test_every_op_family_has_a_row(module):
    assert module in _family_rows(), (
        f"{module} has no row in the op family table of docs/internals.md; add one "
        "(op types, public functions, cases file, ONNX mapper module)")


def test_every_row_is_a_family_module():
    stale = sorted(set(_family_rows()) - set(FAMILIES))
    assert not stale, f"rows of the op family table name no family module: {stale}"


def test_every_op_type_is_in_its_family_row():
    rows = _family_rows()
    missing = []
    for op in all_ops():
        module = type(op).__module__
        if not module.startswith("core.ops."):
            continue  # an op registered outside the families (a test's, a translator's)
        path = module.replace(".", "/") + ".py"
        row = rows.get(path, "")
        if f"`{op.type}`" not in row:
            missing.append(f"{op.type} ({path})")
    assert not missing, f"op types missing from their row of the op family table: {missing}"


@pytest.mark.parametrize("module", PASSES)
def test_every_pass_module_is_named(module):
    assert f"`{module}`" in DOC, f"{module} is not named in docs/internals.md"


@pytest.mark.parametrize("module", TRANSFORMERS)
def test_every_transformer_module_is_named(module):
    assert f"`{module}`" in DOC, f"{module} is not named in docs/internals.md"


def test_paths_in_the_doc_exist():
    files = _tree_files()
    dirs = {str(pathlib.PurePosixPath(f).parent) + "/" for f in files}
    missing = []
    for path in _backticked_paths(DOC):
        if path.startswith("../"):
            missing.append(path)  # outside the repository: not a path a reader can open
        elif path.endswith("/"):
            if path not in dirs and not any(d.startswith(path) for d in dirs):
                missing.append(path)
        elif "/" in path:
            if path not in files:
                missing.append(path)
        elif not any(f == path or f.endswith("/" + path) for f in files):
            missing.append(path)  # a bare file name, written in the section of its package
    assert not missing, f"docs/internals.md names paths that do not exist: {missing}"


def test_path_pattern_finds_what_it_should():
    text = ("`core/ops/math.py` `core/indexing.py::setitem` `core/io/` `prefetch.py` "
            "`core/ops/<family>.py` `x + y` `core.layers` `a.b.c`")
    assert _backticked_paths(text) == ["core/indexing.py", "core/io/", "core/ops/math.py",
                                       "prefetch.py"]


def test_section_links_resolve():
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", DOC, re.M)}
    links = re.findall(r"\]\(#([^)]+)\)", DOC)
    assert links, "the map links to no section"
    broken = sorted(set(links) - anchors)
    assert not broken, f"links to sections that do not exist: {broken}"


def test_no_machine_paths():
    assert not re.search(r"(?<![\w.])/(?:work|home|tmp|Users)/", DOC)

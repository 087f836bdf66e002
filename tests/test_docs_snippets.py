"""Every ```python block of README.md and docs/**/*.md runs, so no snippet drifts from the code.

A block is a complete program: it runs alone, in a fresh namespace, in an empty temporary
directory (what it writes goes there), as a file whose line numbers are those of the page, so
a failure names the page and line. Words after ``python`` in the fence's info string mark
what a block needs: ``mpi`` (run by the launcher with 2 processes; skipped without mpi4py and
mpiexec) and ``gpu`` (skipped without cupy and a CUDA device). Other fences (``bash``,
``text``, none) are not run. The README's test command is the one CI runs.
"""
import importlib
import os
import pathlib
import re
import runpy
import shutil
import subprocess
import sys

import pytest

import core

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
MARKERS = {"mpi", "gpu"}
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


def extract(text):
    """The fenced blocks of a markdown ``text``: ``(first code line, info words, code)``."""
    blocks, lines, k = [], text.splitlines(), 0
    while k < len(lines):
        m = _FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        fence, start, body = m.group("fence"), k + 1, []
        k += 1
        while k < len(lines) and not (lines[k].strip().startswith(fence) and
                                      lines[k].strip().strip(fence[0]) == ""):
            body.append(lines[k])
            k += 1
        blocks.append((start + 1, m.group("info").split(), "\n".join(body) + "\n"))
        k += 1
    return blocks


def _python_blocks():
    found = []
    for page in PAGES:
        rel = page.relative_to(ROOT).as_posix()
        for line, info, code in extract(page.read_text(encoding="utf-8")):
            if info and info[0] == "python":
                found.append(pytest.param(rel, line, info[1:], code, id=f"{rel}:{line}"))
    return found


BLOCKS = _python_blocks()


def _have_mpi():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return shutil.which("mpiexec", path=os.path.dirname(sys.executable)) is not None or \
        shutil.which("mpiexec") is not None


def _as_file(tmp_path, rel, line, code):
    """The block as a ``.py`` file whose line numbers are the page's."""
    path = tmp_path / (rel.replace("/", "__") + f"_L{line}.py")
    path.write_text("\n" * (line - 1) + code, encoding="utf-8")
    return path


def test_the_pages_have_python_blocks():
    # NOTE: an extractor that finds nothing would make the parametrized test vacuous
    pages = {p.values[0] for p in BLOCKS}
    assert "README.md" in pages and len(pages) >= 5, pages
    assert len(BLOCKS) >= 20


def test_extract_reads_fences_and_info_strings():
    text = ("intro\n```python gpu\nx = 1\n\ny = 2\n```\n"
            "```bash\necho hi\n```\n"
            "````python\n```\nnested = True\n````\n")
    assert extract(text) == [(3, ["python", "gpu"], "x = 1\n\ny = 2\n"),
                             (8, ["bash"], "echo hi\n"),
                             (11, ["python"], "```\nnested = True\n")]


@pytest.mark.parametrize("rel,line,markers,code", BLOCKS)
def test_python_block_runs(rel, line, markers, code, tmp_path, monkeypatch):
    unknown = set(markers) - MARKERS
    assert not unknown, f"{rel}:{line}: unknown fence markers {sorted(unknown)} (known: " \
                        f"{sorted(MARKERS)})"
    if "gpu" in markers and not core.is_compiled_with_cuda():
        pytest.skip("needs cupy and a CUDA device")
    if "mpi" in markers and not _have_mpi():
        pytest.skip("needs mpi4py and mpiexec (dist extra)")
    work = tmp_path / "work"
    work.mkdir()
    script = _as_file(tmp_path, rel, line, code)
    monkeypatch.chdir(work)
    if "mpi" in markers:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        for k in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PMI_RANK", "PMI_SIZE"):
            env.pop(k, None)
        r = subprocess.run([sys.executable, "-m", "core.distributed.launch",
                            "--nproc_per_node", "2", "--log_dir", str(tmp_path / "logs"),
                            "--timeout", "240", str(script)], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300)
        logs = "".join(p.read_text() for p in sorted((tmp_path / "logs").glob("*")))
        assert r.returncode == 0, f"{rel}:{line} failed under the launcher:\n{r.stderr}\n{logs}"
        return
    monkeypatch.syspath_prepend(str(ROOT))
    try:
        runpy.run_path(str(script), run_name="__main__")
    finally:
        if not core.in_dynamic_mode():
            core.disable_static()


# -- the README is the front door ---------------------------------------------------------------
README = (ROOT / "README.md").read_text(encoding="utf-8")
DEMO = "python -m pip install -e . && python examples/mnist_declarative.py"
TESTS = "python -m pip install -q -e '.[test]' && python -m pytest -q tests"


def test_readme_is_short_and_has_the_two_commands():
    assert len(README.splitlines()) <= 250
    bash = [code for _, info, code in extract(README) if info[:1] == ["bash"]]
    assert DEMO + "\n" in bash and TESTS + "\n" in bash
    assert (ROOT / "examples" / "mnist_declarative.py").exists()


def test_ci_runs_the_readmes_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert TESTS in ci, ".ci/run no longer runs the README's test command verbatim"


def test_links_between_pages_resolve():
    broken = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, mailto:
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, f"links to files that do not exist: {broken}"


def test_no_machine_paths_in_the_docs():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(?:work|home|tmp|Users|root)/", text), page


# -- the API reference pages ------------------------------------------------------------------
def _resolve(dotted):
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for name in parts[k:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("page", ["core", "translator", "dy2static"])
def test_api_reference_names_exist(page):
    text = (ROOT / "docs" / "api" / f"{page}.md").read_text(encoding="utf-8")
    names = re.findall(r"^\| `((?:core|translator|dy2static)(?:\.\w+)*)` \|", text, re.M)
    assert len(names) >= 10, f"docs/api/{page}.md lists no names"
    missing = []
    for name in names:
        try:
            _resolve(name)
        except (ImportError, AttributeError):
            missing.append(name)
    assert not missing, f"docs/api/{page}.md names what does not exist: {missing}"

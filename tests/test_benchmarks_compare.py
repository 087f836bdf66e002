"""benchmarks/compare.py: its argument handling, how it reads figures, and its table."""
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "compare.py")


def _load():
    spec = importlib.util.spec_from_file_location("bench_compare", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = _load()


def test_figures_with_units_and_names():
    text = ("medians of 30 runs (CPU, numpy 2.0)\n"
            "f warm declarative call    81.3 us   2.99x numpy (goal <= 1.3x)\n"
            "mnist batch 1   executor    0.223 ms  onnxruntime    0.085 ms  ratio 2.62x\n"
            "  1 process :     1200 samples/s (53.3 ms/step)\n"
            "  numpy        1.50 ms   1.00x   1.40 ms  1.00x\n"
            "reshaped-tile 2x2 pooling, 1e-3 s\n")
    got = compare.parse_figures(text)
    names = [n for n, _, _ in got]
    assert names == [
        "f warm declarative call", "f warm declarative call | #2",
        "mnist batch 1   executor", "mnist batch 1   executor | onnxruntime",
        "mnist batch 1   executor | ratio", "1 process", "1 process | #2",
        "numpy", "numpy | #2", "numpy | #3", "numpy | #4", "reshaped-tile 2x2 pooling,"]
    values = dict((n, (v, u)) for n, v, u in got)
    assert values["f warm declarative call"][1] == "us"
    assert values["f warm declarative call"][0] == pytest.approx(81.3e-6)
    assert values["mnist batch 1   executor | onnxruntime"][0] == pytest.approx(0.085e-3)
    assert values["1 process"] == (1200.0, "samples/s")
    assert values["1 process | #2"][0] == pytest.approx(53.3e-3)
    assert values["reshaped-tile 2x2 pooling,"] == (pytest.approx(1e-3), "s")


def test_repeated_names_are_numbered():
    got = compare.parse_figures("step 1.0 ms\nstep 2.0 ms\n")
    assert [n for n, _, _ in got] == ["step", "step (2)"]


def test_summary_and_table_ratio():
    runs = [[("a", 2e-3, "ms"), ("b", 1.5, "x")], [("a", 4e-3, "ms"), ("b", 1.7, "x")],
            [("a", 3e-3, "ms")]]
    assert compare.summarize(runs) == [("a", "ms", 3e-3, 2e-3, 4e-3),
                                       ("b", "x", pytest.approx(1.6), 1.5, 1.7)]
    lines = compare.table("demo", runs, [[("a", 6e-3, "ms"), ("c", 1.0, "s")]], "v1")
    assert lines[0] == "== demo"
    assert lines[1].split() == ["figure", "working", "tree", "[spread]", "v1", "[spread]",
                                "ratio"]
    row_a = next(line for line in lines if line.startswith("a "))
    assert "3.000 ms [2.000 ms..4.000 ms]" in row_a and row_a.rstrip().endswith("0.50")
    row_c = next(line for line in lines if line.startswith("c "))
    assert row_c.split()[1] == "-" and row_c.rstrip().endswith("-")


def test_scripts_listed_without_compare():
    names = compare.scripts_in(os.path.dirname(SCRIPT))
    assert "overhead" in names and "compare" not in names


def test_bad_arguments_name_the_argument(capsys):
    with pytest.raises(SystemExit) as e:
        compare.parse_args(["HEAD", "--only", "no_such_benchmark"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--only" in err and "no_such_benchmark" in err and "overhead" in err
    with pytest.raises(SystemExit):
        compare.parse_args(["no-such-revision-xyz"])
    assert "REV" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        compare.parse_args(["HEAD", "--rounds", "0"])
    assert "--rounds" in capsys.readouterr().err
    args = compare.parse_args(["HEAD", "--only", "overhead", "--args", "--repeat 2"])
    assert args.names == ["overhead"] and args.extra == ["--repeat", "2"]
    assert len(args.commit) == 40


def test_export_leaves_the_working_tree_alone(tmp_path):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout
    compare.export(compare.resolve("HEAD"), str(tmp_path))
    assert (tmp_path / "core" / "__init__.py").exists()
    assert (tmp_path / "benchmarks").is_dir()
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip() == head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout == status


def test_command_line_rejects_an_unknown_revision():
    proc = subprocess.run([sys.executable, SCRIPT, "no-such-revision-xyz"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "REV" in proc.stderr

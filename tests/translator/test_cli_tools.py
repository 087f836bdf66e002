"""``dy2static report | check | graph | lint`` and ``--init-args``."""
import os
import subprocess
import sys
import textwrap

import pytest

from translator.__main__ import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SOURCE = textwrap.dedent('''\
    import core
    from translator import declarative

    COUNTER = [0]


    class Scaler(core.nn.Layer):
        def __init__(self, size, factor=1.0):
            super().__init__()
            self.fc = core.nn.Linear(size, size)
            self.factor = factor

        def forward(self, x):
            h = self.fc(x)
            if h.mean() > 0:
                h = h * self.factor
            return h


    @declarative
    def frozen(x):
        COUNTER[0] += 1
        return x + COUNTER[0]


    def pick(x, idx):
        return core.layers.gather(x, idx) * 2.0


    def loops(x, n=3):
        for _ in range(n):
            x = x * 2.0
        while x.sum() > 1:
            x = x * 0.5
        return x
''')


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_report_command(model_file, capsys):
    code, out, err = run(capsys, "report", f"{model_file}:loops", "--input-spec", "x:float32[2,3]",
                         "--arg", "n=4")
    assert code == 0, err
    assert "for: stayed Python (iterable is a Python range (range(0, 4))); unrolled 4" in out
    assert "while: became a while op (condition is a Tensor bool[])" in out


def test_method_needs_init_args(model_file, capsys):
    code, _, err = run(capsys, "report", f"{model_file}:Scaler.forward", "--input-spec",
                       "x:float32[-1,4]")
    assert code == 1 and "--init-args" in err and "size" in err
    code, out, err = run(capsys, "report", f"{model_file}:Scaler.forward", "--input-spec",
                         "x:float32[-1,4]", "--init-args", "4, factor=2.0")
    assert code == 0, err
    assert "if: became a cond op" in out
    # the main command takes it too
    code, out, err = run(capsys, f"{model_file}:Scaler.forward", "--program", "--input-spec",
                         "x:float32[-1,4]", "--init-args", "4")
    assert code == 0, err
    assert "cond(" in out
    code, _, err = run(capsys, "report", f"{model_file}:Scaler.forward", "--input-spec",
                       "x:float32[-1,4]", "--init-args", "4, open('f')")
    assert code == 2 and "Python literals" in err


def test_check_command_finds_frozen_value(model_file, capsys):
    code, out, err = run(capsys, "check", f"{model_file}:frozen", "--input-spec",
                         "x:float32[-1,3]")
    assert code == 1, err
    assert "first differing op: 'elementwise_add'" in out
    assert "return x + COUNTER[0]" in out
    code, out, err = run(capsys, "check", f"{model_file}:loops", "--input-spec",
                         "x:float32[-1,3]", "--batch-size", "5")
    assert code == 0, err
    assert "agree" in out


def test_check_command_integer_inputs(model_file, capsys):
    spec = ("--input-spec", "x:float32[4,3]", "--input-spec", "idx:int64[5]")
    code, out, err = run(capsys, "check", f"{model_file}:pick", *spec)
    assert code == 0 and "agree" in out, err
    code, out, err = run(capsys, "check", f"{model_file}:pick", *spec, "--int-high", "50")
    assert code == 1 and "gather" in err  # ids past the 4 rows: the op's own error


def test_graph_command_dot_and_html(model_file, tmp_path, capsys):
    code, out, err = run(capsys, "graph", f"{model_file}:loops", "--input-spec",
                         "x:float32[2,3]")
    assert code == 0, err
    assert out.startswith('digraph "loops"') and "cluster_b1" in out
    assert "model.py:" in out
    target = tmp_path / "g.html"
    code, out, err = run(capsys, "graph", f"{model_file}:Scaler.forward", "--format", "html",
                         "--input-spec", "x:float32[-1,4]", "--init-args", "4", "-o",
                         str(target))
    assert code == 0 and out == "", err
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "cond" in page
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".dy2static-")]


def test_lint_command_exit_status(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("from translator import declarative\n\n@declarative\ndef g(x):\n"
                   "    yield x\n")
    good = tmp_path / "good.py"
    good.write_text("from translator import declarative\n\n@declarative\ndef g(x):\n"
                    "    return x * 2\n")
    code, out, _ = run(capsys, "lint", str(good))
    assert code == 0 and "0 finding(s), 0 error(s)" in out
    code, out, _ = run(capsys, "lint", str(tmp_path))
    assert code == 1
    assert f"{bad}:5:5: D2S101 error" in out and "1 error(s)" in out
    code, _, err = run(capsys, "lint", str(tmp_path / "missing.py"))
    assert code == 2 and "missing.py" in err


def test_tools_run_as_a_subprocess(model_file):
    env = {**os.environ, "PYTHONPATH": ROOT}
    proc = subprocess.run([sys.executable, "-m", "translator", "lint", model_file],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "finding(s)" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "translator", "report", model_file],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2 and "declares no input_spec" in proc.stderr

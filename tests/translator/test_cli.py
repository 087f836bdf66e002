"""The command line tool: ``python -m translator FILE.py[:QUALNAME]`` and its options."""
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from translator.__main__ import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SOURCE = textwrap.dedent('''\
    import core
    from translator import declarative, InputSpec

    SCALE = 3
    RAN = []


    @declarative
    def double_if_positive(x):
        if x.mean() > 0:
            x = x * 2
        return x


    class Net(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = core.nn.Linear(4, 2)

        @declarative(input_spec=[InputSpec([None, 4], "float32", "img")])
        def forward(self, img):
            return self.fc(img) * SCALE


    def helper(y):
        while y.sum() < 10:
            y = y + 1
        return y


    RAN.append(1)
    raise SystemExit("top-level code must not run")
''')


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    return str(path)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_every_decorated_function_with_its_origin(model_file, capsys):
    code, out, err = run_cli(capsys, model_file)
    assert code == 0, err
    assert f"# double_if_positive (converted from {model_file}:9)" in out
    assert f"# Net.forward (converted from {model_file}:21)" in out
    assert "convert_ifelse" in out and "def forward(self, img):" in out
    assert "helper" not in out  # not decorated


def test_named_function_need_not_be_decorated(model_file, capsys):
    code, out, _ = run_cli(capsys, f"{model_file}:helper")
    assert code == 0
    assert "convert_while_loop" in out and "double_if_positive" not in out


def test_diff_option(model_file, capsys):
    code, out, _ = run_cli(capsys, f"{model_file}:double_if_positive", "--diff")
    assert code == 0
    assert "--- " in out and "+++ " in out
    assert "-    if x.mean() > 0:" in out
    assert any(line.startswith("+") and "convert_ifelse" in line for line in out.splitlines())


def test_passes_option(model_file, capsys):
    code, out, _ = run_cli(capsys, f"{model_file}:helper", "--passes")
    assert code == 0
    assert "# --- original ---\ndef helper(y):" in out
    # each pass that changed the code is a diff of the code before it
    loop = out.index("# --- after loop ---")
    assert "\n-    while _d2s.convert_call(y.sum)() < 10:" in out[loop:]
    assert "\n+    def __loop_body_0():" in out[loop:]
    assert out.count("# --- after ") >= 1
    # passes that changed nothing are named once, not printed
    unchanged = out.split("# unchanged by: ")[1].split("\n")[0].split(", ")
    assert "ifelse" in unchanged and "# --- after ifelse ---" not in out


def test_program_option_with_input_specs(model_file, capsys):
    code, out, err = run_cli(capsys, f"{model_file}:double_if_positive", "--program",
                             "--input-spec", "x:float32[-1,3]")
    assert code == 0, err
    assert "# inputs: x: float32[-1, 3]" in out
    assert "cond(" in out and "block 1" in out
    code, out, err = run_cli(capsys, f"{model_file}:helper", "--program", "--input-spec",
                             "float64[2]")
    assert code == 0, err
    assert "# inputs: y: float64[2]" in out and "while(" in out


def test_program_option_uses_the_declared_input_spec(model_file, capsys):
    code, out, err = run_cli(capsys, f"{model_file}:Net.forward", "--program")
    assert code == 0, err
    assert "# inputs: img: float32[-1, 4]" in out
    assert "matmul" in out or "mul(" in out


def test_output_file_is_written(model_file, tmp_path, capsys):
    target = tmp_path / "out" / "converted.py"
    target.parent.mkdir()
    code, out, _ = run_cli(capsys, model_file, "-o", str(target))
    assert code == 0 and out == ""
    text = target.read_text()
    assert "double_if_positive" in text
    assert [p.name for p in target.parent.iterdir()] == ["converted.py"]  # no temp files left
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # the permissions a plain open gives (the umask applies)
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


@pytest.mark.parametrize("argv_tail,message", [
    (("{missing}",), "no such file"),
    (("{file}:nope",), "no function or method named 'nope'"),
    (("{file}:helper", "--input-spec", "x:float32[2]"), "only apply with --program"),
    (("{file}:helper", "--program", "--input-spec", "y:float32[2,x]"), "is not an int"),
    (("{file}:helper", "--program", "--input-spec", "q:float32[2]"), "has no argument"),
    (("{file}:helper", "--program"), "declares no input_spec"),
    (("{file}:helper", "--program", "--arg", "y=[1,"), "not a Python literal"),
])
def test_usage_errors_exit_2(model_file, tmp_path, capsys, argv_tail, message):
    argv = [a.format(file=model_file, missing=str(tmp_path / "absent.py")) for a in argv_tail]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err and err.startswith("dy2static: error:")


def test_syntax_error_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n\ndef f(:\n    pass\n")
    code, _, err = run_cli(capsys, str(bad))
    assert code == 2
    assert f"{bad}:3: syntax error" in err


def test_file_without_decorated_functions(tmp_path, capsys):
    plain = tmp_path / "plain.py"
    plain.write_text("def f(x):\n    return x\n")
    code, _, err = run_cli(capsys, str(plain))
    assert code == 2 and "no function decorated" in err


def test_conflicting_modes_are_rejected(model_file, capsys):
    with pytest.raises(SystemExit) as info:
        main([model_file, "--diff", "--passes"])
    assert info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_translation_failure_exits_1(tmp_path, capsys):
    src = tmp_path / "gen.py"
    src.write_text("from translator import declarative\n\n@declarative\ndef g(x):\n"
                   "    yield x\n")
    code, _, err = run_cli(capsys, str(src))
    assert code == 1
    assert "translating g failed" in err and "yield" in err


def test_module_entry_point_runs_as_a_subprocess(model_file):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "translator", f"{model_file}:helper"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "def helper(y):" in done.stdout
    done = subprocess.run([sys.executable, "-m", "translator", model_file + ".missing"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "no such file" in done.stderr


def test_import_option_runs_the_top_level_code(model_file, tmp_path, capsys):
    code, _, err = run_cli(capsys, f"{model_file}:helper", "--import")
    assert code == 1 and "top-level code must not run" in err
    ok = tmp_path / "needs_state.py"
    ok.write_text("from translator import declarative\nTABLE = dict(k=2)\n\n@declarative\n"
                  "def f(x):\n    return x * TABLE['k']\n")
    code, out, err = run_cli(capsys, str(ok), "--import", "--program", "--input-spec",
                             "x:float32[3]")
    assert code == 0, err
    assert "elementwise_mul" in out
    code, _, err = run_cli(capsys, str(ok), "--program", "--input-spec", "x:float32[3]")
    assert code == 1 and "TABLE" in err  # the call is not run without --import


def test_help_names_the_other_commands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for command in ("dy2static report|check|graph|lint", "dy2static onnx MODEL_DIR"):
        assert command in out

"""``onnx`` is an optional extra: ``import core`` (and ``core.onnx``, ``translator.onnx``) works
without it, and exporting says what to install."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

_SCRIPT = """
import sys
sys.modules["onnx"] = None  # as if the package were not installed
import core
assert "onnx" not in [m for m in sys.modules if sys.modules[m] is not None]
import core.onnx
import translator.onnx
try:
    core.onnx.export_program(core.static.Program(), "m.onnx", fetch=["y"])
except ImportError as e:
    print(e)
"""


def test_core_imports_without_onnx_and_export_says_what_to_install(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install dy2static[onnx]" in out.stdout
    assert not os.listdir(tmp_path)


def test_import_core_does_not_load_onnx():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", "import sys, core, translator; "
                          "print('onnx' in sys.modules)"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_onnx_modules_are_attributes_of_the_packages():
    # ``paddle.onnx.export`` works after ``import paddle``; ours load on first attribute use
    code = ("import sys, core, translator\n"
            "assert 'core.onnx' not in sys.modules and 'translator.onnx' not in sys.modules\n"
            "import core.onnx as c, translator.onnx as t\n"
            "assert core.onnx is c and translator.onnx is t\n"
            "print(callable(core.onnx.export_program), callable(translator.onnx.export))\n")
    lazy = ("import sys, core, translator\n"
            "print(callable(core.onnx.export_program), callable(translator.onnx.export))\n"
            "try:\n    core.not_a_name\nexcept AttributeError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for script in (code, lazy):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[0] == "True True"
    assert "has no attribute 'not_a_name'" in out.stdout

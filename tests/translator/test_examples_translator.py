"""The translator's examples run and reach their stated results."""
import os
import sys

import pytest

from translator import ProgramTranslator

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                                "examples")))
import dynamic_decode  # noqa: E402
import mnist_declarative  # noqa: E402
import tree_sum  # noqa: E402


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def test_dynamic_decode_matches_eager(capsys):
    assert dynamic_decode.main()
    out = capsys.readouterr().out
    assert "declarative == eager: True" in out and "False" not in out


def test_tree_sum_shows_where_tracing_fails(capsys):
    assert tree_sum.main()
    out = capsys.readouterr().out
    assert "8 rows ok=False" in out  # the traced program
    assert "cannot trace" in out


@pytest.mark.slow
def test_mnist_declarative_pipeline(tmp_path, capsys):
    accuracy = mnist_declarative.main(["--epochs", "1", "--max-steps", "20",
                                       "--save-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert accuracy > 0.5
    assert "eager vs declarative: max |difference| 0.00e+00" in out or \
        "e-0" in out.split("eager vs declarative")[1].splitlines()[0]
    assert os.path.isdir(tmp_path / "mnist_dy2stat") and os.path.isdir(tmp_path / "mnist_infer")

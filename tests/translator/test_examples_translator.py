"""The translator's examples run and reach their stated results."""
import os
import sys

import pytest

from translator import ProgramTranslator

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                                "examples")))
import dynamic_decode
import mnist_declarative
import tree_sum


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
    for label in ("eager vs declarative", "reloaded inference model vs declarative"):
        line = next(x for x in out.splitlines() if x.startswith(label))
        assert float(line.rsplit(" ", 1)[1]) < 1e-5, line
    assert os.path.isdir(tmp_path / "mnist_dy2stat") and os.path.isdir(tmp_path / "mnist_infer")

"""``import core, translator`` leaves what a program may never use for its first use, and the
lazy names behave as eagerly imported ones."""
import subprocess
import sys

import pytest

import core

LAZY_MODULES = ["core.io.dataloader", "core.io.worker", "core.io.dataset", "core.reader",
                "core.dataset", "core.distributed", "core.dygraph", "core.imperative",
                "core.contrib", "core.onnx", "core.static.graph_html", "multiprocessing",
                "concurrent.futures", "translator.consistency_check", "translator.flow_report",
                "translator.linter", "translator.onnx"]


def test_import_leaves_the_optional_parts_unloaded():
    code = ("import sys, core, translator; "
            f"print([m for m in {LAZY_MODULES!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_lazy_names_resolve_to_the_module_values():
    from core import DataParallel, batch
    from core.io import DataLoader, DistributedBatchSampler, get_worker_info
    from core.static import program_to_html

    from core.distributed.parallel import DataParallel as dp
    from core.io.dataloader import DataLoader as dl
    from core.io.dataset import DistributedBatchSampler as dbs
    from core.io.worker import get_worker_info as gwi
    from core.reader import batch as b
    from core.static.graph_html import program_to_html as html
    assert (DataParallel, batch, DataLoader, DistributedBatchSampler, get_worker_info,
            program_to_html) == (dp, b, dl, dbs, gwi, html)
    assert core.program_to_html is html and core.dataset.mnist is not None
    assert core.dygraph.DataParallel is dp and core.imperative.DataParallel is dp


def test_the_translator_tools_load_on_first_use():
    import translator
    from translator.consistency_check import check
    from translator.flow_report import report
    from translator.linter import lint

    assert (translator.check, translator.report, translator.lint) == (check, report, lint)
    assert {"check", "report", "lint", "onnx"} <= set(dir(translator))
    with pytest.raises(AttributeError, match="'translator' has no attribute 'nope'"):
        translator.nope  # noqa: B018 - the error names the module


def test_public_names_are_listed_and_reachable():
    import core.reader

    assert set(core.reader.__all__) <= set(core.__all__)
    for module in (core, core.io, core.static):
        for name in module.__all__:
            assert getattr(module, name, None) is not None or name == "create_parameter", name
            assert name in dir(module), name


def test_unknown_attribute_names_the_module():
    with pytest.raises(AttributeError, match=r"'core\.io' has no attribute 'no_such_name'"):
        _ = core.io.no_such_name

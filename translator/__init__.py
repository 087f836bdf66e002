"""dygraph-to-static: ``declarative`` / ``to_static``, ``ProgramTranslator``, ``TracedLayer``,
``InputSpec``, and the command line tool (``python -m translator``).

``translator`` depends on ``core``; ``core`` never imports ``translator``.
"""
import importlib

from .consistency_check import check
from .convert import not_to_static
from .flow_report import report
from .linter import lint
from .input_spec import InputSpec
from .program_translator import (
                                 ConcreteProgram,
                                 ProgramTranslator,
                                 StaticFunction,
                                 declarative,
                                 to_static,
)
from .traced_layer import TracedLayer

__all__ = ["declarative", "to_static", "ProgramTranslator", "StaticFunction", "ConcreteProgram",
           "InputSpec", "TracedLayer", "not_to_static", "report", "check", "lint"]


def __getattr__(name):
    """``translator.onnx`` without an explicit ``import translator.onnx`` (as
    ``paddle.onnx.export``): loaded on first use, so ``import translator`` does not pay for the
    optional ``onnx`` package."""
    if name == "onnx":
        return importlib.import_module(".onnx", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

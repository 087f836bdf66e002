"""dygraph-to-static: ``declarative`` / ``to_static``, ``ProgramTranslator``, ``TracedLayer``,
``InputSpec``, and the command line tool (``python -m translator``).

``translator`` depends on ``core``; ``core`` never imports ``translator``.
"""
import importlib

from .convert import not_to_static
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

#: names loaded on first use, so ``import translator`` does not pay for the tools (report,
#: consistency check, linter) or for the optional ``onnx`` package: name -> (module, attribute)
_LAZY = {"check": (".consistency_check", "check"), "report": (".flow_report", "report"),
         "lint": (".linter", "lint"), "onnx": (".onnx", None)}


def __getattr__(name):
    """A tool (``translator.check`` / ``report`` / ``lint``) or ``translator.onnx`` (as
    ``paddle.onnx.export``), imported on first use and kept."""
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(entry[0], __name__)
    value = module if entry[1] is None else getattr(module, entry[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))

"""dygraph-to-static: ``declarative`` / ``to_static``, ``ProgramTranslator``, ``TracedLayer``,
``InputSpec``, and the command line tool (``python -m translator``).

``translator`` depends on ``core``; ``core`` never imports ``translator``.
"""
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

"""Export static Programs to ONNX, so onnxruntime (C, C++, C#, Java, JavaScript, Python) runs
them: :func:`export_program` for a Program or a saved inference model.

``onnx`` is an optional dependency (``pip install dy2static[onnx]``); this package imports
without it and :func:`export_program` says how to install it. ``cond`` becomes ``If``,
``while`` becomes ``Loop``, tensor arrays become ONNX sequences. Which ops map, and why the
others do not, is in :mod:`core.onnx.registry`; a mapper is a small function per op type in
the family modules ``ops_math``, ``ops_nn``, ``ops_shape``, ``ops_loss`` and ``ops_control``.
"""
from .convert import DEFAULT_OPSET
from .export import export_program, program_to_model, save_model
from .registry import MAPPERS, NOT_EXPORTABLE, ExportError

__all__ = ["DEFAULT_OPSET", "ExportError", "MAPPERS", "NOT_EXPORTABLE", "export_program",
           "program_to_model", "save_model"]

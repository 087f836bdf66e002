"""``export_program``: a static Program, or a saved inference-model directory, written as one
ONNX file.

The program is pruned for inference (:func:`core.static.prune.prune_for_inference`: backward
and optimizer ops dropped, ``is_test`` set, only what the fetches need from the feeds kept);
its persistable variables become initializers holding their current values. Every op is
checked for a mapping before anything is built, the model is checked with
``onnx.checker.check_model``, and the file is written under a temporary name and renamed into
place, so a failed export leaves no file behind (and an existing file unchanged)."""
import os

import numpy as np

from ..backend import as_numpy
from ..io.inference import load_inference_model
from ..io.variables import is_persistable, values_from_scope
from ..serialization.atomic import atomic_write
from ..static.program import Program
from ..static.prune import prune_for_inference
from ..static.scope import Scope, global_scope
from ..static.variable import names_of
from ._deps import onnx, require
from .convert import DEFAULT_OPSET, MIN_OPSET, build_model, check_mappable, check_model

__all__ = ["export_program", "program_to_model", "save_model"]


def _max_opset():
    return min(onnx.defs.onnx_opset_version(), 21)


def _opset(opset_version):
    if opset_version is None:
        return DEFAULT_OPSET
    hi = _max_opset()
    if isinstance(opset_version, bool) or not isinstance(opset_version, (int, np.integer)) or \
            not MIN_OPSET <= int(opset_version) <= hi:
        raise ValueError(f"export_program: 'opset_version' must be an int from {MIN_OPSET} to "
                         f"{hi}, got {opset_version!r}")
    return int(opset_version)


def _names(values, what):
    """``None`` (every feed / fetch), or the variable names ``values`` holds."""
    if values is None:
        return None
    return names_of(values, f"export_program: '{what}' must hold variable names or Variables")


def _source(dirname_or_program, feed, fetch):
    """``(program, feed names, fetch names, scope)`` for a Program or a model directory."""
    if isinstance(dirname_or_program, Program):
        program = dirname_or_program
        feeds = feed if feed is not None else \
            [n for n, v in program.global_block().vars.items() if v.is_data]
        if not fetch:
            raise ValueError("export_program: 'fetch' must name the variables to export (the "
                             "model's outputs) when exporting a Program")
        return program, feeds, fetch, global_scope()
    if not isinstance(dirname_or_program, (str, os.PathLike)):
        raise TypeError("export_program: 'dirname_or_program' must be a static Program or the "
                        "directory of a saved inference model, got "
                        f"{type(dirname_or_program).__name__}")
    scope = Scope()
    program, feed_names, fetch_vars = load_inference_model(dirname_or_program, None, scope=scope)
    feeds = feed if feed is not None else feed_names
    fetches = fetch if fetch else [v.name for v in fetch_vars]
    return program, feeds, fetches, scope


def program_to_model(program, feeds, fetches, scope=None, opset_version=None):
    """The checked ONNX ModelProto of ``program`` for the given feed / fetch names, with the
    values of its persistable variables read from ``scope`` (the global scope by default)."""
    require("core.onnx")
    opset = _opset(opset_version)
    gb = program.global_block()
    for what, names in (("feed", feeds), ("fetch", fetches)):
        unknown = [n for n in names if n not in gb.vars]
        if unknown:
            raise ValueError(f"export_program: '{what}' names {unknown}, which are not "
                             "variables of the program's global block")
    pruned = prune_for_inference(program, list(feeds), list(fetches))
    check_mappable(pruned)
    gb = pruned.global_block()
    persistables = [v for v in gb.vars.values() if is_persistable(v) and v.name not in feeds]
    values = values_from_scope(persistables, scope or global_scope(), "export_program")
    values = {k: as_numpy(v) for k, v in values.items()}
    model = build_model(pruned, list(feeds), list(fetches), values, opset)
    check_model(model)
    return model


def export_program(dirname_or_program, path, feed=None, fetch=None, opset_version=None):
    """Write ``dirname_or_program`` as the ONNX file ``path``; returns ``path``.

    ``dirname_or_program``: a static Program (parameter values come from the global scope,
    ``fetch`` names its outputs and ``feed`` its inputs, by default its ``data`` variables) or
    the directory of a :func:`core.io.save_inference_model` save (feeds and fetches default to
    the saved ones). ``feed`` / ``fetch`` take variable names or Variables. Dims unknown in the
    program stay symbolic in the file (``NAME_dimI``), so one file serves every batch size.
    ``cond`` becomes ONNX ``If`` and ``while`` becomes ``Loop``. An op without an ONNX mapping
    raises :class:`core.onnx.ExportError` naming it and the user's line, before anything is
    written; the file is written atomically."""
    require("core.onnx.export_program")
    _check_path(path, "export_program")
    program, feeds, fetches, scope = _source(dirname_or_program, _names(feed, "feed"),
                                             _names(fetch, "fetch"))
    model = program_to_model(program, feeds, fetches, scope, opset_version)
    return save_model(model, path)


def _check_path(path, api):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{api}: 'path' must be a file path, got {type(path).__name__}")


def save_model(model, path):
    """Write ModelProto ``model`` to ``path`` atomically (a temporary name renamed into place);
    returns ``path``."""
    data = model.SerializeToString()
    directory = os.path.dirname(os.path.abspath(os.fspath(path)))
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"export: the directory of 'path' ({directory}) does not exist")
    with atomic_write(path) as f:
        f.write(data)
    return os.fspath(path)

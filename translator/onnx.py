"""ONNX export of declarative Layers and functions (Paddle 2.x's ``paddle.onnx.export``) and
the ``dy2static onnx MODEL_DIR -o model.onnx`` command.

:func:`export` translates the Layer's ``forward`` (or the function) for ``input_spec`` into
its static Program, exactly as a declarative call does, and writes that Program with the
current parameter values through :func:`core.onnx.export_program`'s machinery: Python ``if``
and ``while`` on tensors become ONNX ``If`` and ``Loop``, dims left unknown (``None`` / -1)
in ``input_spec`` stay symbolic in the file.
"""
import argparse
import os
import sys

import numpy as np

from core import nn as _nn
from core import onnx as _conx
from core import static as _static
from core.tensor import Tensor

from .input_spec import InputSpec
from .program_translator import StaticFunction, declarative

__all__ = ["export", "main"]


def _static_function(layer_or_function):
    if isinstance(layer_or_function, StaticFunction):
        return layer_or_function
    if isinstance(layer_or_function, _nn.Layer):
        forward = type(layer_or_function).forward
        sf = forward if isinstance(forward, StaticFunction) else declarative(forward)
        return sf.__get__(layer_or_function, type(layer_or_function))
    if callable(layer_or_function):
        return declarative(layer_or_function)
    raise TypeError("export: 'layer_or_function' must be a Layer, a declarative function or a "
                    f"function, got {type(layer_or_function).__name__}")


def _specs(input_spec, sf):
    if input_spec is None:
        if sf.input_spec is None:
            raise ValueError("export: 'input_spec' is required (a list of InputSpec, one per "
                             "tensor argument) because the function declares none")
        return list(sf.input_spec)
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"export: 'input_spec' must be a list of InputSpec (or tensors), got "
                        f"{type(input_spec).__name__}")
    specs = []
    for k, s in enumerate(input_spec):
        if isinstance(s, (Tensor, np.ndarray)):
            s = InputSpec.from_tensor(s)
        elif not isinstance(s, InputSpec) and s is not None and not isinstance(
                s, (bool, int, float, str)):
            raise TypeError(f"export: input_spec[{k}] must be an InputSpec, a tensor or a "
                            f"Python value, got {type(s).__name__}")
        specs.append(s)
    return specs


def export(layer_or_function, path, input_spec=None, opset_version=None):
    """Write ``layer_or_function`` (a Layer, whose ``forward`` is translated, or a declarative
    or plain function) as the ONNX file ``path``; returns ``path``.

    ``input_spec``: one entry per argument, an :class:`InputSpec` (``None`` / -1 dims stay
    symbolic), an example tensor, or a Python value (frozen into the program); by default the
    function's declared ``input_spec``. A Layer is translated in eval mode (and put back in
    training mode after when it was). The model's inputs are named after the specs (else the
    arguments), its outputs are the tensors the function returns."""
    sf = _static_function(layer_or_function)
    specs = _specs(input_spec, sf)
    layer = layer_or_function if isinstance(layer_or_function, _nn.Layer) else None
    was_training = layer is not None and layer.training
    if was_training:
        layer.eval()
    try:
        concrete = sf.get_concrete_program(*specs)
    finally:
        if was_training:
            layer.train()
    if not concrete.output_vars:
        raise ValueError("export: the function returns no tensors, so the model would have no "
                         "outputs")
    scope = _static.Scope()
    for name, p in concrete.parameters:
        scope.var(name).get_tensor().set(p.numpy())
    model = _conx.program_to_model(concrete.main_program, [v.name for v in concrete.inputs],
                                   [v.name for v in concrete.output_vars], scope=scope,
                                   opset_version=opset_version)
    return _conx.save_model(model, path)


# -- the command line: dy2static onnx MODEL_DIR -o model.onnx ------------------------------------
def _parser():
    p = argparse.ArgumentParser(
        prog="dy2static onnx", description="Export a saved inference model (a "
        "save_inference_model directory) to one ONNX file that onnxruntime runs.")
    p.add_argument("model_dir", metavar="MODEL_DIR")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the .onnx file to write (atomically)")
    p.add_argument("--opset", type=int, default=None,
                   help=f"ONNX opset (default {_conx.DEFAULT_OPSET})")
    p.add_argument("--feed", action="append", metavar="NAME",
                   help="an input variable (repeatable; default: the saved feeds)")
    p.add_argument("--fetch", action="append", metavar="NAME",
                   help="an output variable (repeatable; default: the saved fetches)")
    return p


def main(argv=None):
    """``dy2static onnx``: returns the exit status (0 done, 1 export failed, 2 usage)."""
    args = _parser().parse_args(argv)
    if not os.path.isdir(args.model_dir):
        print(f"dy2static onnx: error: {args.model_dir}: no such directory", file=sys.stderr)
        return 2
    try:
        path = _conx.export_program(args.model_dir, args.output, feed=args.feed,
                                    fetch=args.fetch, opset_version=args.opset)
    except (ImportError, ValueError, TypeError, KeyError, OSError) as e:
        print(f"dy2static onnx: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0

"""Program -> ONNX ModelProto: the walk over the blocks, the mapper dispatch, the model's
inputs (feeds, with unknown dims as symbolic names), initializers (parameters) and outputs
(fetches). Checking that every op has a mapping happens first, over every block, so an
unexportable program fails before anything is built or written."""
from ..ops.registry import is_list_slot
from ..static.operator import EMPTY_VAR_NAME
# the mapper modules fill MAPPERS when imported
from . import (ops_beam, ops_control, ops_crf, ops_elementary, ops_loss,  # noqa: F401
               ops_math, ops_nn, ops_rnn, ops_sequence, ops_shape, ops_vision)
from ._deps import helper, onnx
from .graph import ExportContext, Graph, OpView, value_info
from .registry import MAPPERS, NOT_EXPORTABLE, ExportError

__all__ = ["DEFAULT_OPSET", "MIN_OPSET", "build_model", "check_mappable", "where"]

#: the opset written when none is asked for; LayerNormalization needs 17
DEFAULT_OPSET = 17
MIN_OPSET = 17


def where(op):
    """`` (at FILE:LINE: SOURCE)`` for an op that records the user's line, else ``''``."""
    origin = op.origin
    if not origin:
        return ""
    text = f" (at {origin[0]}:{origin[1]}"
    if len(origin) > 2 and origin[2]:
        text += f": {str(origin[2]).strip()}"
    return text + ")"


def _ops_of(program):
    for block in program.blocks:
        yield from block.ops


def check_mappable(program):
    """Raise :class:`ExportError` for the first op (in any block) with no ONNX mapping."""
    for op in _ops_of(program):
        if op.type in MAPPERS:
            continue
        reason = NOT_EXPORTABLE.get(op.type)
        why = f": {reason}" if reason else " (no mapper is registered for it)"
        raise ExportError(f"op '{op.type}'{where(op)} has no ONNX mapping{why}")


def convert_block(g, block):
    """Append the ONNX form of every op of ``block`` to graph ``g``, updating ``g.env``."""
    for op in block.ops:
        view = OpView(g, op)
        try:
            produced = MAPPERS[op.type](g, view)
        except ExportError as e:
            raise ExportError(f"op '{op.type}'{where(op)}: {e}") from None
        except KeyError as e:  # a variable no earlier op computed (Graph.read)
            raise ExportError(f"op '{op.type}'{where(op)}: {e.args[0]}") from None
        _bind(g, op, produced)


def _bind(g, op, produced):
    for slot, names in op.outputs.items():
        value = produced.get(slot)
        if value is None:
            continue
        values = value if isinstance(value, list) or is_list_slot(slot) else [value]
        values = values if isinstance(values, list) else [values]
        for name, onnx_name in zip([n for n in names if n != EMPTY_VAR_NAME], values):
            g.env[name] = onnx_name


def _symbolic(var_name):
    return lambda i: f"{var_name}_dim{i}"


def build_model(program, feeds, fetches, values, opset, producer="dy2static"):
    """The ModelProto of ``program`` (already pruned for the fetches) with ``values`` (name ->
    array) as initializers. ``feeds`` / ``fetches`` are variable names of the global block."""
    check_mappable(program)
    gb = program.global_block()
    outputs_named = {n: (n if n not in feeds else f"{n}_out") for n in fetches}
    ctx = ExportContext(program, opset, reserved=set(feeds) | set(outputs_named.values()))
    ctx.convert_block = convert_block
    g = Graph(ctx)
    inputs = []
    for n in feeds:
        var = gb.var(n)
        inputs.append(value_info(n, var, _symbolic(n)))
        g.env[n] = n
    for n, arr in values.items():
        ctx.add_initializer(n, arr)
        g.env[n] = n
    convert_block(g, gb)
    outputs = []
    for n in fetches:
        out = outputs_named[n]
        g.nodes.append(helper.make_node("Identity", [g.read(n)], [out]))
        outputs.append(value_info(out, gb.var(n), _symbolic(out)))
    graph = helper.make_graph(g.nodes, "dy2static_program", inputs, outputs, ctx.initializers)
    opset_id = helper.make_opsetid("", opset)
    model = helper.make_model(graph, opset_imports=[opset_id], producer_name=producer,
                              ir_version=helper.find_min_ir_version_for([opset_id]))
    return model


def check_model(model):
    """``onnx.checker.check_model`` (with ONNX's strict shape inference) with errors as
    :class:`ExportError`."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as e:
        raise ExportError(f"the ONNX model failed onnx.checker: {e}") from None


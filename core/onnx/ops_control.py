"""ONNX mappers of control flow and tensor arrays.

* ``cond`` becomes ``If``: each branch block is a sub-graph with no inputs that reads outer
  values by name and outputs, through Identity nodes, the values the op's ``true_outs`` /
  ``false_outs`` name.
* ``while`` becomes ``Loop`` with no trip count: the op's loop variables are the Loop's carried
  values, the body block is the body graph (inputs: iteration number, condition, loop
  variables; outputs: the next condition ``cond_out`` and the ``body_outs``), and the variables
  the body reads from outside are read by name.
* A tensor array is an ONNX sequence: ``create_array`` is SequenceEmpty, ``write_to_array``
  SequenceInsert (appending when the index is the array's length, the form ``list.append`` in
  converted code takes; otherwise replacing the element), ``read_from_array`` SequenceAt,
  ``array_length`` SequenceLength, ``tensor_array_to_tensor`` ConcatFromSequence. A tensor
  array carried through a ``while`` is a carried sequence of the Loop.
"""
import numpy as np

from ._deps import TensorProto, helper
from .graph import Graph, onnx_dtype, value_info
from .registry import mapper


def _sub_graph(g, name, inputs=(), outputs=()):
    return helper.make_graph(g.nodes, g.fresh(name), list(inputs), list(outputs))


def _bool_scalar(g, name, var):
    name = g.cast(name, var.dtype, bool)
    return g.scalar(name) if tuple(var.shape or ()) != () else name


@mapper("assert")
def _assert(g, v):
    # NOTE: an ONNX graph cannot raise, so the exported model leaves out run-time checks
    # (``Assert``, and the translator's guards such as "name bound on this path" or "a
    # predicate has one element"); the executor still runs them.
    return {}


@mapper("python_print")
def _python_print(g, v):
    # NOTE: a deployed graph does not print (as ``print`` maps to Identity); nothing reads
    # this op's (absent) outputs, so it is left out
    return {}


@mapper("cond")
def _cond(g, v):
    a = v.attrs
    program = g.ctx.program
    out_names = v.out_names("Out")
    if not out_names:
        return {}
    out_vars = [v.out_var("Out", i) for i in range(len(out_names))]
    branches = []
    for key, blk, results in (("then", a["true_block"], a["true_outs"]),
                              ("else", a["false_block"], a["false_outs"])):
        sub = Graph(g.ctx, parent=g)
        g.ctx.convert_block(sub, program.blocks[blk])
        outputs = []
        for res, name, var in zip(results, out_names, out_vars):
            out = sub.node("Identity", [sub.read(res)], hint=f"{name}_{key}")
            outputs.append(value_info(out, var))
        branches.append(_sub_graph(sub, f"cond_{key}", (), outputs))
    pred = _bool_scalar(g, v.x("Cond"), v.var("Cond"))
    outs = g.node("If", [pred], outputs=out_names, then_branch=branches[0],
                  else_branch=branches[1])
    return {"Out": outs}


@mapper("while")
def _while(g, v):
    a = v.attrs
    block = g.ctx.program.blocks[a["sub_block"]]
    params, results = a["loop_vars"], a["body_outs"]
    n = len(params)
    body = Graph(g.ctx, parent=g)
    it, c_in = body.fresh("iter"), body.fresh("cond_in")
    inputs = [helper.make_tensor_value_info(it, TensorProto.INT64, []),
              helper.make_tensor_value_info(c_in, TensorProto.BOOL, [])]
    for p in params:
        name = body.fresh(p)
        body.env[p] = name
        inputs.append(value_info(name, block._find_var_recursive(p)))
    g.ctx.convert_block(body, block)
    c_var = block._find_var_recursive(a["cond_out"])
    c_out = body.node("Identity", [_bool_scalar(body, body.read(a["cond_out"]), c_var)],
                      hint="cond_out")
    outputs = [helper.make_tensor_value_info(c_out, TensorProto.BOOL, [])]
    for p, r in zip(params, results):
        out = body.node("Identity", [body.read(r)], hint=f"{p}_next")
        outputs.append(value_info(out, block._find_var_recursive(p)))
    graph = _sub_graph(body, "while_body", inputs, outputs)
    c0 = _bool_scalar(g, v.x("Condition"), v.var("Condition"))
    outs = g.node("Loop", ["", c0] + v.xs("X")[:n], outputs=v.out_names("Out")[:n], body=graph)
    return {"Out": outs if isinstance(outs, list) else [outs]}


@mapper("increment")
def _increment(g, v):
    dt = v.var("X").dtype
    return {"Out": g.node("Add", [v.x("X"), g.const(v.attrs["step"], dt)],
                          hint=v.out_hint("Out"))}


# -- tensor arrays -------------------------------------------------------------------------------
@mapper("create_array")
def _create_array(g, v):
    return {"Out": g.node("SequenceEmpty", [], dtype=onnx_dtype(v.attrs["dtype"]),
                          hint=v.out_hint("Out"))}


def _index(g, v):
    return g.scalar(g.cast(v.x("I"), v.var("I").dtype, np.int64))


@mapper("write_to_array")
def _write_to_array(g, v):
    x = v.x("X")
    arr = v.x("Array") if v.has("Array") else \
        g.node("SequenceEmpty", [], dtype=onnx_dtype(v.var("X").dtype))
    hint = v.out_hint("Out")
    if v.has("Array") and g.ctx.length_of.get(v.x("I")) == arr:
        return {"Out": g.node("SequenceInsert", [arr, x], hint=hint)}
    i = _index(g, v)
    seq_info = helper.make_tensor_sequence_value_info
    elem = onnx_dtype(v.var("X").dtype)
    then = Graph(g.ctx, parent=g)
    replaced = then.node("SequenceInsert", [then.node("SequenceErase", [arr, i]), x, i])
    else_ = Graph(g.ctx, parent=g)
    appended = else_.node("SequenceInsert", [arr, x])
    inside = g.node("Less", [i, g.node("SequenceLength", [arr])])
    out = g.node("If", [inside], hint=hint,
                 then_branch=helper.make_graph(then.nodes, g.fresh("array_replace"), [],
                                               [seq_info(replaced, elem, None)]),
                 else_branch=helper.make_graph(else_.nodes, g.fresh("array_append"), [],
                                               [seq_info(appended, elem, None)]))
    return {"Out": out}


@mapper("read_from_array")
def _read_from_array(g, v):
    return {"Out": g.node("SequenceAt", [v.x("X"), _index(g, v)], hint=v.out_hint("Out"))}


@mapper("array_length")
def _array_length(g, v):
    arr = v.x("X")
    out = g.reshape(g.node("SequenceLength", [arr]), [1], hint=v.out_hint("Out"))
    g.ctx.length_of[out] = arr
    return {"Out": out}


@mapper("tensor_array_to_tensor")
def _tensor_array_to_tensor(g, v):
    arr, axis = v.x("X"), int(v.attrs["axis"])
    stack = bool(v.attrs["use_stack"])
    out = g.node("ConcatFromSequence", [arr], axis=axis, new_axis=int(stack),
                 hint=v.out_hint("Out"))
    n = g.reshape(g.node("SequenceLength", [arr]), [1])
    if stack:
        one = helper.make_tensor("value", TensorProto.INT32, [1], [1])
        return {"Out": out, "OutIndex": g.node("ConstantOfShape", [n], value=one,
                                                hint=v.out_hint("OutIndex"))}
    # NOTE: each element's size along axis: a Loop over the array with a scan output.
    body = Graph(g.ctx, parent=g)
    it, c_in = body.fresh("iter"), body.fresh("cond_in")
    elem = body.node("SequenceAt", [arr, it])
    size = body.node("Cast", [body.node("Gather", [body.shape_of(elem), g.const(axis)], axis=0)],
                     to=TensorProto.INT32)
    c_out = body.node("Identity", [c_in])
    graph = helper.make_graph(
        body.nodes, g.fresh("array_sizes"),
        [helper.make_tensor_value_info(it, TensorProto.INT64, []),
         helper.make_tensor_value_info(c_in, TensorProto.BOOL, [])],
        [helper.make_tensor_value_info(c_out, TensorProto.BOOL, []),
         helper.make_tensor_value_info(size, TensorProto.INT32, [])])
    sizes = g.node("Loop", [g.scalar(n), ""], body=graph, hint=v.out_hint("OutIndex"))
    return {"Out": out, "OutIndex": sizes}

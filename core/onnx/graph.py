"""Building ONNX graphs from Program blocks: names, constants, nodes and the per-op view the
mappers work with.

A Program variable may be written more than once (a tensor array appended to in place, a
variable a ``cond`` branch assigns); ONNX values are written once. :class:`Graph` keeps
``env``, the ONNX value that currently holds each Program variable, and every write binds a
fresh name. A sub-graph (an ``If`` branch, a ``Loop`` body) starts from a copy of its parent's
``env``, so it reads outer values by name, as ONNX's scoping allows, and its own writes stay
inside it. Names are unique across the whole model, sub-graphs included, as ONNX requires.
"""
import numpy as np

from ..ops.registry import get_op, slot_name
from ..static.operator import EMPTY_VAR_NAME
from ._deps import helper, numpy_helper

__all__ = ["ExportContext", "Graph", "OpView", "onnx_dtype", "value_info"]


def onnx_dtype(dtype):
    """The ONNX element type of a numpy dtype."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def value_info(name, var, symbolic=None):
    """A ValueInfoProto for Program variable ``var`` under ONNX name ``name``: a tensor (with
    its shape; unknown dims become the symbolic names ``symbolic(i)`` when given, else stay
    unnamed) or a sequence of tensors for a tensor array; no shape when ``symbolic`` is None
    and the caller wants the type only (sub-graph values)."""
    elem = onnx_dtype(var.dtype)
    if var.type == "tensor_array":
        return helper.make_tensor_sequence_value_info(name, elem, None)
    if symbolic is None or var.shape is None:
        return helper.make_tensor_value_info(name, elem, None)
    dims = [symbolic(i) if d < 0 else int(d) for i, d in enumerate(var.shape)]
    return helper.make_tensor_value_info(name, elem, dims)


class ExportContext:
    """What every graph of one model shares: the opset, the names in use, the initializers."""

    def __init__(self, program, opset, reserved=()):
        self.program = program
        self.opset = opset
        self.used = set(reserved)
        self.initializers = []
        self._consts = {}
        #: ONNX value -> the ONNX tensor array it is the length of (see ``array_length``)
        self.length_of = {}

    def fresh(self, hint):
        base = str(hint) or "v"
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}__{k}", k + 1
        self.used.add(name)
        return name

    def const(self, value, dtype):
        """An initializer holding ``value`` as ``dtype``; equal constants are shared."""
        arr = np.asarray(value, dtype=np.dtype(dtype))
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        name = self._consts.get(key)
        if name is None:
            name = self.fresh("const")
            self.initializers.append(numpy_helper.from_array(arr, name))
            self._consts[key] = name
        return name

    def add_initializer(self, name, array):
        self.used.add(name)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))


class Graph:
    """The nodes of one ONNX graph under construction and its ``env`` (see module doc)."""

    def __init__(self, ctx, parent=None):
        self.ctx = ctx
        self.nodes = []
        self.env = dict(parent.env) if parent is not None else {}

    @property
    def opset(self):
        return self.ctx.opset

    def fresh(self, hint):
        return self.ctx.fresh(hint)

    def const(self, value, dtype="int64"):
        return self.ctx.const(value, dtype)

    def node(self, op_type, inputs, outputs=1, hint=None, **attrs):
        """Append one node; returns its output name (a list when ``outputs`` > 1 or a list of
        names/hints). Empty-string inputs stand for omitted optional inputs."""
        if isinstance(outputs, int):
            names = [self.fresh(hint or op_type.lower()) for _ in range(outputs)]
        else:
            names = [self.fresh(h) for h in outputs]
        self.nodes.append(helper.make_node(op_type, list(inputs), names, **attrs))
        return names[0] if isinstance(outputs, int) and outputs == 1 else names

    def read(self, var_name):
        try:
            return self.env[var_name]
        except KeyError:
            raise KeyError(f"variable '{var_name}' is read before any op computes it (it is "
                           "neither fed, a parameter with a value, nor an earlier op's "
                           "output)") from None

    # -- small helpers the mappers share -------------------------------------------------------
    def cast(self, name, src, dst):
        """``name`` cast from numpy dtype ``src`` to ``dst`` (no node when they agree)."""
        if np.dtype(src) == np.dtype(dst):
            return name
        return self.node("Cast", [name], to=onnx_dtype(dst))

    def shape_of(self, name, start=None, end=None):
        attrs = {}
        if start is not None:
            attrs["start"] = start
        if end is not None:
            attrs["end"] = end
        return self.node("Shape", [name], **attrs)

    def reshape(self, name, shape, hint=None):
        return self.node("Reshape", [name, self.const(list(shape), "int64")], hint=hint)

    def scalar(self, name):
        """A one-element tensor as a 0-d one."""
        return self.node("Reshape", [name, self.const([], "int64")])

    def unsqueeze(self, name, axes):
        return self.node("Unsqueeze", [name, self.const(list(axes), "int64")])

    def squeeze(self, name, axes):
        return self.node("Squeeze", [name, self.const(list(axes), "int64")])

    def reduce(self, op_type, name, axes, keepdims, hint=None):
        """``op_type`` (ReduceSum, ReduceMax, ...) over ``axes`` (None: all) in the form the
        opset takes (axes an input from opset 18, and for ReduceSum from 13)."""
        if axes is None:
            return self.node(op_type, [name], keepdims=int(keepdims), hint=hint)
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.node(op_type, [name, self.const(list(axes), "int64")],
                             keepdims=int(keepdims), hint=hint)
        return self.node(op_type, [name], axes=list(axes), keepdims=int(keepdims), hint=hint)


class OpView:
    """One Program operator as its mapper sees it: ONNX names of the inputs, the Program
    Variables (shape, dtype) of inputs and outputs, the attributes with defaults filled in."""

    def __init__(self, graph, op):
        self.g = graph
        self.op = op
        self.type = op.type
        self.attrs = get_op(op.type).full_attrs(op.attrs)
        self._block = op.block

    def names(self, slot):
        return [n for n in self.op.inputs.get(slot, []) if n != EMPTY_VAR_NAME]

    def has(self, slot):
        return bool(self.names(slot))

    def x(self, slot, i=0):
        """ONNX name of input ``slot`` (entry ``i``); None when absent."""
        names = self.names(slot)
        return self.g.read(names[i]) if i < len(names) else None

    def xs(self, slot):
        return [self.g.read(n) for n in self.names(slot)]

    def var(self, slot, i=0):
        return self._block._find_var_recursive(self.names(slot)[i])

    def vars(self, slot):
        return [self._block._find_var_recursive(n) for n in self.names(slot)]

    def out_names(self, slot):
        return [n for n in self.op.outputs.get(slot, []) if n != EMPTY_VAR_NAME]

    def out_var(self, slot, i=0):
        return self._block._find_var_recursive(self.out_names(slot)[i])

    def out_hint(self, slot, i=0):
        names = self.out_names(slot)
        return names[i] if i < len(names) else slot_name(slot).lower()

    def rank(self, slot, i=0):
        return len(self.var(slot, i).shape)


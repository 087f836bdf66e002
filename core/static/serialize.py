"""Programs as versioned, human-readable JSON data: :func:`program_to_dict` and
:func:`program_from_dict`.

The dict (schema and an example in ``docs/model_format.md``)::

    {"format": "dy2static.program", "version": 1, "random_seed": 0,
     "blocks": [{"idx": 0, "parent_idx": -1, "forward_block_idx": -1,
                 "vars": [{"name": "x", "shape": [-1, 13], "dtype": "float32",
                           "type": "lod_tensor", "persistable": false, "stop_gradient": true,
                           "is_data": true, "is_parameter": false}, ...],
                 "ops": [{"type": "mul", "inputs": {"X": ["x"], "Y": ["fc_0.w_0"]},
                          "outputs": {"Out": ["fc_0.tmp_0"]}, "attrs": {...},
                          "role": "forward", "origin": null}, ...]}]}

Parameters add ``trainable``, ``need_clip`` and ``optimize_attr``. Sub-blocks are referenced
from op attributes by block index (attributes named ``sub_block`` or ending in ``_block``; a
list under a name ending in ``_blocks``). Loading validates everything strictly — the format
and version, every field's type, block parents, unique variable names, dtypes, op types (each
must be registered, or be ``<registered type>_grad``), slot and attribute names of forward
ops, that every variable an op names exists in its block or an enclosing one, and sub-block
indices — and raises :class:`~core.serialization.ModelFormatError` naming the field. The
control-flow ops (``cond``, ``while`` and their gradients) are accepted by type; the executor
reads their structure attributes by name. Nothing in the data is executed or used as code:
names are only dictionary keys.
"""
from ..dtypes import convert_dtype, dtype_name
from ..ops.registry import get_op, slot_name
from ..serialization import ModelFormatError, check_header
from .analysis import CONTROL_FLOW_OPS
from .operator import EMPTY_VAR_NAME, OP_ROLES, Operator
from .program import Block, Program
from .variable import GRAD_SUFFIX, VAR_TYPES, Parameter, Variable

__all__ = [
    "PROGRAM_FORMAT",
    "is_block_attr",
    "program_from_dict",
    "program_to_dict",
    "sub_block_indices",
]

PROGRAM_FORMAT = "dy2static.program"
PROGRAM_VERSION = 1
_MAX_JSON_DEPTH = 32


def is_block_attr(name):
    """Whether attribute ``name`` holds a sub-block index (or, ``*_blocks``, a list of them)."""
    return name == "sub_block" or name.endswith(("_block", "_blocks"))


def sub_block_indices(op):
    """The block indices an operator's attributes refer to, in attribute order."""
    out = []
    for name, value in op.attrs.items():
        if not is_block_attr(name):
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return out


# -- writing --------------------------------------------------------------------------------------
def _var_to_dict(v):
    d = {"name": v.name, "shape": v.shape,
         "dtype": None if v.dtype is None else dtype_name(v.dtype), "type": v.type,
         "persistable": v.persistable, "stop_gradient": v.stop_gradient,
         "is_data": v.is_data, "is_parameter": isinstance(v, Parameter)}
    if isinstance(v, Parameter):
        d.update(trainable=v.trainable, need_clip=v.need_clip,
                 optimize_attr=dict(v.optimize_attr))
    return d


def _op_to_dict(op):
    return {"type": op.type, "inputs": {k: list(v) for k, v in op.inputs.items()},
            "outputs": {k: list(v) for k, v in op.outputs.items()}, "attrs": dict(op.attrs),
            "role": op.role, "origin": None if op.origin is None else list(op.origin)}


def program_to_dict(program):
    """The JSON-able description of ``program`` (see the module docstring)."""
    return {"format": PROGRAM_FORMAT, "version": PROGRAM_VERSION,
            "random_seed": int(program.random_seed),
            "blocks": [{"idx": b.idx, "parent_idx": b.parent_idx,
                        "forward_block_idx": b.forward_block_idx,
                        "vars": [_var_to_dict(v) for v in b.vars.values()],
                        "ops": [_op_to_dict(op) for op in b.ops]} for b in program.blocks]}


# -- reading -------------------------------------------------------------------------------------
def _field(d, key, kinds, where, optional=False, default=None):
    if not isinstance(d, dict):
        raise ModelFormatError(f"{where} must be an object, got {type(d).__name__}")
    if key not in d:
        if optional:
            return default
        raise ModelFormatError(f"{where}: missing field '{key}'")
    value = d[key]
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in (
        kinds if isinstance(kinds, tuple) else (kinds,)))
    if not ok:
        raise ModelFormatError(f"{where}: field '{key}' has the wrong type "
                               f"({type(value).__name__}: {value!r:.60})")
    return value


def _check_json(value, where, depth=0):
    """Attribute values must be plain JSON data."""
    if depth > _MAX_JSON_DEPTH:
        raise ModelFormatError(f"{where}: nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str)):
        return  # NOTE: NaN and infinities are allowed (JSON extension; see model_format.md)
    if isinstance(value, list):
        for v in value:
            _check_json(v, where, depth + 1)
        return
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        for v in value.values():
            _check_json(v, where, depth + 1)
        return
    raise ModelFormatError(f"{where}: not JSON data ({type(value).__name__})")


def _var_from_dict(d, block, where):
    name = _field(d, "name", str, where)
    where = f"{where} ('{name}')"
    if not name or name == EMPTY_VAR_NAME:
        raise ModelFormatError(f"{where}: invalid variable name")
    shape = _field(d, "shape", (list, type(None)), where)
    if shape is not None and not all(type(s) is int and s >= -1 for s in shape):
        raise ModelFormatError(f"{where}: field 'shape' must be a list of ints >= -1, got "
                               f"{shape!r:.80}")
    dtype = _field(d, "dtype", (str, type(None)), where)
    if dtype is not None:
        try:
            dtype = convert_dtype(dtype)
        except TypeError as e:
            raise ModelFormatError(f"{where}: field 'dtype': {e}") from None
    vtype = _field(d, "type", str, where)
    if vtype not in VAR_TYPES:
        raise ModelFormatError(f"{where}: field 'type' must be one of {VAR_TYPES}, got "
                               f"{vtype!r:.40}")
    flags = {k: _field(d, k, bool, where) for k in ("persistable", "stop_gradient", "is_data",
                                                     "is_parameter")}
    if flags["is_parameter"]:
        if block.idx != 0 or vtype != "lod_tensor" or not flags["persistable"]:
            raise ModelFormatError(f"{where}: a parameter must be a persistable lod_tensor of "
                                   "block 0")
        opt = _field(d, "optimize_attr", dict, where)
        _check_json(opt, f"{where}: field 'optimize_attr'")
        v = Parameter(block, name, shape, dtype, trainable=_field(d, "trainable", bool, where),
                      optimize_attr=opt, need_clip=_field(d, "need_clip", bool, where))
        v.stop_gradient = flags["stop_gradient"]
        return v
    return Variable(block, name, shape, dtype, type=vtype, persistable=flags["persistable"],
                    stop_gradient=flags["stop_gradient"], is_data=flags["is_data"])


def _slots(d, key, where):
    slots = _field(d, key, dict, where)
    for slot, names in slots.items():
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise ModelFormatError(f"{where}: field '{key}.{slot}' must be a list of variable "
                                   "names")
    return slots


def _check_slots(op_type, key, given, allowed, where):
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ModelFormatError(f"{where}: op '{op_type}' has no {key[:-1]} slot(s) {unknown}; "
                               f"it has {sorted(allowed)}")


def _registered(op_type):
    try:
        return get_op(op_type)
    except KeyError:
        return None


def _check_op_type(op_type, inputs, outputs, attrs, where):
    """The op type must be registered (or be a control-flow op, or ``<registered>_grad``);
    slot and attribute names must be the ones the op definition declares."""
    if op_type in CONTROL_FLOW_OPS:
        return  # the executor reads their structure attributes by name (analysis.sub_blocks)
    grad = op_type.endswith("_grad") and _registered(op_type) is None
    opdef = _registered(op_type[:-5] if grad else op_type)
    if opdef is None:
        raise ModelFormatError(f"{where}: unknown op type '{op_type}' (no such op is "
                               "registered)")
    ins = [slot_name(s) for s in opdef.inputs]
    outs = [slot_name(s) for s in opdef.outputs]
    if grad:  # a gradient op reads forward inputs, outputs and output gradients
        _check_slots(op_type, "inputs", inputs, ins + outs + [o + GRAD_SUFFIX for o in outs],
                     where)
        _check_slots(op_type, "outputs", outputs, [i + GRAD_SUFFIX for i in ins], where)
    else:
        _check_slots(op_type, "inputs", inputs, ins, where)
        _check_slots(op_type, "outputs", outputs, outs, where)
    unknown = sorted(set(attrs) - set(opdef.attrs))
    if unknown:
        raise ModelFormatError(f"{where}: op '{op_type}' has no attribute(s) {unknown}; it "
                               f"takes {sorted(opdef.attrs)}")


def _op_from_dict(d, block, where):
    op_type = _field(d, "type", str, where)
    where = f"{where} ('{op_type}')"
    inputs, outputs = _slots(d, "inputs", where), _slots(d, "outputs", where)
    attrs = _field(d, "attrs", dict, where)
    for k, v in attrs.items():
        _check_json(v, f"{where}: attribute '{k}'")
    _check_op_type(op_type, inputs, outputs, attrs, where)
    role = _field(d, "role", str, where)
    if role not in OP_ROLES:
        raise ModelFormatError(f"{where}: field 'role' must be one of {OP_ROLES}")
    origin = _field(d, "origin", (list, type(None)), where, optional=True)
    if origin is not None and not (len(origin) == 3 and isinstance(origin[0], str) and
                                   type(origin[1]) is int and isinstance(origin[2], str)):
        raise ModelFormatError(f"{where}: field 'origin' must be [file, line, source]")
    return Operator(block, op_type, inputs, outputs, attrs, role=role, origin=origin)


def _check_references(program):
    """Every variable name an op uses exists in its block or an enclosing block (or in the
    forward block a gradient block differentiates); sub-block indices are valid."""
    n = len(program.blocks)
    for b in program.blocks:
        for i, op in enumerate(b.ops):
            where = f"blocks[{b.idx}].ops[{i}] ('{op.type}')"
            for name in op.input_arg_names + op.output_arg_names:
                if b._find_var_recursive(name) is None and (
                        b.forward_block_idx < 0 or
                        program.blocks[b.forward_block_idx]._find_var_recursive(name) is None):
                    raise ModelFormatError(f"{where}: uses variable '{name}', which is not "
                                           f"declared in block {b.idx} or its parents")
            for k, v in op.attrs.items():
                if not is_block_attr(k):
                    continue
                for idx in (v if isinstance(v, list) else [v]):
                    if type(idx) is not int or not 0 < idx < n or idx == b.idx:
                        raise ModelFormatError(f"{where}: attribute '{k}' = {idx!r} is not a "
                                               f"sub-block index (1..{n - 1})")


def program_from_dict(d, where="program"):
    """A :class:`Program` built from a dict made by :func:`program_to_dict` (e.g. parsed from
    a file), validated strictly; ``where`` (a file name) prefixes error messages."""
    if not isinstance(d, dict):
        raise ModelFormatError(f"{where}: a program description must be an object")
    check_header(d, PROGRAM_FORMAT, where)
    seed = _field(d, "random_seed", int, where)
    blocks = _field(d, "blocks", list, where)
    if not blocks:
        raise ModelFormatError(f"{where}: field 'blocks' is empty")
    program = Program()
    program.blocks = []
    program.random_seed = seed
    for k, bd in enumerate(blocks):
        bw = f"{where}: blocks[{k}]"
        if _field(bd, "idx", int, bw) != k:
            raise ModelFormatError(f"{bw}: field 'idx' is {bd['idx']}, expected {k}")
        parent = _field(bd, "parent_idx", int, bw)
        if (k == 0 and parent != -1) or (k > 0 and not 0 <= parent < k):
            raise ModelFormatError(f"{bw}: field 'parent_idx' = {parent} is invalid (block 0 has "
                                   "-1, every other block an earlier block)")
        fwd = _field(bd, "forward_block_idx", int, bw, optional=True, default=-1)
        if not -1 <= fwd < len(blocks) or fwd == k:
            raise ModelFormatError(f"{bw}: field 'forward_block_idx' = {fwd} is invalid")
        block = Block(program, k, parent)
        block.forward_block_idx = fwd
        program.blocks.append(block)
        for j, vd in enumerate(_field(bd, "vars", list, bw)):
            v = _var_from_dict(vd, block, f"{bw}.vars[{j}]")
            if v.name in block.vars:
                raise ModelFormatError(f"{bw}.vars[{j}]: variable '{v.name}' is declared twice")
            block.vars[v.name] = v
    for k, bd in enumerate(blocks):
        block = program.blocks[k]
        for j, od in enumerate(_field(bd, "ops", list, f"{where}: blocks[{k}]")):
            block.ops.append(_op_from_dict(od, block, f"{where}: blocks[{k}].ops[{j}]"))
    try:
        _check_references(program)
    except ModelFormatError as e:
        raise ModelFormatError(f"{where}: {e}") from None
    program._current_block_idx = 0
    program._version = 0
    return program

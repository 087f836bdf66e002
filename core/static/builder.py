"""The static op builder: what :func:`core.dispatch.apply` calls in static mode.

:func:`append_op` turns the inputs of one op application into Variables of the current
Program (eager Parameters become program Parameters of the same name, other eager tensors and
ndarrays become ``assign_value`` constants, Python scalars become 0-d ``fill_constant``
constants with numpy-2 weak promotion against the op's other inputs), infers the outputs'
shapes and dtypes with the op's ``infer``, creates the output Variables and appends the
Operator to the current block. See docs/internals.md ("Static builder").
"""
import contextlib
import numbers

import numpy as np

from ..dtypes import convert_dtype, dtype_name
from ..ops.registry import Meta, get_op, is_list_slot, slot_name
from .eager_types import is_eager_parameter, is_eager_tensor
from .program import Parameter, Variable, default_main_program, default_startup_program, scoped_name

__all__ = [
    "append_op",
    "append_parameter",
    "create_global_var",
    "op_role_guard",
    "set_origin_provider",
    "to_variable_input",
]

_origin = {"provider": None}


def set_origin_provider(fn):
    """``fn()`` -> ``(filename, lineno, source_line)`` or None, stored in each new op's
    ``origin``; None switches it off. Returns the previous provider."""
    old, _origin["provider"] = _origin["provider"], fn
    return old


def current_origin():
    fn = _origin["provider"]
    if fn is None:
        return None
    o = fn()
    return None if o is None else [str(o[0]), int(o[1]), str(o[2]) if len(o) > 2 else ""]


@contextlib.contextmanager
def op_role_guard(role, program=None):
    """Ops appended inside get ``role`` (``"backward"`` / ``"optimize"``); optimizers wrap
    their update ops in ``op_role_guard("optimize")`` so ``clone(for_test=True)`` drops them."""
    program = program or default_main_program()
    old, program._op_role = program._op_role, role
    try:
        yield
    finally:
        program._op_role = old


def _check_same_program(op, slot, v, program):
    if v.block.program is not program:
        raise ValueError(
            f"op '{op.type}' input '{slot}' is Variable '{v.name}' of a different Program than "
            "the one being built; build every op of a computation under one program_guard")
    cur = program.current_block()
    if cur._find_var_recursive(v.name) is not v:
        raise ValueError(
            f"op '{op.type}' input '{slot}': Variable '{v.name}' of block {v.block.idx} is not "
            f"visible from block {cur.idx} (a value made inside a cond/while body is only "
            "visible outside through the body's outputs)")


def register_lr_schedule(program, var_name, schedule):
    """Make ``Executor.run(program)`` set persistable ``var_name`` to ``schedule()`` (a
    ``core.lr`` scheduler) before each run."""
    schedules = getattr(program, "_lr_schedules", None)
    if schedules is None:
        schedules = program._lr_schedules = []
    schedules.append((var_name, schedule))


def lr_schedules(program):
    """``[(variable name, scheduler)]`` registered on ``program``."""
    return getattr(program, "_lr_schedules", ())


def eager_parameters(program):
    """``{name: eager tensor}`` for every eager Parameter (or persistable eager tensor, such as
    a running statistic) that ``program`` reads or writes under that name: what a caller must
    put into the scope before running it, and what receives written values after."""
    reg = getattr(program, "_eager_parameters", None)
    if reg is None:
        reg = program._eager_parameters = {}
    return reg


def _parameter_var(program, p):
    """The persistable program variable for eager Parameter (or persistable tensor) ``p``:
    a Parameter of the same name, created on first use."""
    gb = program.global_block()
    v = gb.vars.get(p.name)
    if v is not None:
        if tuple(v.shape) != tuple(p.shape) or v.dtype != p.dtype:
            raise ValueError(f"eager parameter '{p.name}' ({p.dtype.name}{p.shape}) clashes "
                             f"with program variable {v!r}")
    elif is_eager_parameter(p):
        v = gb.add_parameter(p.name, list(p.shape), p.dtype, trainable=p.trainable,
                                optimize_attr=p.optimize_attr, regularizer=p.regularizer,
                                need_clip=p.need_clip)
    else:
        v = gb.create_var(name=p.name, shape=list(p.shape), dtype=p.dtype, persistable=True,
                          stop_gradient=True)
    eager_parameters(program)[p.name] = p
    return v


def _constant(program, value, dtype=None):
    """A Variable holding constant ``value`` (an ndarray or eager tensor)."""
    arr = np.asarray(value.numpy() if is_eager_tensor(value) else value)
    if dtype is not None:
        arr = arr.astype(dtype)
    convert_dtype(arr.dtype)
    return append_op(get_op("assign_value"), [],
                     {"shape": list(arr.shape), "dtype": dtype_name(arr.dtype),
                      "values": arr.reshape(-1).tolist()})


def _scalar_constant(value, others):
    """A 0-d constant for Python scalar ``value``; its dtype is numpy-2 weak promotion of the
    scalar with the op's other tensor inputs (so static dtypes equal eager ones)."""
    if others:
        dtype = np.result_type(*others, value)
    elif isinstance(value, bool):
        dtype = np.dtype(bool)
    elif isinstance(value, numbers.Integral):
        dtype = np.dtype(np.int64)
    else:
        dtype = np.dtype(np.float32)
    if dtype.kind == "b":
        v = bool(value)
    elif dtype.kind in "iu":
        v = int(value)
    else:
        v = float(value)
    return append_op(get_op("fill_constant"), [], {"shape": [], "dtype": dtype.name, "value": v})


def _is_scalar(v):
    return isinstance(v, numbers.Number) and not isinstance(v, np.generic)


def to_variable_input(v, op, slot, program, others):
    """One input entry as a Variable of ``program`` (None stays None)."""
    if v is None:
        return None
    if isinstance(v, Variable):
        _check_same_program(op, slot, v, program)
        return _promote_weak(op, v, others) if v.weak else v
    if is_eager_tensor(v):
        if is_eager_parameter(v) or v.persistable:
            return _parameter_var(program, v)
        return _constant(program, v)
    if _is_scalar(v):
        return _scalar_constant(v, others)
    if isinstance(v, (np.ndarray, np.generic)):
        return _constant(program, v)
    raise TypeError(f"op '{op.type}' input '{slot}' must be a Variable, a tensor, an ndarray or "
                    f"a Python number, got {type(v).__name__}")


def _is_weak(v):
    return isinstance(v, Variable) and v.weak


def _input_dtypes(inputs):
    """The dtypes of the strong tensor inputs (not Python scalars, not weak Variables)."""
    out = []
    for v in inputs:
        for t in (v if isinstance(v, (list, tuple)) else [v]):
            d = getattr(t, "dtype", None)
            if d is not None and not _is_scalar(t) and not _is_weak(t):
                out.append(np.dtype(d))
    return out


_KIND_SCALARS = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def _promote_weak(op, v, others):
    """Weak Variable ``v`` (a Python number's value) as an input of elementwise ``op``: cast to
    the numpy-2 promotion of a Python scalar of its kind with the strong inputs ``others``."""
    if not others or getattr(op, "ufunc", None) is None:
        return v
    dtype = np.result_type(*others, _KIND_SCALARS[v.dtype.kind])
    if dtype == v.dtype:
        return v
    return append_op(get_op("cast"), [v], {"out_dtype": dtype.name})


def _meta(v):
    return None if v is None else Meta(v._meta_shape(), v.dtype)


def append_op(op, inputs, attrs, outputs=None, program=None, grad=True):
    """Append ``op`` applied to ``inputs`` to the current block; see the module docstring.

    With ``grad=False`` (ops built under ``core.no_grad``) the new outputs are
    ``stop_gradient`` whatever the inputs, and the backward pass sends no gradient through the
    op. Returns one Variable for one output slot, else a tuple (a list for a ``*`` slot).
    """
    program = program or default_main_program()
    block = program.current_block()
    attrs = op.full_attrs(attrs)
    if len(inputs) != len(op.inputs):
        raise TypeError(f"op '{op.type}' takes inputs {op.inputs}, got {len(inputs)} values")
    others = _input_dtypes(inputs)
    in_vars, in_names = [], {}
    for slot, v in zip(op.inputs, inputs):
        name = slot_name(slot)
        if is_list_slot(slot):
            if v is None:
                vs = []
            elif isinstance(v, (list, tuple)):
                vs = [to_variable_input(t, op, name, program, others) for t in v]
            else:
                vs = [to_variable_input(v, op, name, program, others)]
            in_vars.append(vs)
            in_names[name] = [t.name for t in vs]
        else:
            t = to_variable_input(v, op, name, program, others)
            in_vars.append(t)
            in_names[name] = [] if t is None else [t.name]
    metas = [[_meta(t) for t in v] if isinstance(v, list) else _meta(v) for v in in_vars]
    try:
        inferred = op.infer(*metas, **attrs)
    except (ValueError, TypeError, IndexError, KeyError) as e:
        desc = ", ".join(f"{slot_name(s)}={_describe(v)}" for s, v in zip(op.inputs, in_vars))
        raise type(e)(f"op '{op.type}' cannot take inputs ({desc}) with attrs {attrs}: "
                      f"{e}") from e
    if len(op.outputs) == 1:
        inferred = (inferred,)
    requires = grad and op.differentiable and any(
        not t.stop_gradient for v in in_vars for t in (v if isinstance(v, list) else [v])
        if t is not None)
    out_vars, out_names = [], {}
    for k, (slot, meta) in enumerate(zip(op.outputs, inferred)):
        name = slot_name(slot)
        stop = not requires or name in op.nondiff_outputs
        if outputs and k in outputs:
            target = outputs[k]
            targets = target if isinstance(target, (list, tuple)) else [target]
            targets = [_parameter_var(program, t) if is_eager_tensor(t) and
                       (t.persistable or not t.stop_gradient) else t for t in targets]
            target = targets if isinstance(target, (list, tuple)) else targets[0]
            for t in targets:
                if is_eager_tensor(t):
                    raise TypeError(
                        f"op '{op.type}' output '{name}' cannot be written into eager tensor "
                        f"'{t.name}' while a static program is built: only a persistable one "
                        "(a Parameter, or a Layer buffer: register_buffer(name, tensor)) is a "
                        "variable of the program")
                if not isinstance(t, Variable):
                    raise TypeError(f"op '{op.type}' output '{name}' must be written to a static "
                                    f"Variable, got {type(t).__name__}")
                _check_same_program(op, name, t, program)
            out_vars.append(target)
            out_names[name] = [t.name for t in targets]
            continue
        if is_list_slot(slot):
            vs = [_new_output(block, op, m, stop) for m in meta]
            out_vars.append(vs)
            out_names[name] = [t.name for t in vs]
        else:
            v = _new_output(block, op, meta, stop)
            out_vars.append(v)
            out_names[name] = [v.name]
    block.append_op(op.type, in_names, out_names, attrs, origin=current_origin())
    if getattr(op, "ufunc", None) is not None and not others and \
            any(_is_weak(t) for t in in_vars):
        for v in out_vars:  # weak (op) weak stays weak, as Python number (op) Python number
            v.weak = v.dtype.kind != "b"
    return out_vars[0] if len(out_vars) == 1 else tuple(out_vars)


def _new_output(block, op, meta, stop_gradient):
    if not isinstance(meta, Meta):
        raise TypeError(f"op '{op.type}': infer must return Meta(shape, dtype) per output, got "
                        f"{meta!r}")
    return block.create_var(name=scoped_name(f"{op.type}.tmp"), shape=list(meta.shape),
                            dtype=meta.dtype, stop_gradient=stop_gradient)


def _describe(v):
    if isinstance(v, list):
        return "[" + ", ".join(_describe(t) for t in v) + "]"
    if v is None:
        return "None"
    return f"'{v.name}' {getattr(v.dtype, 'name', v.dtype)}{v.shape}"


def append_parameter(name, shape, dtype, init, trainable=True, regularizer=None,
                     optimize_attr=None, need_clip=True):
    """A Parameter in the main program's global block whose initializer op (``init`` =
    ``(op_type, attrs)``) is appended to the startup program: the static primitive under
    :func:`core.parameter.create_parameter`."""
    main, startup = default_main_program(), default_startup_program()
    p = main.global_block().add_parameter(name, list(shape), dtype, trainable=trainable,
                                             optimize_attr=optimize_attr,
                                             regularizer=regularizer, need_clip=need_clip)
    _append_init(startup, name, shape, dtype, init, Parameter)
    return p


def _append_init(startup, name, shape, dtype, init, kind):
    gb = startup.global_block()
    if name in gb.vars:
        return gb.vars[name]
    if kind is Parameter:
        v = gb.add_parameter(name, list(shape), dtype)
    else:
        v = gb.create_var(name=name, shape=list(shape), dtype=dtype, persistable=True)
    op_type, attrs = init
    opdef = get_op(op_type)
    gb.append_op(op_type, {}, {slot_name(opdef.outputs[0]): [name]}, opdef.full_attrs(attrs),
                 origin=current_origin())
    return v


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block filled with ``value`` by the startup
    program (``persistable`` makes it live in the scope across runs)."""
    main, startup = default_main_program(), default_startup_program()
    name = name or scoped_name("global_var")
    dtype = convert_dtype(dtype)
    shape = [int(s) for s in shape]
    v = main.global_block().create_var(name=name, shape=shape, dtype=dtype,
                                       persistable=persistable, stop_gradient=True)
    fill = ("fill_constant", {"shape": shape, "dtype": dtype.name,
                              "value": bool(value) if dtype.kind == "b" else
                              int(value) if dtype.kind in "iu" else float(value)})
    if persistable:
        _append_init(startup, name, shape, dtype, fill, Variable)
    else:
        opdef = get_op("fill_constant")
        main.global_block()._insert_op(0, "fill_constant", {}, {"Out": [name]},
                                       opdef.full_attrs(fill[1]))
    return v

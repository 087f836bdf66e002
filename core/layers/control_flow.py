"""Functional API: control flow (``cond``, ``while_loop``, ``case``, ``switch_case``),
``Print``, ``Assert``, and the ``data`` feed placeholder. Tensor arrays and ``increment`` are in
``tensor_array.py``.

In eager mode each function is plain Python with the same results (``cond`` calls the chosen
function, ``while_loop`` loops). In static mode ``cond`` and
``while_loop`` trace their functions into sub-blocks of the current Program and append one
``cond`` / ``while`` operator (see ``core/ops/control_flow.py`` for their attributes).
"""
import numbers

import numpy as np

from .. import mode as _mode
from ..dispatch import apply
from ..dtypes import dtype_name
from ..ops.control_flow import assert_message, format_value, stream_key
from ..static import structure as _st
from ..static.analysis import op_reads, op_writes
from ..static.builder import current_origin
from ..static.data import data as static_data
from ..static.program import Variable, scoped_name
from ..static.variable import merge_shape
from ..tensor import Tensor

__all__ = [
    "Assert",
    "Print",
    "case",
    "cond",
    "data",
    "python_print",
    "switch_case",
    "while_loop",
]


def _static():
    return not _mode._state["dynamic"]


def _check_fn(fn, arg, api):
    if fn is not None and not callable(fn):
        raise TypeError(f"{api}(): argument '{arg}' must be callable, got {type(fn).__name__}")


def _check_pred(pred, api, arg="pred"):
    what = arg if " " in arg else f"argument '{arg}'"
    if not isinstance(pred, Variable):
        raise TypeError(f"{api}(): {what} must be a bool Variable, got "
                        f"{type(pred).__name__}")
    if pred.dtype != np.dtype(bool):
        raise TypeError(f"{api}(): {what} ('{pred.name}') must have dtype bool, got "
                        f"{pred.dtype.name}; compare it (e.g. x > 0) or cast it")
    if pred.shape and any(d > 1 for d in pred.shape):
        raise ValueError(f"{api}(): {what} ('{pred.name}') must hold exactly one "
                         f"element, got shape {pred.shape}; reduce it first (e.g. reduce_all / "
                         "reduce_any)")


class _BlockGuard:
    """Trace into a fresh sub-block of the current block; the old current block after."""

    def __init__(self, program):
        self.program = program

    def __enter__(self):
        self.old = self.program._current_block_idx
        return self.program._create_block()

    def __exit__(self, *exc):
        self.program._current_block_idx = self.old
        return False


class _in_block:
    """Make ``block`` of ``program`` the current block; the old current block after."""

    __slots__ = ("program", "block", "old")

    def __init__(self, program, block):
        self.program, self.block = program, block

    def __enter__(self):
        self.old = self.program._current_block_idx
        self.program._current_block_idx = self.block.idx

    def __exit__(self, *exc):
        self.program._current_block_idx = self.old
        return False


def _const_like(value, dtype=None):
    """``value`` (Python number, ndarray or eager tensor) as a Variable of the current block."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, Tensor):
        value = value.numpy()
    arr = np.asarray(value)
    if dtype is None and not hasattr(value, "dtype"):
        dtype = np.dtype(np.float32) if arr.dtype == np.float64 else arr.dtype
    if dtype is not None:
        arr = arr.astype(dtype)
    return apply("assign_value", [], {"shape": list(arr.shape), "dtype": arr.dtype.name,
                                      "values": arr.reshape(-1).tolist()})


def _outer_reads(block, extra_names=()):
    """Names read in ``block`` (and its outputs ``extra_names``) that resolve outside it."""
    out = []
    for n in [n for op in block.ops for n in op_reads(op)] + list(extra_names):
        v = block._find_var_recursive(n)
        if v is not None and v.block is not block and n not in out:
            out.append(n)
    return out


def _outer_writes(block):
    out = []
    for op in block.ops:
        for n in op_writes(op):
            v = block._find_var_recursive(n)
            if v is not None and v.block is not block and n not in out:
                out.append(n)
    return out


# -- cond ------------------------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``.

    Both functions take no arguments and must return the same nested structure (lists,
    tuples, dicts) of tensors and Python values. In static mode both are traced into
    sub-blocks and one ``cond`` operator picks at run time; outputs whose shapes differ between
    the branches get -1 in the differing dims. Only the branch taken contributes gradients.
    """
    _check_fn(true_fn, "true_fn", "cond")
    _check_fn(false_fn, "false_fn", "cond")
    if not isinstance(pred, Variable):
        taken = true_fn if bool(pred) else false_fn
        return None if taken is None else taken()
    if not _static():
        raise TypeError(f"cond(): argument 'pred' must be a bool tensor or a Python value in "
                        f"eager mode, got static Variable '{pred.name}' (the mode is eager)")
    _check_pred(pred, "cond")
    program = pred.block.program
    parent = program.current_block()
    with _BlockGuard(program) as tb:
        t_out = true_fn() if true_fn is not None else None
    with _BlockGuard(program) as fb:
        f_out = false_fn() if false_fn is not None else None
    try:
        t_leaves, t_tree = _st.flatten(t_out)
        f_leaves, f_tree = _st.flatten(f_out)
        _st.assert_same(t_tree, f_tree)
    except _st.StructureMismatch as e:
        raise ValueError(f"cond(): arguments 'true_fn' and 'false_fn' must return the same "
                         f"structure, got: {e}") from None
    results, t_names, f_names, out_vars = [], [], [], []
    for k, (t, f) in enumerate(zip(t_leaves, f_leaves)):
        where = _st.path_of(t_tree, k)
        if not isinstance(t, Variable) and not isinstance(f, Variable) and _same_py(t, f):
            results.append(t)
            continue
        if t is None or f is None:
            raise ValueError(f"cond(): arguments 'true_fn' and 'false_fn' must both return a "
                             f"value or both None for output {where}, got None in one branch "
                             f"and {type(t if f is None else f).__name__} in the other")
        with _in_block(program, tb):
            t = _const_like(t, getattr(f, "dtype", None))
        with _in_block(program, fb):
            f = _const_like(f, t.dtype)
        out = _merge_output(parent, t, f, where)
        results.append(out)
        out_vars.append(out.name)
        t_names.append(t.name)
        f_names.append(f.name)
    for w in _outer_writes(tb) + _outer_writes(fb):
        if w not in out_vars:
            out_vars.append(w)
            t_names.append(w)
            f_names.append(w)
    captured = []
    for n in _outer_reads(tb, t_names) + _outer_reads(fb, f_names):
        if n not in captured:
            captured.append(n)
    parent.append_op("cond", {"Cond": [pred.name], "Input": captured}, {"Out": out_vars},
                     {"true_block": tb.idx, "false_block": fb.idx, "true_outs": t_names,
                      "false_outs": f_names}, origin=_origin())
    return _st.pack(t_tree, results)


def _origin():
    return current_origin()


def _same_py(a, b):
    if a is None or b is None:
        return a is None and b is None
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and type(a) is type(b)
    except (TypeError, ValueError):
        return a is b


def _merge_output(parent, t, f, where):
    if t.dtype != f.dtype:
        raise TypeError(f"cond(): arguments 'true_fn' and 'false_fn' must return one dtype for "
                        f"output {where}, got {t.dtype.name} in true_fn ('{t.name}') but "
                        f"{f.dtype.name} in false_fn ('{f.name}'); cast one of them")
    if t.type != f.type:
        raise TypeError(f"cond(): arguments 'true_fn' and 'false_fn' must return one variable "
                        f"type for output {where}, got a {t.type} in true_fn but a {f.type} in "
                        "false_fn")
    shape = merge_shape(t.shape, f.shape)
    if shape is False:
        raise ValueError(f"cond(): arguments 'true_fn' and 'false_fn' must return one rank for "
                         f"output {where}, got shape {t.shape} in true_fn ('{t.name}') but "
                         f"{f.shape} in false_fn ('{f.name}'): the ranks differ")
    return parent.create_var(name=scoped_name("cond.tmp"), shape=shape, dtype=t.dtype,
                             type=t.type, stop_gradient=t.stop_gradient and f.stop_gradient)


# -- while_loop ------------------------------------------------------------------------------------
def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """``while cond(*loop_vars): loop_vars = body(*loop_vars)``; returns the final loop_vars.

    ``loop_vars`` is a list or tuple (leaves may be nested); ``body`` returns the same
    structure with the same dtypes. In static mode the body is traced once into a sub-block
    (again, with -1 in the dims whose size changes across iterations, when a loop variable's
    shape changes) and one ``while`` operator runs it.
    """
    _check_fn(cond, "cond", "while_loop")
    _check_fn(body, "body", "while_loop")
    if cond is None or body is None:
        raise TypeError(f"while_loop(): arguments 'cond' and 'body' must be callable, got "
                        f"{type(cond).__name__} and {type(body).__name__}")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError(f"while_loop(): argument 'loop_vars' must be a non-empty list or "
                        f"tuple, got {type(loop_vars).__name__} ({loop_vars!r})")
    leaves, tree = _st.flatten(list(loop_vars))
    if not _static() or not any(isinstance(v, Variable) for v in leaves):
        return _eager_while(cond, body, loop_vars)
    program = default_program_of(leaves)
    parent = program.current_block()
    leaves = [_const_like(v) if not isinstance(v, Variable) else v for v in leaves]
    c0 = cond(*_st.pack(tree, leaves))
    if not isinstance(c0, Variable):
        if not bool(c0):
            return type(loop_vars)(_st.pack(tree, leaves))
        raise ValueError("while_loop(): argument 'cond' must return a bool Variable, got "
                         "Python True for the loop variables: the loop would never end")
    _check_pred(c0, "while_loop", "the value returned by argument 'cond'")
    shapes = [v.shape for v in leaves]
    # NOTE: traced again (at most once per dim) while a loop variable's shape changes across
    # an iteration: the next trace relaxes that dim to -1
    for _attempt in range(1 + sum(len(s or ()) for s in shapes) + 1):
        point = program.checkpoint()
        body_block, params, outs, c_next = _trace_body(program, cond, body, tree, leaves,
                                                        shapes)
        new_shapes = [_relax(s, o.shape) for s, o in zip(shapes, outs)]
        if new_shapes == shapes:
            break
        program.rollback_to(point)
        shapes = new_shapes
    names = {"params": [p.name for p in params], "outs": [o.name for o in outs]}
    inits = [v.name for v in leaves]
    out_names = []
    for v, s in zip(leaves, shapes):
        out_names.append(parent.create_var(name=scoped_name("while.tmp"), shape=s, dtype=v.dtype,
                                           type=v.type, stop_gradient=v.stop_gradient).name)
    for w in _outer_writes(body_block):
        pw = _carry(program, body_block, parent, w)
        names["params"].append(pw.name)
        names["outs"].append(pw.name)
        inits.append(w)
        out_names.append(w)
    captured = _outer_reads(body_block, names["outs"] + [c_next.name])
    requires = any(not parent._find_var_recursive(n).stop_gradient for n in inits + captured)
    for n, o in zip(out_names, leaves):
        parent._find_var_recursive(n).stop_gradient = not requires or o.dtype.kind != "f"
    steps = parent.create_var(name=scoped_name("while.steps"), shape=None, dtype=None,
                              type="step_scopes", stop_gradient=True)
    parent.append_op("while", {"Condition": [c0.name], "X": inits + captured},
                     {"Out": out_names, "StepScopes": [steps.name]},
                     {"sub_block": body_block.idx, "loop_vars": names["params"],
                      "body_outs": names["outs"], "cond_out": c_next.name,
                      "is_test": bool(is_test)}, origin=_origin())
    result = _st.pack(tree, [parent._find_var_recursive(n) for n in out_names[:len(leaves)]])
    return type(loop_vars)(result) if isinstance(loop_vars, tuple) else list(result)


def default_program_of(leaves):
    for v in leaves:
        if isinstance(v, Variable):
            return v.block.program
    raise TypeError("while_loop(): argument 'loop_vars' must hold a static Variable, got none")


def _relax(a, b):
    m = merge_shape(a, b)
    return a if m is False else m


def _eager_while(cond, body, loop_vars):
    kind = type(loop_vars)
    current = list(loop_vars)
    while bool(cond(*current)):
        out = body(*current)
        if len(current) == 1 and not isinstance(out, (list, tuple)):
            out = [out]
        if not isinstance(out, (list, tuple)) or len(out) != len(current):
            _, got = _st.flatten(out)
            raise ValueError(f"while_loop(): argument 'body' must return {len(current)} loop "
                             f"variables (the structure of loop_vars), got "
                             f"{_st.describe(got)}")
        current = list(out)
    return kind(current) if kind is tuple else current


def _trace_body(program, cond, body, tree, leaves, shapes):
    with _BlockGuard(program) as blk:
        params = [blk.create_var(name=scoped_name("loop_var"), shape=s, dtype=v.dtype,
                                 type=v.type, stop_gradient=v.stop_gradient)
                  for v, s in zip(leaves, shapes)]
        out = body(*_st.pack(tree, params))
        if len(leaves) == 1 and not isinstance(out, (list, tuple)):
            out = [out]
        try:
            out_leaves, out_tree = _st.flatten(list(out) if isinstance(out, tuple) else out)
            _st.assert_same(tree, out_tree)
        except _st.StructureMismatch as e:
            raise ValueError(f"while_loop(): argument 'body' must return the structure of "
                             f"loop_vars, got: {e}") from None
        outs = []
        for k, (o, p) in enumerate(zip(out_leaves, params)):
            o = _const_like(o, p.dtype) if not isinstance(o, Variable) else o
            if o.dtype != p.dtype:
                raise TypeError(f"while_loop(): argument 'body' must keep the dtype of each "
                                f"loop variable, got {o.dtype.name} for loop variable "
                                f"{_st.path_of(tree, k)} ('{o.name}'), which entered the loop as "
                                f"{p.dtype.name}; the dtype of a loop variable cannot change")
            if o.type != p.type:
                raise TypeError(f"while_loop(): argument 'body' must keep the variable type of "
                                f"each loop variable, got a {o.type} for loop variable "
                                f"{_st.path_of(tree, k)}, which entered the loop as a {p.type}")
            if merge_shape(p.shape, o.shape) is False:
                raise ValueError(f"while_loop(): argument 'body' must keep the rank of each "
                                 f"loop variable, got shape {o.shape} for loop variable "
                                 f"{_st.path_of(tree, k)} ('{o.name}'), which entered the loop "
                                 f"with shape {p.shape}: the rank cannot change")
            outs.append(o)
        c_next = cond(*_st.pack(tree, outs))
        if not isinstance(c_next, Variable):
            c_next = _const_like(bool(c_next), np.dtype(bool))
        _check_pred(c_next, "while_loop", "the value returned by argument 'cond'")
    return blk, params, outs, c_next


def _carry(program, body, parent, w):
    """Make outer variable ``w`` written inside ``body`` a loop variable: a new parameter
    replaces ``w`` in the body (and its sub-blocks)."""
    v = parent._find_var_recursive(w)
    pw = body.create_var(name=scoped_name("loop_var"), shape=v.shape, dtype=v.dtype,
                         type=v.type, stop_gradient=v.stop_gradient)
    for b in program.blocks[body.idx:]:
        for op in b.ops:
            for d in (op.inputs, op.outputs):
                for slot, names in d.items():
                    d[slot] = [pw.name if n == w else n for n in names]
            for key in ("true_outs", "false_outs", "body_outs", "loop_vars"):
                if key in op.attrs:
                    op.attrs[key] = [pw.name if n == w else n for n in op.attrs[key]]
            if op.attrs.get("cond_out") == w:
                op.attrs["cond_out"] = pw.name
    program._bump()
    return pw


# -- case / switch_case ----------------------------------------------------------------------------
def case(pred_fn_pairs, default=None, name=None):
    """The function of the first pair whose predicate holds, else ``default`` (when None: the
    last pair's function)."""
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError(f"case(): argument 'pred_fn_pairs' must be a non-empty list of "
                        f"(pred, fn) pairs, got {type(pred_fn_pairs).__name__} "
                        f"({pred_fn_pairs!r})")
    for k, pair in enumerate(pred_fn_pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not callable(pair[1]):
            raise TypeError(f"case(): argument 'pred_fn_pairs[{k}]' must be a (pred, callable) "
                            f"pair, got {pair!r}")
    _check_fn(default, "default", "case")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
    return _chain(pairs, default)


def _chain(pairs, default):
    if not pairs:
        return default()
    (pred, fn), rest = pairs[0], pairs[1:]
    return cond(pred, fn, lambda: _chain(rest, default))


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The function for integer ``branch_index``; ``branch_fns`` is a dict ``{int: fn}``, a list
    of ``(int, fn)`` pairs or a list of functions (indexed by position). ``default`` (when None:
    the function of the largest index) runs for any other index."""
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)) and branch_fns and \
            all(callable(f) for f in branch_fns):
        items = list(enumerate(branch_fns))
    elif isinstance(branch_fns, (list, tuple)) and branch_fns:
        items = [tuple(p) for p in branch_fns]
    else:
        raise TypeError(f"switch_case(): argument 'branch_fns' must be a dict, a non-empty list "
                        f"of (int, fn) pairs or a list of functions, got "
                        f"{type(branch_fns).__name__} ({branch_fns!r})")
    for k, fn in items:
        if not isinstance(k, numbers.Integral) or not callable(fn):
            raise TypeError(f"switch_case(): argument 'branch_fns' must hold (int, callable) "
                            f"branches, got ({k!r}, {fn!r})")
    if len({k for k, _ in items}) != len(items):
        raise ValueError(f"switch_case(): argument 'branch_fns' must not repeat a branch "
                         f"index, got duplicate indices in {[k for k, _ in items]}")
    _check_fn(default, "default", "switch_case")
    items.sort(key=lambda p: p[0])
    if default is None:
        default = items[-1][1]
        items = items[:-1]
    if not isinstance(branch_index, Variable):
        idx = int(branch_index)
        return dict(items).get(idx, default)()
    return _chain([(branch_index == int(k), fn) for k, fn in items], default)


# -- Print / Assert --------------------------------------------------------------------------------
def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_lod=True,
          print_phase="both"):
    """Print ``input`` (its name, shape, dtype and first ``summarize`` values) when it is
    computed: at once in eager mode, each time the executor reaches it in static mode (also
    inside loops; at most ``first_n`` times when >= 0). Returns ``input``."""
    if not isinstance(input, Variable):
        data = input._data if hasattr(input, "_data") else input
        if isinstance(data, list):
            data = [getattr(a, "_data", a) for a in data]
        print(format_value(data, getattr(input, "name", None), message, summarize,
                           print_tensor_name, print_tensor_type, print_tensor_shape), flush=True)
        return input
    return apply("print", [input], {"first_n": int(first_n), "message": message or "",
                                    "summarize": int(summarize),
                                    "print_tensor_name": bool(print_tensor_name),
                                    "print_tensor_type": bool(print_tensor_type),
                                    "print_tensor_shape": bool(print_tensor_shape),
                                    "var_name": input.name, "print_phase": str(print_phase)})


def python_print(*values, sep=" ", end="\n", file=None, flush=False):
    """Python's ``print(*values, sep=sep, end=end, file=file, flush=flush)`` for values that
    may hold static Variables: eagerly it is ``print`` itself; in static mode it appends a
    ``python_print`` op that writes, each time the executor reaches it, the same text
    ``print`` would write then -- a Variable (also inside a list, tuple or dict) shown as
    the eager Tensor of its run-time value (a Variable marked ``weak``, standing for a Python
    number, as that number), anything else as ``print`` shows it now. Returns None."""
    for arg, v in (("sep", sep), ("end", end)):
        if v is not None and not isinstance(v, str):
            raise TypeError(f"python_print(): argument '{arg}' must be None or a string, got "
                            f"{type(v).__name__}")
    if not _static():
        print(*values, sep=sep, end=end, file=file, flush=flush)
        return None
    sep = " " if sep is None else sep
    end = "\n" if end is None else end
    segments, tensors = [""], []
    for k, value in enumerate(values):
        if k:
            segments[-1] += sep
        _print_segments(value, str, segments, tensors)
    segments[-1] += end
    apply("python_print", [tensors],
          {"segments": segments, "stop_gradient": [bool(t.stop_gradient) for t in tensors],
           "numbers": [bool(getattr(t, "weak", False)) for t in tensors],
           "stream": stream_key(file), "flush": bool(flush)})
    return None


def _print_segments(value, show, segments, tensors):
    """Extend ``segments`` / ``tensors`` with ``value`` as ``print`` shows it (``show`` is
    ``str`` at the top, ``repr`` inside containers): each Variable or Tensor a slot filled at
    run time, lists / tuples / dicts that hold one walked, anything else as text now."""
    if isinstance(value, (Variable, Tensor)):
        tensors.append(value)
        segments.append("")
    elif type(value) in (list, tuple, dict) and _holds_tensor(value):
        items = value.items() if isinstance(value, dict) else [(None, v) for v in value]
        opening, closing = {list: "[]", tuple: "()", dict: "{}"}[type(value)]
        segments[-1] += opening
        for k, (key, v) in enumerate(items):
            if k:
                segments[-1] += ", "
            if isinstance(value, dict):
                segments[-1] += repr(key) + ": "
            _print_segments(v, repr, segments, tensors)
        segments[-1] += ("," if type(value) is tuple and len(value) == 1 else "") + closing
    else:
        segments[-1] += show(value)


def _holds_tensor(value):
    leaves, _ = _st.flatten(value)
    return any(isinstance(v, (Variable, Tensor)) for v in leaves)


def Assert(cond, data=None, summarize=20, name=None):
    """Raise AssertionError (showing ``data``) when ``cond`` is False: at once in eager mode,
    when the executor reaches it in static mode."""
    data = list(data or [])
    if not isinstance(cond, Variable):
        c = cond._data if hasattr(cond, "_data") else np.asarray(cond)
        if not bool(np.all(c)):
            arrays = [d._data if hasattr(d, "_data") else np.asarray(d) for d in data]
            raise AssertionError(assert_message(getattr(cond, "name", "cond"), arrays,
                                                [getattr(d, "name", "") for d in data],
                                                summarize, name or ""))
        return None
    if cond.dtype != np.dtype(bool):
        raise TypeError(f"Assert(): argument 'cond' ('{cond.name}') must be a bool tensor, got "
                        f"dtype {cond.dtype.name}")
    return apply("assert", [cond, data], {"summarize": int(summarize), "message": name or "",
                                          "cond_name": cond.name,
                                          "data_names": [getattr(d, "name", "") for d in data]})


# -- feed placeholders -----------------------------------------------------------------------------
def data(name, shape, dtype="float32", append_batch_size=True, lod_level=0, stop_gradient=True):
    """fluid's ``layers.data``: a feed variable; ``append_batch_size`` prepends an unknown batch
    dim (unless the shape already has an unknown dim). Static mode only."""
    if not _static():
        raise RuntimeError(f"layers.data('{name}') declares a feed variable of a static program; "
                           "call core.enable_static() first (in eager mode use to_tensor)")
    shape = [(-1 if d is None else int(d)) for d in shape]
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    v = static_data(name, shape, dtype_name(dtype), lod_level)
    v.stop_gradient = stop_gradient
    return v

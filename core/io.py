"""Save and load: state dicts (``save`` / ``load``) and static programs with their variables
(``save_inference_model``, ``save_persistables``, ``save_params``, ``save_vars`` and the
matching loads).

File formats, the atomicity protocol and the limits are in ``docs/model_format.md``; the
bytes are written and checked by :mod:`core.serialization`, programs are (de)serialised by
:mod:`core.static.serialize`. Loading never executes code from a file.

State dicts (``save(state_dict, path)``): ``path`` is a prefix. A Layer's state dict goes to
``path + ".pdparams"``, an optimizer's to ``path + ".pdopt"``. Which one a dict is:

1. ``kind="params"`` / ``kind="optimizer"`` when given;
2. else a path ending in ``.pdparams`` / ``.pdopt`` names the file (and so the kind);
3. else a dict holding any parameter is a Layer's;
4. else a dict that is empty, holds an ``LR_Scheduler`` / ``LR_Scheduler.<field>`` key, an
   optimizer accumulator name (``<param>_moment1_0``, ``..._velocity_0``,
   ``..._beta1_pow_acc_0``, ...) or any value that is not an array (a Python scalar, a nested
   dict, a list, None) is an optimizer's (PaddlePaddle 1.8 sends every dict without
   parameters to ``.pdopt``);
5. else (a flat dict of arrays or tensors, e.g. one returned by ``load``) a Layer's.

``load(path)`` returns ``(param_dict, optimizer_dict)``, numpy arrays in place of tensors as
PaddlePaddle 1.8 does; either is None when its file is absent.

Programs: ``save_inference_model`` prunes the program to what the fetch targets need from the
feeds (see :func:`prune_for_inference`), switches it to inference (``is_test=True``) and saves
it as JSON (``__model__.json`` unless ``model_filename`` says otherwise) with the persistable
variables it reads: one ``.npy`` file per variable, or one bundle when ``params_filename`` is
given. ``save_vars`` and friends write one file per variable, or the single bundle
``filename``. Every directory save is atomic as a whole. Values come from the global scope
(``core.global_scope()``, so ``scope_guard`` selects it) unless ``scope=`` is given; loads
put them there, after checking each against the program's declared shape and dtype. All of
these work in eager and static mode alike.
"""
import os
import re

from .serialization import DirectoryReader, DirectoryWriter, ModelFormatError, load_tree, save_tree

__all__ = [
    "INFERENCE_FORMAT",
    "MODEL_FILENAME",
    "is_parameter",
    "is_persistable",
    "load",
    "load_inference_model",
    "load_params",
    "load_persistables",
    "load_vars",
    "prune_for_inference",
    "save",
    "save_inference_model",
    "save_params",
    "save_persistables",
    "save_vars",
]

MODEL_FILENAME = "__model__.json"
INFERENCE_FORMAT = "dy2static.inference_model"

PARAMS_SUFFIX = ".pdparams"
OPT_SUFFIX = ".pdopt"
_KINDS = {"params": PARAMS_SUFFIX, "pdparams": PARAMS_SUFFIX, "optimizer": OPT_SUFFIX,
          "pdopt": OPT_SUFFIX}
_ACCUMULATOR = re.compile(r"_(moment1|moment2|velocity|beta1_pow_acc|beta2_pow_acc|"
                          r"moment|mean_square|mean_grad)_\d+$")


def _is_parameter(value):
    from .tensor import Parameter

    if isinstance(value, Parameter):
        return True
    return type(value).__name__ == "Parameter" and hasattr(value, "block")


def _is_array_like(value):
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(
        value, (bool, int, float, str))


def _strip_suffix(path):
    path = os.fspath(path)
    for suffix in (PARAMS_SUFFIX, OPT_SUFFIX):
        if path.endswith(suffix):
            return path[:-len(suffix)], suffix
    return path, None


def _suffix_for(state_dict, suffix, kind):
    if kind is not None:
        if kind not in _KINDS:
            raise ValueError(f"save: kind must be 'params' or 'optimizer', got {kind!r}")
        return _KINDS[kind]
    if suffix is not None:
        return suffix
    values = list(state_dict.values())
    if any(_is_parameter(v) for v in values):
        return PARAMS_SUFFIX
    if not values or any(isinstance(k, str) and (k == "LR_Scheduler" or k.startswith(
            "LR_Scheduler.") or _ACCUMULATOR.search(k)) for k in state_dict):
        return OPT_SUFFIX
    if not all(_is_array_like(v) for v in values):
        return OPT_SUFFIX
    return PARAMS_SUFFIX


def _values_of(value):
    """Static Variables (a static-mode Layer's parameters) read their values from the global
    scope."""
    from .static.program import Variable

    if isinstance(value, Variable):
        from .static.scope import global_scope

        holder = global_scope().find_var(value.name)
        arr = None if holder is None else holder.get_tensor().array
        if arr is None:
            raise ValueError(f"save: variable '{value.name}' has no value in the global scope; "
                             "run the startup program first")
        return arr
    if isinstance(value, dict):
        return type(value)((k, _values_of(v)) for k, v in value.items())
    return value


def save(state_dict, path, kind=None):
    """Write ``state_dict`` to ``path.pdparams`` (a Layer's) or ``path.pdopt`` (an
    optimizer's), atomically; see the module docstring for how the two are told apart.

    Values may be tensors, parameters, ndarrays, Python scalars, strings, None and nested
    dicts / lists of those. Returns the path of the file written."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"save: state_dict must be a dict (Layer.state_dict() or "
                        f"Optimizer.state_dict()), got {type(state_dict).__name__}")
    prefix, suffix = _strip_suffix(path)
    if not os.path.basename(prefix):
        raise ValueError(f"save: path {os.fspath(path)!r} must name a file prefix, not a folder")
    suffix = _suffix_for(state_dict, suffix, kind)
    target = prefix + suffix
    head = os.path.dirname(target)
    if head:
        os.makedirs(head, exist_ok=True)
    tree = {k: _values_of(v) for k, v in state_dict.items()}
    save_tree(target, tree, kind=suffix[1:])
    return target


def load(path):
    """``(param_dict, optimizer_dict)`` read from ``path.pdparams`` and ``path.pdopt``; either
    is None when its file is absent; an error naming both paths when both are."""
    prefix, _ = _strip_suffix(path)
    tried = [prefix + PARAMS_SUFFIX, prefix + OPT_SUFFIX]
    found = [os.path.isfile(p) for p in tried]
    if not any(found):
        raise FileNotFoundError(f"load: neither {tried[0]} nor {tried[1]} exists")
    results = []
    for p, present in zip(tried, found):
        if not present:
            results.append(None)
            continue
        tree = load_tree(p, kind=os.path.splitext(p)[1][1:])
        if not isinstance(tree, dict):
            raise ModelFormatError(f"{p}: holds a {type(tree).__name__}, not a state dict")
        results.append(tree)
    return results[0], results[1]


# -- static programs: which variables ----------------------------------------------------------
def is_persistable(var):
    """Paddle's predicate: a persistable dense tensor (parameters, optimizer state, LR)."""
    return bool(var.persistable) and var.type == "lod_tensor"


def is_parameter(var):
    from .static.program import Parameter

    return isinstance(var, Parameter)


def _program(main_program, api):
    from .static.compiled import unwrap_program
    from .static.program import default_main_program

    return default_main_program() if main_program is None else unwrap_program(main_program, api)


def _scope(scope):
    from .static.scope import global_scope

    return global_scope() if scope is None else scope


def _select_vars(program, vars, predicate, api):
    if vars is not None:
        gb = program.global_block()
        out = []
        for v in vars:
            name = v if isinstance(v, str) else v.name
            var = gb._find_var_recursive(name)
            if var is None:
                raise ValueError(f"{api}: '{name}' is not a variable of the program's global "
                                 "block")
            out.append(var)
        return out
    predicate = predicate or is_persistable
    return [v for v in program.list_vars() if predicate(v)]


def _values_from_scope(variables, scope, api):
    values = {}
    for v in variables:
        holder = scope.find_var(v.name)
        arr = None if holder is None else holder.get_tensor().array
        if arr is None:
            raise ValueError(f"{api}: variable '{v.name}' has no value in the scope; run the "
                             "startup program (and train) before saving")
        if isinstance(arr, list):
            raise TypeError(f"{api}: variable '{v.name}' is a tensor array; only dense "
                            "tensors are saved")
        values[v.name] = arr
    return values


def _check_declared(var, arr, where):
    shape = var.shape
    if shape is not None and (len(shape) != arr.ndim or any(
            d >= 0 and d != s for d, s in zip(shape, arr.shape))):
        raise ValueError(f"{where}: variable '{var.name}' is declared with shape {list(shape)} "
                         f"but the saved value has shape {list(arr.shape)}")
    if var.dtype is not None and arr.dtype != var.dtype:
        raise ValueError(f"{where}: variable '{var.name}' is declared as {var.dtype.name} but "
                         f"the saved value is {arr.dtype.name}")


def _read_vars(reader, variables, filename, where):
    if filename is not None:
        stored, _ = reader.read_arrays(filename)
    values = {}
    for v in variables:
        if filename is not None:
            if v.name not in stored:
                raise ValueError(f"{where}: variable '{v.name}' is not in the file '{filename}'")
            arr = stored[v.name]
        else:
            if not reader.has(v.name):
                raise ValueError(f"{where}: variable '{v.name}' was not saved there (it holds "
                                 f"{sorted(reader.names())})")
            arr = reader.read_array(v.name)
        _check_declared(v, arr, where)
        values[v.name] = arr
    return values


def _place_of(executor):
    return getattr(executor, "place", None)


def _assign(values, scope, place):
    for name, arr in values.items():
        scope.var(name).get_tensor().set(arr, place)


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None,
              scope=None):
    """Save variables of ``main_program`` (``vars``, else those ``predicate`` selects, else
    the persistable ones) from the scope into ``dirname``: one file per variable, or all in the
    bundle ``filename``. Files saved earlier in ``dirname`` and not rewritten are kept."""
    program = _program(main_program, "save_vars")
    variables = _select_vars(program, vars, predicate, "save_vars")
    values = _values_from_scope(variables, _scope(scope), "save_vars")
    with DirectoryWriter(dirname, kind="variables", keep_existing=True) as w:
        if filename is not None:
            w.write_arrays(filename, values, kind="variables")
        else:
            for name, arr in values.items():
                w.write_array(name, arr)


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None,
              scope=None):
    """Load the variables :func:`save_vars` selects the same way into the scope, checking
    each value against the program's declared shape and dtype first."""
    program = _program(main_program, "load_vars")
    variables = _select_vars(program, vars, predicate, "load_vars")
    values = _read_vars(DirectoryReader(dirname), variables, filename, os.fspath(dirname))
    _assign(values, _scope(scope), _place_of(executor))


def save_params(executor, dirname, main_program=None, filename=None, scope=None):
    """:func:`save_vars` of the program's parameters."""
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename,
              scope=scope)


def load_params(executor, dirname, main_program=None, filename=None, scope=None):
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename,
              scope=scope)


def save_persistables(executor, dirname, main_program=None, filename=None, scope=None):
    """:func:`save_vars` of every persistable variable (parameters, optimizer state, LR)."""
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename,
              scope=scope)


def load_persistables(executor, dirname, main_program=None, filename=None, scope=None):
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename,
              scope=scope)


# -- inference models ----------------------------------------------------------------------------
def _outer_names(program, op):
    """Names the sub-blocks of ``op`` (recursively) use but do not declare themselves."""
    from .static.serialize import sub_block_indices

    out, stack = set(), list(sub_block_indices(op))
    seen = set()
    while stack:
        idx = stack.pop()
        if idx in seen or not 0 <= idx < len(program.blocks):
            continue
        seen.add(idx)
        block = program.blocks[idx]
        for sub in block.ops:
            for name in sub.input_arg_names + sub.output_arg_names:
                var = block._find_var_recursive(name)
                if var is None or var.block.idx not in seen:
                    out.add(name)
            stack.extend(sub_block_indices(sub))
    return out


def _kept_blocks(program, ops):
    from .static.serialize import sub_block_indices

    kept, stack = {0}, [i for op in ops for i in sub_block_indices(op)]
    while stack:
        idx = stack.pop()
        if idx in kept or not 0 < idx < len(program.blocks):
            continue
        kept.add(idx)
        block = program.blocks[idx]
        stack.append(block.parent_idx)
        stack.extend(i for op in block.ops for i in sub_block_indices(op))
    return sorted(kept)


def _renumber(program, kept_blocks, referenced):
    from .static.serialize import is_block_attr

    new_idx = {old: new for new, old in enumerate(kept_blocks)}
    blocks = [program.blocks[i] for i in kept_blocks]
    for b in blocks:
        b.idx = new_idx[b.idx]
        b.parent_idx = new_idx.get(b.parent_idx, -1)
        b.forward_block_idx = new_idx.get(b.forward_block_idx, -1)
        b.vars = {n: v for n, v in b.vars.items() if n in referenced}
        for op in b.ops:
            for k, v in op.attrs.items():
                if is_block_attr(k) and isinstance(v, int) and not isinstance(v, bool):
                    op.attrs[k] = new_idx[v]
                elif is_block_attr(k) and isinstance(v, list):
                    op.attrs[k] = [new_idx[i] for i in v]
    program.blocks = blocks


def prune_for_inference(program, feeded_var_names, target_names):
    """A copy of ``program`` for inference: backward and optimizer ops dropped, ``is_test``
    set, and of the rest only the ops the targets need given the feeds (with the sub-blocks
    those ops run and the variables they all use). A needed variable that is neither fed,
    persistable nor computed is an error naming it."""
    pruned = program.clone(for_test=True)
    gb = pruned.global_block()
    for kind, names in (("feeded_var_names", feeded_var_names), ("target_vars", target_names)):
        for n in names:
            if gb._find_var_recursive(n) is None:
                raise ValueError(f"save_inference_model: {kind} names '{n}', which is not a "
                                 "variable of the program's global block")
    feeds, needed, kept = set(feeded_var_names), set(target_names), []
    for op in reversed(gb.ops):
        outs = set(op.output_arg_names)
        if not (outs & needed) - feeds:
            continue
        kept.append(op)
        reads = set(op.input_arg_names) | _outer_names(pruned, op)
        needed = (needed - (outs - reads)) | reads
    kept.reverse()
    missing = sorted(n for n in needed - feeds
                     if gb._find_var_recursive(n) is None or
                     not gb._find_var_recursive(n).persistable)
    if missing:
        raise ValueError(f"save_inference_model: the targets {list(target_names)} need "
                         f"{missing}, which are neither fed (feeded_var_names="
                         f"{list(feeded_var_names)}) nor computed from the feeds")
    gb.ops = kept
    blocks = _kept_blocks(pruned, kept)
    referenced = feeds | set(target_names)
    for i in blocks:
        for op in pruned.blocks[i].ops:
            referenced.update(op.input_arg_names)
            referenced.update(op.output_arg_names)
    _renumber(pruned, blocks, referenced)
    pruned._bump()
    return pruned


def _names_of(values, api, what):
    if isinstance(values, str) or not isinstance(values, (list, tuple)):
        values = [values]
    out = []
    for v in values:
        name = v if isinstance(v, str) else getattr(v, "name", None)
        if not isinstance(name, str):
            raise TypeError(f"{api}: {what} must be variable names or Variables, got "
                            f"{type(v).__name__}")
        out.append(name)
    return out


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False, scope=None):
    """Save the part of ``main_program`` that computes ``target_vars`` from the feeds, and
    the persistable variables it reads, into ``dirname`` atomically; return the fetch names.

    ``export_for_deployment=False`` keeps the whole program unpruned (for further training);
    ``program_only=True`` writes the program without parameters."""
    api = "save_inference_model"
    program = _program(main_program, api)
    feeds = _names_of(feeded_var_names, api, "feeded_var_names")
    fetches = _names_of(target_vars, api, "target_vars")
    if export_for_deployment:
        saved = prune_for_inference(program, feeds, fetches)
    else:
        saved = program.clone()
    from .static.serialize import program_to_dict

    persistables = [v for v in saved.global_block().vars.values() if is_persistable(v)]
    values = {} if program_only else _values_from_scope(persistables, _scope(scope), api)
    doc = {"format": INFERENCE_FORMAT, "version": 1, "feed_target_names": feeds,
           "fetch_target_names": fetches, "params_saved": not program_only,
           "params_filename": params_filename, "program": program_to_dict(saved)}
    with DirectoryWriter(dirname, kind="inference_model") as w:
        w.write_json(model_filename or MODEL_FILENAME, doc)
        if params_filename is not None and not program_only:
            w.write_arrays(params_filename, values, kind="variables")
        else:
            for name, arr in values.items():
                w.write_array(name, arr)
    return fetches


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         scope=None):
    """``[program, feed_target_names, fetch_targets]`` from a :func:`save_inference_model`
    directory; the parameters are checked against the program and put into the scope."""
    from .serialization import check_header
    from .static.serialize import program_from_dict

    reader = DirectoryReader(dirname)
    name = model_filename or MODEL_FILENAME
    where = os.path.join(os.fspath(dirname), name)
    doc = reader.read_json(name)
    check_header(doc, INFERENCE_FORMAT, where)
    program = program_from_dict(doc.get("program"), where)
    gb = program.global_block()
    lists = {}
    for key in ("feed_target_names", "fetch_target_names"):
        names = doc.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ModelFormatError(f"{where}: field '{key}' must be a list of names")
        for n in names:
            if n not in gb.vars:
                raise ModelFormatError(f"{where}: field '{key}' names '{n}', which is not a "
                                       "variable of the program")
        lists[key] = names
    saved_with, params_saved = doc.get("params_filename"), doc.get("params_saved")
    if not isinstance(saved_with, (str, type(None))) or not isinstance(params_saved, bool):
        raise ModelFormatError(f"{where}: fields 'params_filename' (a name or null) and "
                               "'params_saved' (true or false) are malformed or missing")
    if params_saved:
        if params_filename is not None and params_filename != saved_with:
            raise ValueError(f"load_inference_model: {dirname} was saved with params_filename="
                             f"{saved_with!r}, not {params_filename!r}")
        persistables = [v for v in gb.vars.values() if is_persistable(v)]
        values = _read_vars(reader, persistables, saved_with, where)
        _assign(values, _scope(scope), _place_of(executor))
    fetch_targets = [gb.vars[n] for n in lists["fetch_target_names"]]
    return [program, lists["feed_target_names"], fetch_targets]

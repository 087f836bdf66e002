"""Variables of static programs saved into a directory: ``save_vars`` / ``load_vars`` and
the ``params`` / ``persistables`` shorthands. Values come from the scope (the global scope
unless ``scope=`` is given); loads check each value against the program's declared shape and
dtype before putting it there. The helpers here also serve :mod:`core.io.inference`."""
import os

from ..serialization import DirectoryReader, DirectoryWriter
from ..static.compiled import unwrap_program
from ..static.program import Parameter, default_main_program
from ..static.scope import global_scope

__all__ = ["is_parameter", "is_persistable", "load_params", "load_persistables", "load_vars",
           "save_params", "save_persistables", "save_vars"]


def is_persistable(var):
    """Paddle's predicate: a persistable dense tensor (parameters, optimizer state, LR)."""
    return bool(var.persistable) and var.type == "lod_tensor"


def is_parameter(var):
    return isinstance(var, Parameter)


def program_of(main_program, api):
    return default_main_program() if main_program is None else unwrap_program(main_program, api)


def scope_of(scope):
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


def values_from_scope(variables, scope, api):
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


def read_vars(reader, variables, filename, where):
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


def place_of(executor):
    return getattr(executor, "place", None)


def assign_values(values, scope, place):
    for name, arr in values.items():
        scope.var(name).get_tensor().set(arr, place)


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None,
              scope=None):
    """Save variables of ``main_program`` (``vars``, else those ``predicate`` selects, else
    the persistable ones) from the scope into ``dirname``: one file per variable, or all in the
    bundle ``filename``. Files saved earlier in ``dirname`` and not rewritten are kept."""
    program = program_of(main_program, "save_vars")
    variables = _select_vars(program, vars, predicate, "save_vars")
    values = values_from_scope(variables, scope_of(scope), "save_vars")
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
    program = program_of(main_program, "load_vars")
    variables = _select_vars(program, vars, predicate, "load_vars")
    values = read_vars(DirectoryReader(dirname), variables, filename, os.fspath(dirname))
    assign_values(values, scope_of(scope), place_of(executor))


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

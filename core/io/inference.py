"""Inference models: ``save_inference_model`` writes the pruned program (JSON) with the
persistable variables it reads as one atomic directory save; ``load_inference_model`` reads it
back, checking the program and each value first. See docs/model_format.md."""
import os

from ..serialization import DirectoryReader, DirectoryWriter, ModelFormatError, check_header
from ..static.prune import prune_for_inference
from ..static.serialize import program_from_dict, program_to_dict
from ..static.variable import names_of
from .variables import (assign_values, is_persistable, place_of, program_of, read_vars,
                        scope_of, values_from_scope)

__all__ = ["INFERENCE_FORMAT", "MODEL_FILENAME", "load_inference_model", "save_inference_model"]

MODEL_FILENAME = "__model__.json"
INFERENCE_FORMAT = "dy2static.inference_model"


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False, scope=None):
    """Save the part of ``main_program`` that computes ``target_vars`` from the feeds, and
    the persistable variables it reads, into ``dirname`` atomically; return the fetch names.

    ``export_for_deployment=False`` keeps the whole program unpruned (for further training);
    ``program_only=True`` writes the program without parameters."""
    api = "save_inference_model"
    program = program_of(main_program, api)
    feeds = names_of(feeded_var_names, f"{api}: feeded_var_names must be variable names or "
                     "Variables", allow_none=False)
    fetches = names_of(target_vars, f"{api}: target_vars must be variable names or Variables",
                       allow_none=False)
    if export_for_deployment:
        saved = prune_for_inference(program, feeds, fetches)
    else:
        saved = program.clone()
    persistables = [v for v in saved.global_block().vars.values() if is_persistable(v)]
    values = {} if program_only else values_from_scope(persistables, scope_of(scope), api)
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
        values = read_vars(reader, persistables, saved_with, where)
        assign_values(values, scope_of(scope), place_of(executor))
    fetch_targets = [gb.vars[n] for n in lists["fetch_target_names"]]
    return [program, lists["feed_target_names"], fetch_targets]

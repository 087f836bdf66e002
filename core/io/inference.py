"""Inference models, in two layouts:

* a directory (``save_inference_model`` / ``load_inference_model``, the 1.8 API): the pruned
  program (JSON) with the persistable variables it reads, as one atomic directory save;
* a path prefix (``save_inference_files`` / ``load_inference_files``, the layout of
  PaddlePaddle 2.x's ``paddle.static.save_inference_model`` and ``paddle.jit.save``):
  ``prefix.pdmodel`` (the same JSON document), ``prefix.pdiparams`` (one array bundle of the
  persistables) and ``prefix.pdiparams.info`` (JSON: per variable, whether it is trainable
  and its name in the Layer that was saved). The three files are written under temporary
  names and renamed into place only once all are complete, the model file last; the random
  ``save_id`` all three carry lets a load detect files of different saves.

Loading checks the program and each value first. See docs/model_format.md."""
import os
import secrets

from ..serialization import DirectoryReader, DirectoryWriter, ModelFormatError, check_header
from ..serialization.directory import MANIFEST_NAME
from ..serialization.atomic import atomic_write
from ..serialization.bundle import load_arrays, write_bundle
from ..serialization.documents import MAX_JSON_BYTES, decode_json, encode_json
from ..static.prune import prune_for_inference
from ..static.serialize import program_from_dict, program_to_dict
from ..static.variable import names_of
from .variables import (_check_declared, assign_values, is_parameter, is_persistable, place_of,
                        program_of, read_vars, scope_of, values_from_scope)

__all__ = ["INFERENCE_FORMAT", "INFO_SUFFIX", "MODEL_FILENAME", "MODEL_SUFFIX",
           "PARAMS_INFO_FORMAT", "PARAMS_SUFFIX", "check_path_prefix", "load_inference_files",
           "load_inference_model", "read_inference_files", "save_inference_files",
           "save_inference_model"]

MODEL_FILENAME = "__model__.json"
INFERENCE_FORMAT = "dy2static.inference_model"
MODEL_SUFFIX = ".pdmodel"
PARAMS_SUFFIX = ".pdiparams"
INFO_SUFFIX = ".pdiparams.info"
PARAMS_INFO_FORMAT = "dy2static.params_info"
#: the ``kind`` of a ``.pdiparams`` bundle
PARAMS_KIND = "inference_params"
#: the ``layout`` field of a ``.pdmodel`` document
PREFIX_LAYOUT = "path_prefix"


def _pruned(program, feeds, fetches, export_for_deployment, api, feed_arg, fetch_arg):
    """``(saved program, feed names, fetch names)``."""
    feeds = names_of(feeds, f"{api}: {feed_arg} must be variable names or Variables",
                     allow_none=False)
    fetches = names_of(fetches, f"{api}: {fetch_arg} must be variable names or Variables",
                       allow_none=False)
    if export_for_deployment:
        saved = prune_for_inference(program, feeds, fetches)
    else:
        saved = program.clone()
    return saved, feeds, fetches


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, export_for_deployment=True,
                         program_only=False, scope=None):
    """Save the part of ``main_program`` that computes ``target_vars`` from the feeds, and
    the persistable variables it reads, into ``dirname`` atomically; return the fetch names.

    ``export_for_deployment=False`` keeps the whole program unpruned (for further training);
    ``program_only=True`` writes the program without parameters."""
    api = "save_inference_model"
    program = program_of(main_program, api)
    saved, feeds, fetches = _pruned(program, feeded_var_names, target_vars,
                                    export_for_deployment, api, "feeded_var_names",
                                    "target_vars")
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


def _program_and_names(doc, where):
    """The program of an inference-model document and its feed and fetch names, checked."""
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
    return program, lists["feed_target_names"], lists["fetch_target_names"]


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         scope=None):
    """``[program, feed_target_names, fetch_targets]`` from a :func:`save_inference_model`
    directory; the parameters are checked against the program and put into the scope.

    ``model_filename`` ``NAME.pdmodel`` (with ``params_filename`` None or ``NAME.pdiparams``)
    in a folder that is no such directory names a path-prefix save
    (:func:`save_inference_files`, ``paddle.jit.save``), as PaddlePaddle 2.x loads those."""
    prefix = _prefix_save(dirname, model_filename, params_filename)
    if prefix is not None:
        return load_inference_files(prefix, executor, scope)
    reader = DirectoryReader(dirname)
    name = model_filename or MODEL_FILENAME
    where = os.path.join(os.fspath(dirname), name)
    doc = reader.read_json(name)
    check_header(doc, INFERENCE_FORMAT, where)
    program, feeds, fetch_names = _program_and_names(doc, where)
    gb = program.global_block()
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
    fetch_targets = [gb.vars[n] for n in fetch_names]
    return [program, feeds, fetch_targets]


def _prefix_save(dirname, model_filename, params_filename):
    """The path prefix of the path-prefix save ``dirname/model_filename`` names, else None."""
    if not isinstance(model_filename, str) or not model_filename.endswith(MODEL_SUFFIX):
        return None
    path = os.path.join(os.fspath(dirname), model_filename)
    if not os.path.isfile(path) or os.path.isfile(os.path.join(os.fspath(dirname),
                                                               MANIFEST_NAME)):
        return None
    prefix = path[:-len(MODEL_SUFFIX)]
    expected = os.path.basename(prefix) + PARAMS_SUFFIX
    if params_filename is not None and params_filename != expected:
        raise ValueError(f"load_inference_model: {path} is a path-prefix save; its parameters "
                         f"are params_filename={expected!r}, not {params_filename!r}")
    return prefix


# -- the path-prefix layout -----------------------------------------------------------------------
def check_path_prefix(path_prefix, api, arg="path_prefix"):
    """``path_prefix`` as a string, checked to be ``dirname/file_prefix``."""
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise TypeError(f"{api}: argument '{arg}' must be a path 'dirname/file_prefix', got "
                        f"{type(path_prefix).__name__}")
    path = os.fspath(path_prefix)
    if not isinstance(path, str) or not os.path.basename(path):
        raise ValueError(f"{api}: argument '{arg}' must be a path 'dirname/file_prefix' (the "
                         f"files are file_prefix{MODEL_SUFFIX} and file_prefix{PARAMS_SUFFIX}), "
                         f"got {path!r}, which names no file prefix")
    return path


def _var_entry(var, extra):
    entry = {"trainable": bool(is_parameter(var) and getattr(var, "trainable", True))}
    entry.update(extra or {})
    return entry


def save_inference_files(path_prefix, feed_vars, fetch_vars, executor, program=None,
                         scope=None, var_info=None, api="save_inference_model"):
    """Save the part of ``program`` that computes ``fetch_vars`` from ``feed_vars``, and the
    persistable variables it reads (from the scope), as ``path_prefix.pdmodel`` /
    ``.pdiparams`` / ``.pdiparams.info`` (see the module docstring); return the fetch names.

    ``var_info``: optional JSON entries per variable name, merged into the info file (the
    Layer's ``structured_name`` of a parameter). The folder is created if missing."""
    path = check_path_prefix(path_prefix, api)
    program = program_of(program, api)
    saved, feeds, fetches = _pruned(program, feed_vars, fetch_vars, True, api, "feed_vars",
                                    "fetch_vars")
    if not fetches:
        raise ValueError(f"{api}: argument 'fetch_vars' is empty; give at least one Variable to "
                         "fetch")
    persistables = [v for v in saved.global_block().vars.values() if is_persistable(v)]
    values = values_from_scope(persistables, scope_of(scope), api)
    var_info = var_info or {}
    save_id = secrets.token_hex(8)
    doc = {"format": INFERENCE_FORMAT, "version": 1, "layout": PREFIX_LAYOUT, "save_id": save_id,
           "feed_target_names": feeds, "fetch_target_names": fetches,
           "program": program_to_dict(saved)}
    info = {"format": PARAMS_INFO_FORMAT, "version": 1, "save_id": save_id,
            "vars": {v.name: _var_entry(v, var_info.get(v.name)) for v in persistables}}
    head = os.path.dirname(path)
    if head:
        os.makedirs(head, exist_ok=True)
    # NOTE: the blocks exit innermost first: nothing is renamed before all three files are
    # complete, and the model file, which a load opens first, is renamed last
    with atomic_write(path + MODEL_SUFFIX) as model_file, \
            atomic_write(path + PARAMS_SUFFIX) as params_file, \
            atomic_write(path + INFO_SUFFIX) as info_file:
        write_bundle(params_file, values, PARAMS_KIND, {"save_id": save_id})
        info_file.write(encode_json(info))
        model_file.write(encode_json(doc))
    return fetches


def _read_json_file(path):
    with open(path, "rb") as f:
        data = f.read(MAX_JSON_BYTES + 1)
    return decode_json(data, path)


def _mixed(path, other):
    return ModelFormatError(f"{path} and {other} come from different saves (a save that was "
                            "interrupted, or files copied from elsewhere); save the model again")


def read_inference_files(path_prefix, api="load_inference_model"):
    """``(program, feed_names, fetch_names, values, info)`` of a :func:`save_inference_files`
    save, everything checked: ``values`` maps each persistable of the program to its array,
    ``info`` is the info file's ``vars`` mapping (None when that file is absent)."""
    path = check_path_prefix(path_prefix, api)
    model = path + MODEL_SUFFIX
    if not os.path.isfile(model):
        raise FileNotFoundError(f"{api}: no saved model at {path!r}: {model!r} does not exist")
    doc = _read_json_file(model)
    check_header(doc, INFERENCE_FORMAT, model)
    save_id = doc.get("save_id")
    if doc.get("layout") != PREFIX_LAYOUT or not isinstance(save_id, str):
        raise ModelFormatError(f"{model}: fields 'layout' ('{PREFIX_LAYOUT}') and 'save_id' (a "
                               "string) are malformed or missing")
    program, feeds, fetch_names = _program_and_names(doc, model)
    params = path + PARAMS_SUFFIX
    if not os.path.isfile(params):
        raise FileNotFoundError(f"{api}: {params!r}, the parameters of {model!r}, does not "
                                "exist")
    stored, meta = load_arrays(params, kind=PARAMS_KIND)
    if not isinstance(meta, dict) or meta.get("save_id") != save_id:
        raise _mixed(params, model)
    values = {}
    for var in program.global_block().vars.values():
        if not is_persistable(var):
            continue
        if var.name not in stored:
            raise ModelFormatError(f"{params}: variable '{var.name}' of the program is not in "
                                   "the file")
        _check_declared(var, stored[var.name], params)
        values[var.name] = stored[var.name]
    info = None
    info_path = path + INFO_SUFFIX
    if os.path.isfile(info_path):
        doc = _read_json_file(info_path)
        check_header(doc, PARAMS_INFO_FORMAT, info_path)
        if doc.get("save_id") != save_id:
            raise _mixed(info_path, model)
        info = doc.get("vars")
        if not isinstance(info, dict) or not all(isinstance(e, dict) for e in info.values()):
            raise ModelFormatError(f"{info_path}: field 'vars' must map names to objects")
    return program, feeds, fetch_names, values, info


def load_inference_files(path_prefix, executor, scope=None, api="load_inference_model"):
    """``[program, feed_target_names, fetch_targets]`` from a :func:`save_inference_files`
    save; the values are checked against the program and put into the scope."""
    program, feeds, fetch_names, values, _ = read_inference_files(path_prefix, api)
    assign_values(values, scope_of(scope), place_of(executor))
    gb = program.global_block()
    return [program, feeds, [gb.vars[n] for n in fetch_names]]

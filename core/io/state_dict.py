"""State dicts of Layers and optimizers: ``save(state_dict, path)`` and ``load(path)``.

``path`` is a prefix. A Layer's state dict goes to
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

PaddlePaddle 2.x's ``paddle.save(obj, path)`` / ``paddle.load(path)`` are :func:`save_object`
and :func:`load_object`: ``path`` is the whole file name and ``load_object`` returns the object
that was saved (a state dict, a tensor, nested dicts / lists of them), tensors in place of
arrays unless ``return_numpy``. The file format is the same, so either pair reads the files
the other writes.
"""
import os
import re

import numpy as np

from ..serialization import ModelFormatError, load_tree, save_tree
from ..static.program import Variable
from ..static.scope import global_scope
from ..tensor import Parameter, to_tensor
from . import inference as _inference

__all__ = ["OPT_SUFFIX", "PARAMS_SUFFIX", "load", "load_object", "save", "save_object"]

PARAMS_SUFFIX = ".pdparams"
OPT_SUFFIX = ".pdopt"
_KINDS = {"params": PARAMS_SUFFIX, "pdparams": PARAMS_SUFFIX, "optimizer": OPT_SUFFIX,
          "pdopt": OPT_SUFFIX}
_ACCUMULATOR = re.compile(r"_(moment1|moment2|velocity|beta1_pow_acc|beta2_pow_acc|"
                          r"moment|mean_square|mean_grad)_\d+$")


def _is_parameter(value):
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
    if isinstance(value, Variable):
        holder = global_scope().find_var(value.name)
        arr = None if holder is None else holder.get_tensor().array
        if arr is None:
            raise ValueError(f"save: variable '{value.name}' has no value in the global scope; "
                             "run the startup program first")
        return arr
    if isinstance(value, dict):
        return type(value)((k, _values_of(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(_values_of(v) for v in value)
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


def save_object(obj, path, protocol=4):
    """``paddle.save``: write ``obj`` (a state dict, a tensor or array, Python scalars, strings,
    None, or nested dicts / lists / tuples of those) to the file ``path``, atomically. A name
    ending in ``.pdparams`` / ``.pdopt`` gives the file that kind, so :func:`load` reads it too.
    ``protocol`` is accepted for PaddlePaddle's signature; nothing is pickled."""
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ValueError(f"save: path {path!r} must name a file, not a folder")
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 2 <= protocol <= 5:
        raise ValueError(f"save: protocol must be an int in [2, 5], got {protocol!r}")
    _, suffix = _strip_suffix(path)
    head = os.path.dirname(path)
    if head:
        os.makedirs(head, exist_ok=True)
    save_tree(path, _values_of(obj), kind=suffix[1:] if suffix else "object")
    return path


def _as_tensors(value):
    if isinstance(value, dict):
        return type(value)((k, _as_tensors(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(_as_tensors(v) for v in value)
    if isinstance(value, np.ndarray):
        return to_tensor(value)
    return value


def load_object(path, return_numpy=False):
    """``paddle.load``: the object :func:`save_object` (or :func:`save`) wrote to ``path``
    (when ``path`` is not a file but ``path.pdparams`` is, that file), with tensors in place of
    arrays unless ``return_numpy``. For the prefix of a saved model (``paddle.jit.save``,
    ``paddle.static.save_inference_model``: ``path.pdiparams``), its values as a state dict
    keyed by the saved Layer's structured names (``fc.weight``) where the model records them,
    else by variable name -- what ``Layer.set_state_dict`` takes."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        for suffix in (PARAMS_SUFFIX, OPT_SUFFIX):
            if os.path.isfile(path + suffix):
                path = path + suffix
                break
        else:
            if os.path.isfile(path + _inference.PARAMS_SUFFIX):
                return _saved_model_state(path, return_numpy)
            raise FileNotFoundError(f"load: {path} does not exist (nor {path + PARAMS_SUFFIX})")
    tree = load_tree(path)
    return tree if return_numpy else _as_tensors(tree)


def _saved_model_state(path, return_numpy):
    _, _, _, values, info = _inference.read_inference_files(path, api="load")
    info = info or {}
    state = {}
    for name, array in values.items():
        key = (info.get(name) or {}).get("structured_name") or name
        state[key] = array if return_numpy else to_tensor(array)
    return state

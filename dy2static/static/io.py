"""``paddle.static.save_inference_model`` / ``load_inference_model`` with PaddlePaddle 2.x's
arguments and file layout, the 1.8 spelling still accepted.

2.x: ``save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None)``
takes Variables (one or a list) and writes ``path_prefix.pdmodel`` / ``.pdiparams`` (and
``.pdiparams.info``; see :func:`core.io.inference.save_inference_files`);
``load_inference_model(path_prefix, executor)`` returns ``[program, feed_target_names,
fetch_targets]`` with the values put into the global scope (``scope_guard`` selects it).

1.8: ``save_inference_model(dirname, feeded_var_names, target_vars, executor, ...)``, with
the feeds given by name, is :func:`core.io.save_inference_model` (a directory), and
``load_inference_model`` of a directory (or with ``model_filename`` / ``params_filename``) is
:func:`core.io.load_inference_model`.
"""
import os

from core import io as _io
from core.io import inference as _inference
from core.static import Variable

__all__ = ["load_inference_model", "save_inference_model"]

_API = "save_inference_model"


def _variables(values):
    """``values`` (a Variable or a list / tuple of them) as a list, else None."""
    if isinstance(values, Variable):
        return [values]
    if isinstance(values, (list, tuple)) and all(isinstance(v, Variable) for v in values):
        return list(values)
    return None


def _is_names(values):
    if isinstance(values, str):
        return True
    return isinstance(values, (list, tuple)) and len(values) > 0 and \
        any(isinstance(v, str) for v in values)


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, *args,
                         **kwargs):
    """Save the part of ``program`` (default: the default main program) that computes
    ``fetch_vars`` from ``feed_vars`` with the persistable values it reads (from the global
    scope, or ``scope=``) as ``path_prefix.pdmodel`` / ``.pdiparams``; return the fetch names.
    Feeds given by name select the 1.8 spelling (see the module docstring)."""
    if _is_names(feed_vars):
        return _io.save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program,
                                        *args, **kwargs)
    scope = kwargs.pop("scope", None)
    if args or kwargs:
        raise TypeError(f"{_API}: unexpected arguments {list(kwargs) or list(args)}; the 2.x "
                        "form takes (path_prefix, feed_vars, fetch_vars, executor, "
                        "program=None)")
    feeds = _variables(feed_vars)
    if feeds is None:
        raise TypeError(f"{_API}: argument 'feed_vars' must be a Variable or a list of "
                        f"Variables, got {type(feed_vars).__name__}")
    fetches = _variables(fetch_vars)
    if fetches is None:
        raise TypeError(f"{_API}: argument 'fetch_vars' must be a Variable or a list of "
                        f"Variables, got {type(fetch_vars).__name__}")
    path = _inference.check_path_prefix(path_prefix, _API)
    if os.path.isdir(path):
        raise ValueError(f"{_API}: argument 'path_prefix' {path!r} is an existing directory; "
                         "give 'dirname/file_prefix' (the files are file_prefix.pdmodel and "
                         "file_prefix.pdiparams)")
    return _inference.save_inference_files(path, feeds, fetches, executor, program=program,
                                           scope=scope, api=_API)


def load_inference_model(path_prefix, executor, model_filename=None, params_filename=None,
                         scope=None):
    """``[program, feed_target_names, fetch_targets]`` saved with the prefix ``path_prefix``
    (or, 1.8 layout, in the directory ``path_prefix``; ``model_filename`` /
    ``params_filename`` name its files); the values go into the global scope (or ``scope``)."""
    api = "load_inference_model"
    if not isinstance(path_prefix, (str, os.PathLike)):
        raise TypeError(f"{api}: argument 'path_prefix' must be a path, got "
                        f"{type(path_prefix).__name__}")
    path = os.fspath(path_prefix)
    legacy = model_filename is not None or params_filename is not None
    if not legacy and os.path.isfile(path + _inference.MODEL_SUFFIX):
        return _inference.load_inference_files(path, executor, scope=scope, api=api)
    if os.path.isdir(path):
        return _io.load_inference_model(path, executor, model_filename, params_filename, scope)
    raise FileNotFoundError(f"{api}: no saved model at {path!r}: neither "
                            f"{path + _inference.MODEL_SUFFIX!r} nor a saved model directory "
                            f"{path!r} exists")

"""Save and load: state dicts (``save`` / ``load``) and static programs with their variables
(``save_inference_model``, ``save_persistables``, ``save_params``, ``save_vars`` and the
matching loads).

The package's modules: :mod:`.state_dict` (``save`` / ``load``), :mod:`.variables` (the
``save_vars`` family) and :mod:`.inference` (inference models); pruning a program for inference
is :mod:`core.static.prune`. Data feeding: :mod:`.dataloader` (``DataLoader``,
``DataLoader.from_generator``, ``PyReader``), :mod:`.dataset` (datasets and samplers),
:mod:`.worker` (worker processes), :mod:`.shared_batch`, :mod:`.prefetch`, :mod:`.collate`,
:mod:`.batch_reader` (``distributed_batch_reader``).

File formats, the atomicity protocol and the limits are in ``docs/model_format.md``; the
bytes are written and checked by :mod:`core.serialization`, programs are (de)serialised by
:mod:`core.static.serialize`. Loading never executes code from a file.

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
from .._lazy import lazy_attributes
from ..static.prune import prune_for_inference
from .inference import INFERENCE_FORMAT, MODEL_FILENAME, load_inference_model, save_inference_model
from .state_dict import load, save
from .variables import (is_parameter, is_persistable, load_params, load_persistables, load_vars,
                        save_params, save_persistables, save_vars)

# data feeding is imported on first use: ``import core`` does not start its machinery
# (multiprocessing, threads, queues)
_LAZY = {name: (f".{module}", name) for module, names in (
    ("batch_reader", ["distributed_batch_reader"]),
    ("dataloader", ["DataLoader", "GeneratorLoader", "PyReader"]),
    ("dataset", ["BatchSampler", "Dataset", "DistributedBatchSampler", "IterableDataset",
                 "RandomSampler", "Sampler", "SequenceSampler", "TensorDataset"]),
    ("worker", ["WorkerInfo", "get_worker_info"])) for name in names}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "BatchSampler",
    "DataLoader",
    "Dataset",
    "DistributedBatchSampler",
    "GeneratorLoader",
    "INFERENCE_FORMAT",
    "IterableDataset",
    "PyReader",
    "RandomSampler",
    "Sampler",
    "SequenceSampler",
    "TensorDataset",
    "WorkerInfo",
    "distributed_batch_reader",
    "get_worker_info",
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

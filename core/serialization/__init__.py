"""The on-disk format shared by every save in dy2static: named arrays plus JSON, no pickle.

Three kinds of file, all described in ``docs/model_format.md``:

* an **array bundle** (:func:`save_arrays` / :func:`load_arrays`): one zip file, stored
  uncompressed and readable by ``numpy.load(path, allow_pickle=False)``, holding
  ``arrays/<i>.npy`` members and an ``index.json`` member that gives the format name, version,
  kind, free JSON metadata, and each array's name, dtype, shape and the sha256 of its bytes;
* a **value tree** (:func:`save_tree` / :func:`load_tree`): a bundle whose metadata encodes a
  nest of dicts, lists, Python scalars and arrays (state dicts of layers and optimizers);
* a **directory save** (:class:`DirectoryWriter` / :class:`DirectoryReader`): several files
  written into a fresh generation folder ``gen-<n>-<hex>/`` and committed by atomically
  replacing ``__manifest__.json``, which names exactly the files of that generation with their
  sizes and checksums. Loading reads only what the manifest names, so after a crash at any
  moment the directory loads as the previous save or the new one, never a mix.

The package's modules, one concern each: :mod:`.documents` (the error, JSON documents and
their headers), :mod:`.atomic` (crash-safe file creation), :mod:`.npy` (single arrays: dtype
and shape rules, checksums, the ``.npy`` reader), :mod:`.bundle`, :mod:`.tree` and
:mod:`.directory` (the three kinds of file).

Every file is written under a temporary name in its target directory, fsynced and renamed
into place. Reading checks, before allocating anything, that declared shapes and sizes agree
with the bytes actually present, and verifies every checksum; every failure raises
:class:`ModelFormatError` naming the file and the problem.
"""
from .atomic import atomic_write
from .bundle import ARRAYS_FORMAT, load_arrays, save_arrays
from .directory import MANIFEST_FORMAT, MANIFEST_NAME, DirectoryReader, DirectoryWriter
from .documents import FORMAT_VERSION, ModelFormatError, check_header, decode_json, encode_json
from .tree import load_tree, save_tree

__all__ = [
    "ARRAYS_FORMAT",
    "FORMAT_VERSION",
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "DirectoryReader",
    "DirectoryWriter",
    "ModelFormatError",
    "atomic_write",
    "check_header",
    "decode_json",
    "encode_json",
    "load_arrays",
    "load_tree",
    "save_arrays",
    "save_tree",
]

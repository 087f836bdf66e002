"""Array bundles: one uncompressed zip of ``arrays/<i>.npy`` members plus an ``index.json``
member (format, version, kind, free JSON metadata, and each array's name, dtype, shape and
sha256), readable by ``numpy.load(path, allow_pickle=False)``."""
import os
import zipfile

from .atomic import atomic_write
from .documents import (FORMAT_VERSION, MAX_JSON_BYTES, ModelFormatError, check_header,
                        decode_json, encode_json, require)
from .npy import READ_ERRORS, check_entry, read_npy, sha256_of, to_storable, verify, write_npy

__all__ = ["ARRAYS_FORMAT", "INDEX_MEMBER", "load_arrays", "save_arrays", "write_bundle"]

ARRAYS_FORMAT = "dy2static.arrays"
INDEX_MEMBER = "index.json"


def write_bundle(fileobj, arrays, kind, meta):
    entries = []
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for i, (name, value) in enumerate(arrays.items()):
            if not isinstance(name, str):
                raise TypeError(f"array names must be strings, got {name!r}")
            arr = to_storable(value, f"array '{name}'")
            member = f"arrays/{i}.npy"
            with zf.open(member, "w", force_zip64=True) as fh:
                write_npy(fh, arr)
            entries.append({"name": name, "file": member, "dtype": arr.dtype.name,
                            "shape": list(arr.shape), "sha256": sha256_of(arr)})
        index = {"format": ARRAYS_FORMAT, "version": FORMAT_VERSION, "kind": kind,
                 "meta": meta if meta is not None else {}, "arrays": entries}
        zf.writestr(INDEX_MEMBER, encode_json(index))


def save_arrays(path, arrays, kind="arrays", meta=None):
    """Write the mapping ``arrays`` (name -> ndarray / cupy array / Tensor) to the bundle file
    ``path`` atomically, with ``kind`` (a short string saying what the file is) and ``meta``
    (JSON data) in its index."""
    with atomic_write(path) as f:
        write_bundle(f, arrays, kind, meta)


def _open_zip(path):
    size = os.path.getsize(path)
    try:
        zf = zipfile.ZipFile(path, "r")
    except READ_ERRORS as e:
        raise ModelFormatError(f"{path} is not a readable dy2static array file: damaged, "
                               f"truncated or not a zip archive ({e})") from None
    total = 0
    for info in zf.infolist():
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            zf.close()
            raise ModelFormatError(f"{path}: member '{info.filename}' is compressed; dy2static "
                                   "files store members uncompressed")
        total += info.file_size
    if total > size:
        zf.close()
        raise ModelFormatError(f"{path}: members declare {total} bytes but the file has only "
                               f"{size} bytes (damaged or malicious)")
    return zf


def load_arrays(path, kind=None):
    """Read a bundle written by :func:`save_arrays`: ``(dict name -> ndarray, meta)``.

    ``kind``, when given, must match the kind recorded in the file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such file: {path}")
    with _open_zip(path) as zf:
        try:
            info = zf.getinfo(INDEX_MEMBER)
        except KeyError:
            raise ModelFormatError(f"{path} is not a dy2static array file (it has no "
                                   f"'{INDEX_MEMBER}')") from None
        if info.file_size > MAX_JSON_BYTES:
            raise ModelFormatError(f"{path}: index of {info.file_size} bytes exceeds the limit")
        try:
            raw = zf.read(info)
        except READ_ERRORS as e:
            raise ModelFormatError(f"{path}: damaged index ({e})") from None
        index = decode_json(raw, f"{path} ({INDEX_MEMBER})")
        check_header(index, ARRAYS_FORMAT, path)
        found = index.get("kind")
        if kind is not None and found != kind:
            raise ModelFormatError(f"{path} holds {found!r} data, expected {kind!r}")
        entries = require(index, "arrays", list, path)
        meta = index.get("meta", {})
        arrays = {}
        for k, entry in enumerate(entries):
            name = require(entry, "name", str, f"{path}: arrays[{k}]")
            where = f"{path}: array '{name}'"
            if name in arrays:
                raise ModelFormatError(f"{where} appears twice")
            dtype, shape, digest = check_entry(entry, where)
            member = require(entry, "file", str, where)
            try:
                minfo = zf.getinfo(member)
            except KeyError:
                raise ModelFormatError(f"{where}: member '{member}' is missing") from None
            try:
                with zf.open(minfo) as fh:
                    arr = read_npy(fh, where, dtype, shape, minfo.file_size)
            except ModelFormatError:
                raise
            except READ_ERRORS as e:
                raise ModelFormatError(f"{where}: damaged member ({e})") from None
            verify(arr, digest, where)
            arrays[name] = arr
    return arrays, meta

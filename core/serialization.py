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

Every file is written under a temporary name in its target directory, fsynced and renamed
into place. Reading checks, before allocating anything, that declared shapes and sizes agree
with the bytes actually present, and verifies every checksum; every failure raises
:class:`ModelFormatError` naming the file and the problem.
"""
import hashlib
import json
import os
import re
import secrets
import shutil
import struct
import zipfile

import numpy as np
from numpy.lib import format as npy_format

from .backend import as_numpy

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

ARRAYS_FORMAT = "dy2static.arrays"
MANIFEST_FORMAT = "dy2static.manifest"
FORMAT_VERSION = 1
MANIFEST_NAME = "__manifest__.json"
INDEX_MEMBER = "index.json"
#: limits applied while reading; see docs/model_format.md ("Limits")
MAX_NDIM = 32
MAX_JSON_BYTES = 256 * 2 ** 20
MAX_TREE_DEPTH = 64
_ARRAY_KINDS = "biufc"
_GEN_RE = re.compile(r"^gen-[0-9]{6}-[0-9a-f]{8}$")
_FILE_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.~-]{0,199}$")
_CHUNK = 1 << 20
#: what zipfile and the .npy reader raise on damaged input (flag bits can even claim encryption)
_READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, ValueError, TypeError,
                SyntaxError, OSError, EOFError, OverflowError, struct.error)


class ModelFormatError(ValueError):
    """A saved file is damaged, truncated, foreign, too new, or declares impossible contents."""


# -- small helpers ------------------------------------------------------------------------------
def _contiguous(arr):
    # NOTE: not np.ascontiguousarray, which turns a 0-d array into a 1-d one
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _sha256(arr):
    return hashlib.sha256(_contiguous(arr)).hexdigest()


def _check_dtype(dtype, where):
    if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise ModelFormatError(f"{where}: dtype {dtype!s} is not a plain numeric dtype (object "
                               "and structured arrays would need pickle and are refused)")


def _to_storable(value, where):
    """``value`` (ndarray, cupy array, Tensor, numpy scalar) as a little-endian C numpy array."""
    if hasattr(value, "numpy") and callable(value.numpy) and hasattr(value, "shape"):
        value = value.numpy()
    arr = np.asarray(as_numpy(value))
    if arr.dtype.kind not in _ARRAY_KINDS or arr.dtype.fields is not None:
        raise TypeError(f"{where}: cannot save an array of dtype {arr.dtype} (only numeric "
                        "dtypes are saved; object arrays would need pickle)")
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return _contiguous(arr)


def _dtype_from_name(name, where):
    if not isinstance(name, str):
        raise ModelFormatError(f"{where}: 'dtype' must be a string, got {name!r:.40}")
    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        raise ModelFormatError(f"{where}: unknown dtype {name!r:.40}") from None
    _check_dtype(dtype, where)
    if dtype.name != name:
        raise ModelFormatError(f"{where}: dtype must be written by name (e.g. 'float32'), "
                               f"got {name!r:.40}")
    return dtype


def _shape_of(value, where):
    if not isinstance(value, list) or len(value) > MAX_NDIM or not all(
            type(d) is int and d >= 0 for d in value):
        raise ModelFormatError(f"{where}: 'shape' must be a list of at most {MAX_NDIM} "
                               f"non-negative ints, got {value!r:.80}")
    return tuple(value)


def _nbytes(shape, dtype):
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n


def _require(d, key, kind, where):
    if not isinstance(d, dict) or key not in d:
        raise ModelFormatError(f"{where}: missing field '{key}'")
    if not isinstance(d[key], kind):
        raise ModelFormatError(f"{where}: field '{key}' has the wrong type "
                               f"({type(d[key]).__name__})")
    return d[key]


def check_header(doc, fmt, where):
    """Validate the ``format`` and ``version`` fields of a parsed JSON document."""
    if not isinstance(doc, dict) or "format" not in doc:
        raise ModelFormatError(f"{where} is not a dy2static file (no 'format' field); expected "
                               f"format '{fmt}'")
    if doc["format"] != fmt:
        raise ModelFormatError(f"{where} holds format {doc['format']!r}, expected '{fmt}' "
                               "(a foreign file)")
    version = doc.get("version")
    if type(version) is not int or version < 1:
        raise ModelFormatError(f"{where}: invalid format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFormatError(f"{where} was written by format version {version} of '{fmt}'; "
                               f"this dy2static reads versions up to {FORMAT_VERSION}: upgrade "
                               "dy2static to load it")


def encode_json(doc):
    """``doc`` as UTF-8 JSON bytes, indented (diffable and human-readable), keys in order."""
    return json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8")


def decode_json(data, where):
    """Parse JSON bytes; any damage becomes a :class:`ModelFormatError` naming ``where``."""
    if len(data) > MAX_JSON_BYTES:
        raise ModelFormatError(f"{where}: JSON document of {len(data)} bytes exceeds the "
                               f"{MAX_JSON_BYTES}-byte limit")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ModelFormatError(f"{where}: damaged JSON ({type(e).__name__}: {e})") from None


# -- atomic single-file writes -------------------------------------------------------------------
def _fsync_dir(dirname):
    try:
        fd = os.open(dirname or ".", os.O_RDONLY)
    except OSError:  # platforms without directory handles (Windows)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class atomic_write:
    """Context manager: a binary file object on a temporary name next to ``path``; on a clean
    exit it is flushed, fsynced and renamed over ``path``; on an error it is removed."""

    def __init__(self, path):
        self.path = os.fspath(path)
        head, tail = os.path.split(self.path)
        self.tmp = os.path.join(head, f".{tail}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
        self.file = None

    def __enter__(self):
        self.file = open(self.tmp, "xb")
        return self.file

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.file.flush()
                os.fsync(self.file.fileno())
                self.file.close()
                os.replace(self.tmp, self.path)
                _fsync_dir(os.path.dirname(self.path))
                return False
        except BaseException:
            _discard(self.file, self.tmp)
            raise
        _discard(self.file, self.tmp)
        return False


def _discard(fileobj, path):
    for step in (fileobj.close, lambda: os.unlink(path)):
        try:
            step()
        except OSError:
            pass


# -- array bundles --------------------------------------------------------------------------------
def _write_bundle(fileobj, arrays, kind, meta):
    entries = []
    with zipfile.ZipFile(fileobj, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for i, (name, value) in enumerate(arrays.items()):
            if not isinstance(name, str):
                raise TypeError(f"array names must be strings, got {name!r}")
            arr = _to_storable(value, f"array '{name}'")
            member = f"arrays/{i}.npy"
            with zf.open(member, "w", force_zip64=True) as fh:
                npy_format.write_array(fh, arr, version=(1, 0) if _small(arr) else (2, 0),
                                       allow_pickle=False)
            entries.append({"name": name, "file": member, "dtype": arr.dtype.name,
                            "shape": list(arr.shape), "sha256": _sha256(arr)})
        index = {"format": ARRAYS_FORMAT, "version": FORMAT_VERSION, "kind": kind,
                 "meta": meta if meta is not None else {}, "arrays": entries}
        zf.writestr(INDEX_MEMBER, encode_json(index))


def _small(arr):
    return len(repr(arr.shape)) < 1000


def save_arrays(path, arrays, kind="arrays", meta=None):
    """Write the mapping ``arrays`` (name -> ndarray / cupy array / Tensor) to the bundle file
    ``path`` atomically, with ``kind`` (a short string saying what the file is) and ``meta``
    (JSON data) in its index."""
    with atomic_write(path) as f:
        _write_bundle(f, arrays, kind, meta)


def _read_npy(fh, where, dtype, shape, available):
    """Read one .npy stream whose data must be exactly ``shape`` x ``dtype`` and fit in
    ``available`` bytes (the stream's size); the header is checked before any allocation."""
    try:
        version = npy_format.read_magic(fh)
        if version == (1, 0):
            hshape, fortran, hdtype = npy_format.read_array_header_1_0(fh)
        elif version == (2, 0):
            hshape, fortran, hdtype = npy_format.read_array_header_2_0(fh)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except _READ_ERRORS as e:
        raise ModelFormatError(f"{where}: damaged .npy header ({e})") from None
    _check_dtype(hdtype, where)
    if hdtype.newbyteorder("<") != hdtype or hdtype != dtype or tuple(hshape) != shape or fortran:
        raise ModelFormatError(f"{where}: stored array is {hdtype.str}{list(hshape)}"
                               f"{' (Fortran order)' if fortran else ''} but the index declares "
                               f"{dtype.name}{list(shape)}")
    nbytes = _nbytes(shape, dtype)
    if nbytes > available:
        raise ModelFormatError(f"{where}: declares {nbytes} bytes of data ({dtype.name}"
                               f"{list(shape)}) but the file holds only {available} bytes")
    buf = bytearray(nbytes)
    try:
        got = fh.readinto(buf) if nbytes else 0
        extra = fh.read(1)
    except _READ_ERRORS as e:
        raise ModelFormatError(f"{where}: damaged data ({e})") from None
    if got != nbytes:
        raise ModelFormatError(f"{where}: truncated: {got} of {nbytes} data bytes present")
    if extra:
        raise ModelFormatError(f"{where}: trailing bytes after the array data")
    return np.frombuffer(buf, dtype=dtype).reshape(shape)


def _check_entry(entry, where):
    if not isinstance(entry, dict):
        raise ModelFormatError(f"{where}: array entry must be an object, got {entry!r}")
    dtype = _dtype_from_name(entry.get("dtype"), where)
    shape = _shape_of(entry.get("shape"), where)
    digest = _require(entry, "sha256", str, where)
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise ModelFormatError(f"{where}: 'sha256' is not a sha256 hex digest")
    return dtype, shape, digest


def _verify(arr, digest, where):
    if _sha256(arr) != digest:
        raise ModelFormatError(f"{where}: checksum mismatch: the data is damaged")


def _open_zip(path):
    size = os.path.getsize(path)
    try:
        zf = zipfile.ZipFile(path, "r")
    except _READ_ERRORS as e:
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
        except _READ_ERRORS as e:
            raise ModelFormatError(f"{path}: damaged index ({e})") from None
        index = decode_json(raw, f"{path} ({INDEX_MEMBER})")
        check_header(index, ARRAYS_FORMAT, path)
        found = index.get("kind")
        if kind is not None and found != kind:
            raise ModelFormatError(f"{path} holds {found!r} data, expected {kind!r}")
        entries = _require(index, "arrays", list, path)
        meta = index.get("meta", {})
        arrays = {}
        for k, entry in enumerate(entries):
            name = _require(entry, "name", str, f"{path}: arrays[{k}]")
            where = f"{path}: array '{name}'"
            if name in arrays:
                raise ModelFormatError(f"{where} appears twice")
            dtype, shape, digest = _check_entry(entry, where)
            member = _require(entry, "file", str, where)
            try:
                minfo = zf.getinfo(member)
            except KeyError:
                raise ModelFormatError(f"{where}: member '{member}' is missing") from None
            try:
                with zf.open(minfo) as fh:
                    arr = _read_npy(fh, where, dtype, shape, minfo.file_size)
            except ModelFormatError:
                raise
            except _READ_ERRORS as e:
                raise ModelFormatError(f"{where}: damaged member ({e})") from None
            _verify(arr, digest, where)
            arrays[name] = arr
    return arrays, meta


# -- value trees (state dicts) -------------------------------------------------------------------
def _encode(value, path, arrays, depth):
    if depth > MAX_TREE_DEPTH:
        raise ValueError(f"{path}: nested deeper than {MAX_TREE_DEPTH} levels")
    if value is None:
        return {"type": "none"}
    if isinstance(value, np.generic):  # before float: np.float64 is a float subclass
        name = path if path not in arrays else f"{path}#{len(arrays)}"
        arrays[name] = _to_storable(value, path)
        return {"type": "scalar", "array": name}
    if isinstance(value, bool):
        return {"type": "bool", "value": value}
    if isinstance(value, int):
        return {"type": "int", "value": int(value)}
    if isinstance(value, float):
        return {"type": "float", "value": float(value)}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, dict):
        keys, values = [], []
        for k, v in value.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"{path}: dict keys must be str or int, got {k!r}")
            keys.append(k)
            values.append(_encode(v, f"{path}[{k!r}]", arrays, depth + 1))
        return {"type": "dict", "keys": keys, "values": values}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{path}[{i}]", arrays, depth + 1) for i, v in enumerate(value)]
        return {"type": "list" if isinstance(value, list) else "tuple", "items": items}
    if hasattr(value, "block") and hasattr(value, "persistable") and hasattr(value, "type"):
        raise TypeError(f"{path}: '{value.name}' is a static Variable without a value; run the "
                        "program and save the scope's values (core.io.save_persistables)")
    name = path if path not in arrays else f"{path}#{len(arrays)}"
    arrays[name] = _to_storable(value, path)
    return {"type": "array", "array": name}


def _decode(node, arrays, where, depth):
    if depth > MAX_TREE_DEPTH or not isinstance(node, dict):
        raise ModelFormatError(f"{where}: malformed value tree")
    t = node.get("type")
    if t == "none":
        return None
    scalar_types = {"bool": bool, "int": int, "float": (float, int), "str": str}
    if t in scalar_types:
        v = node.get("value")
        if not isinstance(v, scalar_types[t]) or (t != "bool" and isinstance(v, bool)):
            raise ModelFormatError(f"{where}: a '{t}' node has value {v!r}")
        return float(v) if t == "float" else v
    if t == "dict":
        keys, values = node.get("keys"), node.get("values")
        if not isinstance(keys, list) or not isinstance(values, list) or \
                len(keys) != len(values) or not all(isinstance(k, (str, int)) for k in keys):
            raise ModelFormatError(f"{where}: malformed dict node")
        return {k: _decode(v, arrays, where, depth + 1) for k, v in zip(keys, values)}
    if t in ("list", "tuple"):
        items = node.get("items")
        if not isinstance(items, list):
            raise ModelFormatError(f"{where}: malformed {t} node")
        out = [_decode(v, arrays, where, depth + 1) for v in items]
        return out if t == "list" else tuple(out)
    if t in ("array", "scalar"):
        name = node.get("array")
        if not isinstance(name, str) or name not in arrays:
            raise ModelFormatError(f"{where}: refers to array {name!r}, which is not stored")
        arr = arrays[name]
        if t == "scalar":
            if arr.ndim != 0:
                raise ModelFormatError(f"{where}: scalar '{name}' is not 0-d")
            return arr[()]
        return arr
    raise ModelFormatError(f"{where}: unknown node type {t!r}")


def save_tree(path, tree, kind):
    """Write a nest of dicts / lists / tuples / Python scalars / strings / None / arrays /
    tensors to ``path`` atomically: arrays as bundle members, everything else in the index."""
    arrays = {}
    root = _encode(tree, "state", arrays, 0)
    save_arrays(path, arrays, kind=kind, meta={"tree": root})


def load_tree(path, kind=None):
    """Read a file written by :func:`save_tree`; arrays come back as numpy arrays."""
    arrays, meta = load_arrays(path, kind)
    if not isinstance(meta, dict) or "tree" not in meta:
        raise ModelFormatError(f"{os.fspath(path)}: the index has no value tree ('meta.tree')")
    try:
        return _decode(meta["tree"], arrays, os.fspath(path), 0)
    except RecursionError:
        raise ModelFormatError(f"{os.fspath(path)}: value tree nested too deeply") from None




# -- directory saves -----------------------------------------------------------------------------
def _canonical(body):
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _hash_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def _write_new_file(path, write):
    """Create ``path`` (it must not exist), fill it with ``write(f)``, fsync; return its size."""
    with open(path, "xb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
        return f.tell()


def _generation_number(name):
    return int(name[4:10]) if _GEN_RE.match(name) else 0


class DirectoryWriter:
    """One atomic save of several files into the directory ``dirname``::

        with DirectoryWriter(dirname, kind="inference_model") as w:
            w.write_json("__model__.json", program_dict)
            w.write_arrays("__params__", {"fc_0.w_0": array, ...})   # one bundle file
            w.write_array("fc_0.b_0", array)                         # one .npy file

    Files go into a new generation folder; the save is committed on a clean exit of the block
    by atomically replacing ``__manifest__.json``; older generation folders are then removed.
    With ``keep_existing=True`` the files of the previous save that this one does not rewrite
    are carried into the new generation (hard links, else copies), so successive
    ``save_vars`` calls into one directory accumulate. One writer per directory at a time.
    """

    def __init__(self, dirname, kind, keep_existing=False):
        self.dirname = os.fspath(dirname)
        self.kind = kind
        self.keep = keep_existing
        self.files = {}
        self._used = set()
        self._old = None
        self.gen = None

    def __enter__(self):
        os.makedirs(self.dirname, exist_ok=True)
        if self.keep and os.path.exists(os.path.join(self.dirname, MANIFEST_NAME)):
            self._old = DirectoryReader(self.dirname)
        number = max([_generation_number(n) for n in os.listdir(self.dirname)] + [0]) + 1
        self.gen = f"gen-{number % 1000000:06d}-{secrets.token_hex(4)}"
        os.mkdir(os.path.join(self.dirname, self.gen))
        return self

    def _new_path(self, logical, ext):
        safe = re.sub(r"[^A-Za-z0-9_.~-]", "_", logical)[:150] or "_"
        if safe[0] in ".-~":
            safe = "_" + safe
        if safe.endswith(ext):
            safe = safe[:-len(ext)] or "_"
        base, n = safe + ext, 0
        while base.lower() in self._used:
            n += 1
            base = f"{safe}~{n}{ext}"
        self._used.add(base.lower())
        return f"{self.gen}/{base}"

    def _add(self, logical, ext, write, entry):
        if not isinstance(logical, str) or not logical:
            raise TypeError(f"file names in a save must be non-empty strings, got {logical!r}")
        if logical in self.files:
            raise ValueError(f"'{logical}' is written twice in one save of {self.dirname}")
        rel = self._new_path(logical, ext)
        size = _write_new_file(os.path.join(self.dirname, rel), write)
        entry.update(path=rel, size=size)
        self.files[logical] = entry
        return entry

    def write_json(self, name, doc):
        """Write the JSON document ``doc`` as the file ``name``."""
        data = encode_json(doc)
        self._add(name, ".json", lambda f: f.write(data),
                  {"type": "json", "sha256": hashlib.sha256(data).hexdigest()})

    def write_array(self, name, value):
        """Write one array as the ``.npy`` file ``name``; its checksum goes in the manifest."""
        arr = _to_storable(value, f"array '{name}'")
        version = (1, 0) if _small(arr) else (2, 0)
        self._add(name, ".npy",
                  lambda f: npy_format.write_array(f, arr, version=version, allow_pickle=False),
                  {"type": "array", "dtype": arr.dtype.name, "shape": list(arr.shape),
                   "sha256": _sha256(arr)})

    def write_arrays(self, name, arrays, kind="arrays", meta=None):
        """Write several arrays as the single bundle file ``name`` (see :func:`save_arrays`)."""
        entry = self._add(name, ".npz", lambda f: _write_bundle(f, arrays, kind, meta),
                          {"type": "bundle"})
        entry["sha256"] = _hash_file(os.path.join(self.dirname, entry["path"]))

    def _carry_over(self):
        for logical, old in self._old.files.items():
            if logical in self.files:
                continue
            src = os.path.join(self.dirname, old["path"])
            rel = self._new_path(logical, os.path.splitext(old["path"])[1])
            dst = os.path.join(self.dirname, rel)
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
                with open(dst, "rb") as f:
                    os.fsync(f.fileno())
            self.files[logical] = dict(old, path=rel)

    def __exit__(self, exc_type, exc, tb):
        gen_dir = os.path.join(self.dirname, self.gen)
        if exc_type is not None:
            shutil.rmtree(gen_dir, ignore_errors=True)
            return False
        try:
            if self._old is not None:
                self._carry_over()
            _fsync_dir(gen_dir)
            body = {"kind": self.kind, "generation": self.gen, "files": self.files}
            doc = {"format": MANIFEST_FORMAT, "version": FORMAT_VERSION, "body": body,
                   "sha256": hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest()}
            with atomic_write(os.path.join(self.dirname, MANIFEST_NAME)) as f:
                f.write(encode_json(doc))
        except BaseException:
            shutil.rmtree(gen_dir, ignore_errors=True)
            raise
        self._collect_garbage()
        return False

    def _collect_garbage(self):
        """Remove older generations and temporaries of interrupted saves (best effort)."""
        try:
            names = os.listdir(self.dirname)
        except OSError:
            return
        for n in names:
            path = os.path.join(self.dirname, n)
            try:
                if _GEN_RE.match(n) and n != self.gen and os.path.isdir(path):
                    shutil.rmtree(path)
                elif n.startswith(f".{MANIFEST_NAME}.tmp-"):
                    os.unlink(path)
            except OSError:
                continue


class DirectoryReader:
    """The committed save in ``dirname``: reads only the files its manifest names, checking
    each file's size and checksum (and each array's dtype and shape) before use."""

    def __init__(self, dirname):
        self.dirname = os.fspath(dirname)
        path = os.path.join(self.dirname, MANIFEST_NAME)
        if not os.path.isdir(self.dirname):
            raise FileNotFoundError(f"no such directory: {self.dirname}")
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"{self.dirname} holds no dy2static save: {MANIFEST_NAME} is missing (it was "
                "not written by dy2static, or its first save never completed)")
        if os.path.getsize(path) > MAX_JSON_BYTES:
            raise ModelFormatError(f"{path}: manifest larger than {MAX_JSON_BYTES} bytes")
        with open(path, "rb") as f:
            doc = decode_json(f.read(), path)
        check_header(doc, MANIFEST_FORMAT, path)
        body = _require(doc, "body", dict, path)
        digest = _require(doc, "sha256", str, path)
        if hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest() != digest:
            raise ModelFormatError(f"{path}: manifest checksum mismatch: the manifest is damaged")
        self.kind = body.get("kind")
        gen = _require(body, "generation", str, path)
        if not _GEN_RE.match(gen):
            raise ModelFormatError(f"{path}: malformed field 'generation' ({gen!r})")
        self.files = _require(body, "files", dict, path)
        for name, entry in self.files.items():
            self._validate(name, entry, gen, f"{path}: file entry '{name}'")

    @staticmethod
    def _validate(name, entry, gen, where):
        rel = _require(entry, "path", str, where)
        head, _, base = rel.partition("/")
        if head != gen or not _FILE_RE.match(base):
            raise ModelFormatError(f"{where}: field 'path' ({rel!r}) is not a file of "
                                   f"generation {gen}")
        kind = _require(entry, "type", str, where)
        if kind not in ("json", "array", "bundle"):
            raise ModelFormatError(f"{where}: unknown field value type={kind!r}")
        size = _require(entry, "size", int, where)
        if size < 0:
            raise ModelFormatError(f"{where}: field 'size' is negative")
        digest = _require(entry, "sha256", str, where)
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ModelFormatError(f"{where}: field 'sha256' is not a sha256 hex digest")
        if kind == "array":
            _check_entry(entry, where)

    def names(self):
        return list(self.files)

    def has(self, name):
        return name in self.files

    def _path(self, name, kind):
        entry = self.files.get(name)
        if entry is None:
            raise FileNotFoundError(f"{self.dirname} has no file '{name}' in its save; it holds "
                                    f"{sorted(self.files)}")
        if entry["type"] != kind:
            raise ModelFormatError(f"{self.dirname}: '{name}' is a {entry['type']} file, "
                                   f"expected {kind}")
        path = os.path.join(self.dirname, entry["path"])
        if not os.path.isfile(path):
            raise ModelFormatError(f"{path} is missing: the save in {self.dirname} is damaged")
        size = os.path.getsize(path)
        if size != entry["size"]:
            raise ModelFormatError(f"{path} is truncated or damaged: {size} bytes, the manifest "
                                   f"says {entry['size']}")
        return path, entry

    def read_json(self, name):
        path, entry = self._path(name, "json")
        if entry["size"] > MAX_JSON_BYTES:
            raise ModelFormatError(f"{path}: JSON document of {entry['size']} bytes exceeds the "
                                   f"{MAX_JSON_BYTES}-byte limit")
        with open(path, "rb") as f:
            data = f.read(entry["size"] + 1)
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise ModelFormatError(f"{path}: checksum mismatch: the file is damaged")
        return decode_json(data, path)

    def read_array(self, name):
        path, entry = self._path(name, "array")
        dtype, shape, digest = _check_entry(entry, f"{path} (array '{name}')")
        with open(path, "rb") as f:
            arr = _read_npy(f, f"{path} (array '{name}')", dtype, shape, entry["size"])
        _verify(arr, digest, f"{path} (array '{name}')")
        return arr

    def read_arrays(self, name, kind=None):
        path, entry = self._path(name, "bundle")
        if _hash_file(path) != entry["sha256"]:
            raise ModelFormatError(f"{path}: checksum mismatch: the file is damaged")
        return load_arrays(path, kind)

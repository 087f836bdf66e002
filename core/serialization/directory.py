"""Directory saves: several files written into a fresh generation folder ``gen-<n>-<hex>/``
and committed by atomically replacing ``__manifest__.json``, which names exactly the files of
that generation with their sizes and checksums. Loading reads only what the manifest names, so
after a crash at any moment the directory loads as the previous save or the new one."""
import hashlib
import json
import os
import re
import secrets
import shutil

from .atomic import atomic_write, fsync_dir, write_new_file
from .bundle import load_arrays, write_bundle
from .documents import (FORMAT_VERSION, MAX_JSON_BYTES, ModelFormatError, check_header,
                        decode_json, encode_json, require)
from .npy import check_entry, read_npy, sha256_of, to_storable, verify, write_npy

__all__ = ["MANIFEST_FORMAT", "MANIFEST_NAME", "DirectoryReader", "DirectoryWriter"]

MANIFEST_FORMAT = "dy2static.manifest"
MANIFEST_NAME = "__manifest__.json"
_GEN_RE = re.compile(r"^gen-[0-9]{6}-[0-9a-f]{8}$")
_FILE_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.~-]{0,199}$")
_CHUNK = 1 << 20


def _canonical(body):
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _hash_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


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
        size = write_new_file(os.path.join(self.dirname, rel), write)
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
        arr = to_storable(value, f"array '{name}'")
        self._add(name, ".npy", lambda f: write_npy(f, arr),
                  {"type": "array", "dtype": arr.dtype.name, "shape": list(arr.shape),
                   "sha256": sha256_of(arr)})

    def write_arrays(self, name, arrays, kind="arrays", meta=None):
        """Write several arrays as the single bundle file ``name`` (see :func:`save_arrays`)."""
        entry = self._add(name, ".npz", lambda f: write_bundle(f, arrays, kind, meta),
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
            fsync_dir(gen_dir)
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
        body = require(doc, "body", dict, path)
        digest = require(doc, "sha256", str, path)
        if hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest() != digest:
            raise ModelFormatError(f"{path}: manifest checksum mismatch: the manifest is damaged")
        self.kind = body.get("kind")
        gen = require(body, "generation", str, path)
        if not _GEN_RE.match(gen):
            raise ModelFormatError(f"{path}: malformed field 'generation' ({gen!r})")
        self.files = require(body, "files", dict, path)
        for name, entry in self.files.items():
            self._validate(name, entry, gen, f"{path}: file entry '{name}'")

    @staticmethod
    def _validate(name, entry, gen, where):
        rel = require(entry, "path", str, where)
        head, _, base = rel.partition("/")
        if head != gen or not _FILE_RE.match(base):
            raise ModelFormatError(f"{where}: field 'path' ({rel!r}) is not a file of "
                                   f"generation {gen}")
        kind = require(entry, "type", str, where)
        if kind not in ("json", "array", "bundle"):
            raise ModelFormatError(f"{where}: unknown field value type={kind!r}")
        size = require(entry, "size", int, where)
        if size < 0:
            raise ModelFormatError(f"{where}: field 'size' is negative")
        digest = require(entry, "sha256", str, where)
        if not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise ModelFormatError(f"{where}: field 'sha256' is not a sha256 hex digest")
        if kind == "array":
            check_entry(entry, where)

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
        dtype, shape, digest = check_entry(entry, f"{path} (array '{name}')")
        with open(path, "rb") as f:
            arr = read_npy(f, f"{path} (array '{name}')", dtype, shape, entry["size"])
        verify(arr, digest, f"{path} (array '{name}')")
        return arr

    def read_arrays(self, name, kind=None):
        path, entry = self._path(name, "bundle")
        if _hash_file(path) != entry["sha256"]:
            raise ModelFormatError(f"{path}: checksum mismatch: the file is damaged")
        return load_arrays(path, kind)

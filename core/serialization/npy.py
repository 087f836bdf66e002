"""Single arrays in the saved-model format: which dtypes and shapes are storable, their sha256
checksums, the index entry that declares one (dtype, shape, checksum), and reading and writing
one ``.npy`` stream with pickle disabled, checking the header before allocating anything."""
import hashlib
import re
import struct
import zipfile

import numpy as np
from numpy.lib import format as npy_format

from ..backend import as_numpy
from .documents import ModelFormatError, require

__all__ = ["READ_ERRORS", "check_entry", "read_npy", "sha256_of", "to_storable", "verify",
           "write_npy"]

#: limit applied while reading; see docs/model_format.md ("Limits")
MAX_NDIM = 32
_ARRAY_KINDS = "biufc"
#: what zipfile and the .npy reader raise on damaged input (flag bits can even claim encryption)
READ_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, ValueError, TypeError,
                SyntaxError, OSError, EOFError, OverflowError, struct.error)


def contiguous(arr):
    # NOTE: not np.ascontiguousarray, which turns a 0-d array into a 1-d one
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def sha256_of(arr):
    return hashlib.sha256(contiguous(arr)).hexdigest()


def check_dtype(dtype, where):
    if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise ModelFormatError(f"{where}: dtype {dtype!s} is not a plain numeric dtype (object "
                               "and structured arrays would need pickle and are refused)")


def to_storable(value, where):
    """``value`` (ndarray, cupy array, Tensor, numpy scalar) as a little-endian C numpy array."""
    if hasattr(value, "numpy") and callable(value.numpy) and hasattr(value, "shape"):
        value = value.numpy()
    arr = np.asarray(as_numpy(value))
    if arr.dtype.kind not in _ARRAY_KINDS or arr.dtype.fields is not None:
        raise TypeError(f"{where}: cannot save an array of dtype {arr.dtype} (only numeric "
                        "dtypes are saved; object arrays would need pickle)")
    if arr.dtype.byteorder == ">":
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return contiguous(arr)


def dtype_from_name(name, where):
    if not isinstance(name, str):
        raise ModelFormatError(f"{where}: 'dtype' must be a string, got {name!r:.40}")
    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        raise ModelFormatError(f"{where}: unknown dtype {name!r:.40}") from None
    check_dtype(dtype, where)
    if dtype.name != name:
        raise ModelFormatError(f"{where}: dtype must be written by name (e.g. 'float32'), "
                               f"got {name!r:.40}")
    return dtype


def shape_of(value, where):
    if not isinstance(value, list) or len(value) > MAX_NDIM or not all(
            type(d) is int and d >= 0 for d in value):
        raise ModelFormatError(f"{where}: 'shape' must be a list of at most {MAX_NDIM} "
                               f"non-negative ints, got {value!r:.80}")
    return tuple(value)


def nbytes_of(shape, dtype):
    n = dtype.itemsize
    for d in shape:
        n *= d
    return n


def check_entry(entry, where):
    if not isinstance(entry, dict):
        raise ModelFormatError(f"{where}: array entry must be an object, got {entry!r}")
    dtype = dtype_from_name(entry.get("dtype"), where)
    shape = shape_of(entry.get("shape"), where)
    digest = require(entry, "sha256", str, where)
    if not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise ModelFormatError(f"{where}: 'sha256' is not a sha256 hex digest")
    return dtype, shape, digest


def verify(arr, digest, where):
    if sha256_of(arr) != digest:
        raise ModelFormatError(f"{where}: checksum mismatch: the data is damaged")


def write_npy(fh, arr):
    """Write the storable array ``arr`` as one .npy stream (format 2.0 only for huge headers)."""
    version = (1, 0) if len(repr(arr.shape)) < 1000 else (2, 0)
    npy_format.write_array(fh, arr, version=version, allow_pickle=False)


def read_npy(fh, where, dtype, shape, available):
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
    except READ_ERRORS as e:
        raise ModelFormatError(f"{where}: damaged .npy header ({e})") from None
    check_dtype(hdtype, where)
    if hdtype.newbyteorder("<") != hdtype or hdtype != dtype or tuple(hshape) != shape or fortran:
        raise ModelFormatError(f"{where}: stored array is {hdtype.str}{list(hshape)}"
                               f"{' (Fortran order)' if fortran else ''} but the index declares "
                               f"{dtype.name}{list(shape)}")
    nbytes = nbytes_of(shape, dtype)
    if nbytes > available:
        raise ModelFormatError(f"{where}: declares {nbytes} bytes of data ({dtype.name}"
                               f"{list(shape)}) but the file holds only {available} bytes")
    buf = bytearray(nbytes)
    try:
        got = fh.readinto(buf) if nbytes else 0
        extra = fh.read(1)
    except READ_ERRORS as e:
        raise ModelFormatError(f"{where}: damaged data ({e})") from None
    if got != nbytes:
        raise ModelFormatError(f"{where}: truncated: {got} of {nbytes} data bytes present")
    if extra:
        raise ModelFormatError(f"{where}: trailing bytes after the array data")
    return np.frombuffer(buf, dtype=dtype).reshape(shape)

"""MNIST sample readers (``paddle.dataset.mnist``).

``train(data_dir=None)`` / ``test(data_dir=None)`` return readers of ``(image, label)``:
``image`` a float32 vector of 784 pixels scaled to ``[-1, 1]``, ``label`` an int in 0..9.
The files are the standard idx files (gzipped or not), looked up, in order, in ``data_dir``,
in the directory named by the environment variable ``MNIST_DIR`` (read when ``train()`` /
``test()`` is called), or in the small subset bundled with the package (5000 stratified
training images, the first 1000 test images; see ``data/README.md``).

The idx format: a big-endian header (magic number 2051 for images, 2049 for labels, then
the counts and dims as uint32) followed by the uint8 data. Files are validated against their
header (magic number, declared sizes vs actual length) before any array is built.
"""
import gzip
import os
import struct
import zlib

import numpy as np

__all__ = [
    "DATA_FILES",
    "SUBSET_FILES",
    "find_files",
    "read_images",
    "read_labels",
    "test",
    "train",
    "write_idx",
]

IMAGE_MAGIC, LABEL_MAGIC = 2051, 2049

#: file stems of the full data set, per split: (images, labels)
DATA_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
              "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
#: file names of the bundled subset
SUBSET_FILES = {"train": ("train-subset-images-idx3-ubyte.gz",
                          "train-subset-labels-idx1-ubyte.gz"),
                "test": ("t10k-subset-images-idx3-ubyte.gz", "t10k-subset-labels-idx1-ubyte.gz")}

_BUNDLED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
_cache = {}


def _read_bytes(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise ValueError(f"MNIST file {path}: damaged or truncated gzip data ({e})") from None
    return raw


def _parse(path, magic, ndims):
    raw = _read_bytes(path)
    head = 4 * (1 + ndims)
    if len(raw) < head:
        raise ValueError(f"MNIST file {path}: {len(raw)} bytes is too short for an idx header "
                         f"({head} bytes); the file is truncated or not an idx file")
    found = struct.unpack(">I", raw[:4])[0]
    if found != magic:
        raise ValueError(f"MNIST file {path}: magic number {found} where an idx "
                         f"{'image' if magic == IMAGE_MAGIC else 'label'} file has {magic}; "
                         "this is not the expected MNIST file")
    dims = struct.unpack(f">{ndims}I", raw[4:head])
    want = int(np.prod(dims, dtype=np.int64))
    got = len(raw) - head
    if got != want:
        raise ValueError(f"MNIST file {path}: the header declares dims {list(dims)} "
                         f"({want} bytes of data) but the file holds {got}; it is truncated "
                         "or damaged")
    return np.frombuffer(raw, dtype=np.uint8, offset=head).reshape(dims)


def read_images(path):
    """uint8 array ``[n, rows, cols]`` from an idx3 image file (gzipped or not)."""
    return _parse(path, IMAGE_MAGIC, 3)


def read_labels(path):
    """uint8 array ``[n]`` from an idx1 label file (gzipped or not)."""
    labels = _parse(path, LABEL_MAGIC, 1)
    if labels.size and labels.max() > 9:
        raise ValueError(f"MNIST file {path}: label {int(labels.max())} is out of range 0..9")
    return labels


def write_idx(path, array, compress=True):
    """Write a uint8 array as an idx file (images: 3-D, labels: 1-D); gzipped with a zero
    timestamp, so the same data always gives the same bytes."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    magic = {3: IMAGE_MAGIC, 1: LABEL_MAGIC}.get(array.ndim)
    if magic is None:
        raise ValueError(f"write_idx: expected a 3-D image or 1-D label array, got shape "
                         f"{list(array.shape)}")
    data = struct.pack(f">{1 + array.ndim}I", magic, *array.shape) + array.tobytes()
    if compress:
        data = gzip.compress(data, compresslevel=9, mtime=0)
    with open(path, "wb") as f:
        f.write(data)


def _locate(directory, stem):
    for name in (stem, stem + ".gz"):
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def find_files(split, data_dir=None):
    """``(images path, labels path)`` for ``split`` ('train' or 'test'), resolved from
    ``data_dir``, else ``$MNIST_DIR``, else the bundled subset."""
    if split not in DATA_FILES:
        raise ValueError(f"mnist: split must be 'train' or 'test', got {split!r}")
    source = "data_dir"
    if data_dir is None:
        env = os.environ.get("MNIST_DIR")
        if env:
            data_dir, source = env, "MNIST_DIR"
    if data_dir is None:
        return tuple(os.path.join(_BUNDLED_DIR, n) for n in SUBSET_FILES[split])
    data_dir = os.fspath(data_dir)
    if not os.path.isdir(data_dir):
        raise FileNotFoundError(f"mnist.{split}: the MNIST directory {data_dir!r} (from "
                                f"{source}) does not exist")
    paths = tuple(_locate(data_dir, stem) for stem in DATA_FILES[split])
    missing = [stem for stem, p in zip(DATA_FILES[split], paths) if p is None]
    if missing:
        wanted = ", ".join(f"{s}[.gz]" for s in missing)
        raise FileNotFoundError(f"mnist.{split}: the MNIST directory {data_dir!r} (from {source}) "
                                f"lacks {wanted}; put the standard MNIST idx files there "
                                "(gzipped or not)")
    return paths


def _load(images_path, labels_path):
    key = []
    for p in (images_path, labels_path):
        st = os.stat(p)
        key.append((os.path.abspath(p), st.st_mtime_ns, st.st_size))
    key = tuple(key)
    if key not in _cache:
        images, labels = read_images(images_path), read_labels(labels_path)
        if images.shape[1:] != (28, 28):
            raise ValueError(f"MNIST file {images_path}: images are {list(images.shape[1:])}, "
                             "expected 28 x 28")
        if len(images) != len(labels):
            raise ValueError(f"MNIST files {images_path} and {labels_path} disagree: "
                             f"{len(images)} images but {len(labels)} labels")
        scaled = images.reshape(len(images), 784).astype(np.float32) / np.float32(127.5) - 1
        while len(_cache) >= 4:  # a few data sets at most (train and test, full and subset)
            _cache.pop(next(iter(_cache)))
        _cache[key] = (scaled, labels.astype(np.int64))
    return _cache[key]


def _reader(split, data_dir):
    images_path, labels_path = find_files(split, data_dir)
    for p in (images_path, labels_path):
        if not os.path.isfile(p):
            raise FileNotFoundError(f"mnist.{split}: the bundled MNIST subset file {p} is "
                                    "missing; reinstall the package or set MNIST_DIR")

    def reader():
        images, labels = _load(images_path, labels_path)
        for i in range(len(labels)):
            yield images[i].copy(), int(labels[i])

    return reader


def train(data_dir=None):
    """Reader of the training samples (see the module docstring for where files come from)."""
    return _reader("train", data_dir)


def test(data_dir=None):
    """Reader of the test samples."""
    return _reader("test", data_dir)

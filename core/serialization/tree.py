"""Value trees: a nest of dicts, lists, tuples, Python scalars, strings, None and arrays (the
state dicts of layers and optimizers) stored as an array bundle whose metadata (``meta.tree``)
encodes the structure and names the member that holds each array."""
import os

import numpy as np

from .bundle import load_arrays, save_arrays
from .documents import ModelFormatError
from .npy import to_storable

__all__ = ["load_tree", "save_tree"]

#: limit applied while reading; see docs/model_format.md ("Limits")
MAX_TREE_DEPTH = 64


def _store(value, path, arrays):
    """Add ``value`` to ``arrays`` under a name derived from ``path``; return the name."""
    name = path if path not in arrays else f"{path}#{len(arrays)}"
    arrays[name] = to_storable(value, path)
    return name


def _encode(value, path, arrays, depth):
    if depth > MAX_TREE_DEPTH:
        raise ValueError(f"{path}: nested deeper than {MAX_TREE_DEPTH} levels")
    if value is None:
        return {"type": "none"}
    if isinstance(value, np.generic):  # before float: np.float64 is a float subclass
        return {"type": "scalar", "array": _store(value, path, arrays)}
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
    return {"type": "array", "array": _store(value, path, arrays)}


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

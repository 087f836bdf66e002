"""Test cases for every registered op, one module per op family.

Each family module defines ``CASES = {op_type: [Case(...), ...]}``. The registry-driven tests
(``tests/core/ops/test_ops.py``, and the static ones) run every case; an op registered without a
case, or a differentiable op without a gradient-checked case, fails the suite.
"""
import dataclasses
import importlib
import pkgutil
from typing import Any, Callable, Optional


@dataclasses.dataclass
class Case:
    """One op invocation.

    ``inputs``: one entry per input slot: an ndarray, a list of ndarrays for a ``*`` slot, a
    Python scalar, or None. ``ref``: numpy reference ``ref(*inputs, **attrs)`` returning the
    outputs (one array, or a tuple per output slot); compared with the eager forward.
    ``grad``: input slot indices whose gradient is checked numerically (default: every
    differentiable slot holding floating arrays). ``seed``: for random ops, the generator seed.
    """

    inputs: list
    attrs: dict = dataclasses.field(default_factory=dict)
    ref: Optional[Callable[..., Any]] = None
    grad: Optional[list] = None
    atol: float = 1e-5
    rtol: float = 1e-4
    eps: float = 1e-6
    seed: int = 0
    name: str = ""


def load_all():
    """``{op_type: [Case, ...]}`` merged from every family module; duplicates are an error."""
    merged = {}
    for mod in pkgutil.iter_modules(__path__):
        m = importlib.import_module(f"{__name__}.{mod.name}")
        for k, v in getattr(m, "CASES", {}).items():
            if k in merged:
                raise ValueError(f"op '{k}' has cases in two modules")
            merged[k] = v
    return merged

"""Unique names for variables, parameters and layers (``fc_0.w_0``, ``tmp_3``)."""
import collections
import contextlib

__all__ = ["generate", "guard", "switch"]

_counters = [collections.defaultdict(int)]


def generate(prefix):
    """``prefix_N`` with N counting up per prefix from 0."""
    counters = _counters[-1]
    n = counters[prefix]
    counters[prefix] = n + 1
    return f"{prefix}_{n}"


def switch(new=None):
    """Replace the current counters (fresh ones when ``new`` is None); returns the old ones."""
    old = _counters[-1]
    _counters[-1] = new if new is not None else collections.defaultdict(int)
    return old


@contextlib.contextmanager
def guard():
    """Fresh counters inside the block, so names restart at 0; the old ones after."""
    _counters.append(collections.defaultdict(int))
    try:
        yield
    finally:
        _counters.pop()

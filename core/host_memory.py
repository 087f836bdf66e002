"""Host (CPU) memory: keep freed heap memory for the next training step.

An eager training step allocates and frees the same large temporaries every time: im2col
windows, activations, their gradients. For the MNIST net at batch 64 that is tens of MB per
step. glibc's malloc serves each allocation of 128 KiB or more with a fresh ``mmap``, or trims
the top of the heap once 128 KiB there are free, so every step the kernel faults those pages
in again and zeroes them. Measured: about 2,150 minor page faults per MNIST step, and a step
about 15% slower than with the memory kept. A hand-written numpy loop avoids this by reusing
work arrays. An op-by-op framework cannot, because its outputs belong to the caller.

On glibc, ``import core`` therefore raises two malloc thresholds (see ``mallopt(3)``):

* ``M_MMAP_THRESHOLD`` = 32 MiB (glibc's own upper bound for its dynamic threshold): arrays
  below it come from the heap;
* ``M_TRIM_THRESHOLD`` = 256 MiB: up to that much free memory at the top of the heap stays
  mapped for reuse, rather than being returned to the OS after each step.

The process keeps at most that much more memory than it uses (its earlier peak, at most).
Set the environment variable ``DY2STATIC_HOST_MALLOC=system`` before importing ``core`` to
keep glibc's defaults. On other C libraries nothing is changed.
"""
import ctypes
import os
import platform

__all__ = ["ENV_VAR", "settings", "tune"]

ENV_VAR = "DY2STATIC_HOST_MALLOC"

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_TUNED = {"M_MMAP_THRESHOLD": (_M_MMAP_THRESHOLD, 32 << 20),
          "M_TRIM_THRESHOLD": (_M_TRIM_THRESHOLD, 256 << 20)}

_applied = {}


def settings():
    """The malloc parameters ``tune`` set in this process (``{}`` when it set none)."""
    return dict(_applied)


def tune(mode=None):
    """Apply the host malloc settings for ``mode`` (``"tuned"`` or ``"system"``; default: the
    ``DY2STATIC_HOST_MALLOC`` environment variable, else ``"tuned"``). Returns ``settings()``.
    ``"system"`` leaves malloc as it is (it does not undo an earlier ``"tuned"``)."""
    if mode is None:
        mode = os.environ.get(ENV_VAR, "tuned").strip().lower() or "tuned"
    if mode not in ("tuned", "system"):
        raise ValueError(f"{ENV_VAR} must be 'tuned' or 'system', got {mode!r}")
    if mode == "system" or platform.libc_ver()[0] != "glibc":
        return settings()
    libc = ctypes.CDLL(None)  # the process's own symbols, glibc's among them (no lookup)
    for name, (param, value) in _TUNED.items():
        if libc.mallopt(ctypes.c_int(param), ctypes.c_int(value)) == 1:
            _applied[name] = value
    return settings()

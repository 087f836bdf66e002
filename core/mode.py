"""The global eager/static switch.

Eager ("dygraph", imperative) mode is the default: ops compute at once and record the tape.
In static mode ops append operators to the current block of the current Program.
"""
import contextlib

from . import backend

__all__ = ["in_dynamic_mode", "enable_static", "disable_static", "enable_imperative",
           "disable_imperative", "guard", "static_mode_guard"]

_state = {"dynamic": True}


def in_dynamic_mode():
    """True in eager (imperative) mode, the default."""
    return _state["dynamic"]


def enable_static():
    """Switch to static mode: ops append operators to the current Program."""
    _state["dynamic"] = False


def disable_static(place=None):
    """Switch to eager mode; ``place`` becomes the default place of new tensors."""
    if place is not None:
        backend.set_default_place(place)
    _state["dynamic"] = True


def enable_imperative(place=None):
    """Alias of :func:`disable_static` (2.0-alpha spelling)."""
    disable_static(place)


def disable_imperative():
    """Alias of :func:`enable_static` (2.0-alpha spelling)."""
    enable_static()


@contextlib.contextmanager
def guard(place=None):
    """Eager mode inside the block (on ``place`` if given); the previous mode and place after."""
    old_mode, old_place = _state["dynamic"], backend.default_place()
    if place is not None:
        backend.set_default_place(place)
    _state["dynamic"] = True
    try:
        yield
    finally:
        _state["dynamic"] = old_mode
        backend.set_default_place(old_place)


@contextlib.contextmanager
def static_mode_guard():
    """Static mode inside the block; the previous mode after (used by the translator)."""
    old = _state["dynamic"]
    _state["dynamic"] = False
    try:
        yield
    finally:
        _state["dynamic"] = old

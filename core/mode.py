"""The global eager/static switch, and the train/eval mode functional calls follow.

Eager ("dygraph", imperative) mode is the default: ops compute at once and record the tape.
In static mode ops append operators to the current block of the current Program.

The train mode is what fluid functions called with ``is_test=None`` (``core.layers.dropout``,
``core.layers.batch_norm``) follow, as PaddlePaddle 2.x reads its tracer's ``_train_mode``:
``Layer.__call__`` holds the called Layer's own ``training`` flag while its ``forward`` runs
(:func:`train_mode_guard`), so a function called from a Layer's ``forward`` follows that
Layer (``train()`` / ``eval()``), eagerly and while a converted ``forward`` is traced into a
Program. Outside every Layer call it is :func:`set_train_mode`'s value, True by default.
NOTE: unlike PaddlePaddle, ``Layer.eval()`` does not switch the whole process to inference:
one Layer's mode does not leak into functions called outside it.
"""
import contextlib

from . import backend
from .autograd import _grad_state

__all__ = ["in_dynamic_mode", "enable_static", "disable_static", "enable_imperative",
           "disable_imperative", "guard", "static_mode_guard", "in_train_mode",
           "set_train_mode", "train_mode_guard"]

_state = {"dynamic": True, "train": True}


def in_train_mode():
    """The ``training`` flag of the Layer whose ``forward`` runs (innermost), else the value
    :func:`set_train_mode` set (True by default): what ``is_test=None`` resolves against
    (``is_test = not in_train_mode()``)."""
    return _state["train"]


def set_train_mode(training):
    """Set the train mode that holds outside every Layer call (PaddlePaddle's
    ``_dygraph_tracer().train_mode()`` / ``eval_mode()``)."""
    _state["train"] = bool(training)


@contextlib.contextmanager
def train_mode_guard(training):
    """The train mode is ``training`` inside the block, the previous one after."""
    old, _state["train"] = _state["train"], bool(training)
    try:
        yield
    finally:
        _state["train"] = old


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
    """Static mode inside the block; the previous mode after (used by the translator).

    Gradients are on inside (a ``core.no_grad`` around the call that builds the Program does
    not mark its ops: the Program is cached and also run where gradients are wanted; the
    eager call of the Program honours the outer ``no_grad``), and a ``no_grad`` inside the
    block marks the ops built under it."""
    old, old_grad = _state["dynamic"], _grad_state["enabled"]
    _state["dynamic"], _grad_state["enabled"] = False, True
    try:
        yield
    finally:
        _state["dynamic"], _grad_state["enabled"] = old, old_grad

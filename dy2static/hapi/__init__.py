"""PaddlePaddle's high-level API: ``Model``, ``summary``, ``callbacks`` and the progress bar."""
from . import callbacks
from .model import Model
from .summary import summary

__all__ = ["Model", "callbacks", "summary"]

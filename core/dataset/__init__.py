"""Datasets (``paddle.dataset``): sample readers for standard data sets."""
from . import mnist

__all__ = ["mnist"]

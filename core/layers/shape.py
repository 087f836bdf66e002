"""Functional API: shape."""

__all__ = []

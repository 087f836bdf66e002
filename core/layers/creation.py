"""Functional API: creation."""

__all__ = []

"""Functional API: reduce."""

__all__ = []

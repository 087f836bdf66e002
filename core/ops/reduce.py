"""Reduction ops."""

__all__ = []

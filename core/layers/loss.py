"""Functional API: loss."""

__all__ = []

"""Functional API: activation."""

__all__ = []

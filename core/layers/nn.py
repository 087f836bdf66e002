"""Functional API: nn."""

__all__ = []

"""Functional API: math."""

__all__ = []

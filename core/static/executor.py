"""Executor."""

__all__ = []

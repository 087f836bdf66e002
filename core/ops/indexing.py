"""Indexing op (getitem)."""

__all__ = []

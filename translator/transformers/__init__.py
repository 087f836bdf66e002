"""Transformers (placeholder)."""

__all__ = []

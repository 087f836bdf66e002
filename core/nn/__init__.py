"""Layers (placeholder)."""

__all__ = []

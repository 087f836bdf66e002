"""Datasets (placeholder)."""

__all__ = []

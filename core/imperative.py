"""imperative (placeholder)."""

__all__ = []

"""io (placeholder)."""

__all__ = []

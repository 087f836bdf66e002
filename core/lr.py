"""lr (placeholder)."""

__all__ = []

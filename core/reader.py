"""reader (placeholder)."""

__all__ = []

"""initializer (placeholder)."""

__all__ = []

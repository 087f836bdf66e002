"""clip (placeholder)."""

__all__ = []

"""regularizer (placeholder)."""

__all__ = []

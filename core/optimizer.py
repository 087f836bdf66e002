"""optimizer (placeholder)."""

__all__ = []

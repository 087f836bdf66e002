"""dygraph (placeholder)."""

__all__ = []

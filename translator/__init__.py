"""dygraph-to-static translator (placeholder)."""

__all__ = []

"""serialization (placeholder)."""

__all__ = []

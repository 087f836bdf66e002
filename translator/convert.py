"""Source conversion entry point (placeholder)."""

__all__ = []

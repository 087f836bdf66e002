"""param_attr (placeholder)."""

__all__ = []

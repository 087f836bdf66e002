"""Control-flow ops."""

__all__ = []

"""Shape ops."""

__all__ = []

"""Loss and metric ops."""

__all__ = []

"""2.0 spellings of the ops."""

__all__ = []

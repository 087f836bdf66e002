"""Static op builder."""

__all__ = []

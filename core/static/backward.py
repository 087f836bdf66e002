"""Static autograd."""

__all__ = []

"""Program IR."""

__all__ = []

"""Neural-network ops."""

__all__ = []

"""Activation ops."""

__all__ = []

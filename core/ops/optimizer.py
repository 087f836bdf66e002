"""Optimizer update ops."""

__all__ = []

"""Creation and random ops."""

__all__ = []

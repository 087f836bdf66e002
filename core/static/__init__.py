"""Static programs: Program IR, builder, executor, static autograd (placeholder)."""

__all__ = []

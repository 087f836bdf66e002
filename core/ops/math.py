"""Math ops: scale, unary math, sums, matmul, mul, cast, assign (placeholder until filled)."""

__all__ = []

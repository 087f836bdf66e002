"""Compile-time kernel specialisation: ops whose registered kernel is exactly one ufunc call
for the attributes an operator has get that ufunc as their plan kernel (no context argument,
no attribute handling per call).

Only op families that *declare* their ufunc are specialised, and only when the subclass does
not override the family's ``forward``: binary elementwise ops (``ufunc``, with ``axis == -1``,
where Paddle's axis alignment is the identity) and unary math ops (``fn``). Anything else runs
its registered ``forward``.
"""
from ..ops import elementwise as _elementwise
from ..ops import math as _math

__all__ = ["specialize"]


def specialize(opdef, attrs, xp):
    """A callable taking only the op's input arrays, or None to use ``opdef.forward``."""
    cls = type(opdef)
    binary = getattr(_elementwise, "_Binary", None)
    if binary is not None and isinstance(opdef, binary) and cls.forward is binary.forward \
            and getattr(opdef, "ufunc", None) is not None and attrs.get("axis", -1) == -1 \
            and set(attrs) <= {"axis"}:
        return getattr(xp, opdef.ufunc.__name__, None)
    unary = getattr(_math, "_Unary", None)
    if unary is not None and isinstance(opdef, unary) and cls.forward is unary.forward \
            and getattr(opdef, "fn", None) is not None and not attrs:
        return getattr(xp, opdef.fn.__name__, None)
    return None

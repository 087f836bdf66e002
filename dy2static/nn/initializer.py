"""``paddle.nn.initializer``: :mod:`core.initializer` with the 2.x class names
(``XavierUniform``, ``KaimingNormal``, ``Assign``, ...) as settings of the fluid ones."""
from core import initializer as _init
from core._reexport import reexport as _reexport
from core.initializer import MSRA, Normal, NumpyArrayInitializer, Uniform, Xavier

__all__ = _reexport(globals(), [_init])
__all__ += ["Assign", "KaimingNormal", "KaimingUniform", "XavierNormal", "XavierUniform"]


class XavierUniform(Xavier):
    """Glorot uniform: ``U(-a, a)`` with ``a = sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(uniform=True, fan_in=fan_in, fan_out=fan_out)


class XavierNormal(Xavier):
    """Glorot normal: ``N(0, 2 / (fan_in + fan_out))``."""

    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(uniform=False, fan_in=fan_in, fan_out=fan_out)


class KaimingUniform(MSRA):
    """He uniform: ``U(-a, a)`` with ``a = sqrt(6 / fan_in)``."""

    def __init__(self, fan_in=None, name=None):
        super().__init__(uniform=True, fan_in=fan_in)


class KaimingNormal(MSRA):
    """He normal: ``N(0, 2 / fan_in)``."""

    def __init__(self, fan_in=None, name=None):
        super().__init__(uniform=False, fan_in=fan_in)


class Assign(NumpyArrayInitializer):
    """The given array (or nested list / tensor) as the initial value."""

    def __init__(self, value, name=None):
        super().__init__(value.numpy() if hasattr(value, "numpy") else value)


# the 2.x spellings of Normal and Uniform take mean/std and low/high
class _Normal(Normal):
    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(loc=mean, scale=std)


class _Uniform(Uniform):
    def __init__(self, low=-1.0, high=1.0, name=None):
        super().__init__(low=low, high=high)


Normal, Uniform = _Normal, _Uniform
Normal.__name__ = Normal.__qualname__ = "Normal"
Uniform.__name__ = Uniform.__qualname__ = "Uniform"

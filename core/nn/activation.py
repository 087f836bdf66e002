"""Activation layers (2.x spellings): ``ReLU``, ``ReLU6``, ``Sigmoid``, ``Tanh``, ``GELU``,
``ELU``, ``CELU``, ``SELU``, ``LeakyReLU``, ``PReLU``, ``Softplus``, ``Softsign``,
``Softmax``, ``LogSoftmax``, ``LogSigmoid``, ``Hardswish``, ``Hardsigmoid``, ``Hardtanh``,
``Hardshrink``, ``Softshrink``, ``Swish``, ``Silu``, ``Mish``, ``Tanhshrink``. Each wraps the
function of the same name in :mod:`core.nn.functional`; ``PReLU`` owns its slope ``weight``."""
from ..checks import check_choice, check_int, check_number
from ..initializer import Constant
from . import functional as F
from .layer import Layer

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "PReLU",
    "ReLU",
    "ReLU6",
    "SELU",
    "Sigmoid",
    "Silu",
    "Softmax",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Swish",
    "Tanh",
    "Tanhshrink",
]


class _Activation(Layer):
    fn = None

    def __init__(self, **kwargs):
        super().__init__()
        self._kwargs = kwargs

    def forward(self, x):
        return type(self).fn(x, **self._kwargs)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items())


class ReLU(_Activation):
    fn = staticmethod(F.relu)

    def __init__(self, name=None):
        super().__init__()


class ReLU6(_Activation):
    fn = staticmethod(F.relu6)

    def __init__(self, name=None):
        super().__init__()


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)

    def __init__(self, name=None):
        super().__init__()


class Tanh(_Activation):
    fn = staticmethod(F.tanh)

    def __init__(self, name=None):
        super().__init__()


class GELU(_Activation):
    fn = staticmethod(F.gelu)

    def __init__(self, approximate=False, name=None):
        super().__init__(approximate=approximate)


class ELU(_Activation):
    fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(alpha=alpha)


class LeakyReLU(_Activation):
    fn = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(negative_slope=negative_slope)


class Softplus(_Activation):
    fn = staticmethod(F.softplus)

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(beta=beta, threshold=threshold)


class Softmax(_Activation):
    fn = staticmethod(F.softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(axis=axis)


class LogSoftmax(_Activation):
    fn = staticmethod(F.log_softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(axis=axis)


class Hardswish(_Activation):
    """``x * relu6(x + 3) / 6``."""

    fn = staticmethod(F.hardswish)

    def __init__(self, name=None):
        super().__init__()


class Swish(_Activation):
    """``x * sigmoid(x)``."""

    fn = staticmethod(F.swish)

    def __init__(self, name=None):
        super().__init__()


class Silu(_Activation):
    """``x * sigmoid(x)``."""

    fn = staticmethod(F.silu)

    def __init__(self, name=None):
        super().__init__()


class Mish(_Activation):
    """``x * tanh(softplus(x))``."""

    fn = staticmethod(F.mish)

    def __init__(self, name=None):
        super().__init__()


class Softsign(_Activation):
    """``x / (1 + |x|)``."""

    fn = staticmethod(F.softsign)

    def __init__(self, name=None):
        super().__init__()


class LogSigmoid(_Activation):
    """``log(sigmoid(x))``."""

    fn = staticmethod(F.log_sigmoid)

    def __init__(self, name=None):
        super().__init__()


class Tanhshrink(_Activation):
    """``x - tanh(x)``."""

    fn = staticmethod(F.tanhshrink)

    def __init__(self, name=None):
        super().__init__()


class Hardsigmoid(_Activation):
    """``clip(x / 6 + 0.5, 0, 1)``."""

    fn = staticmethod(F.hardsigmoid)

    def __init__(self, name=None):
        super().__init__()


class Hardtanh(_Activation):
    fn = staticmethod(F.hardtanh)

    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__(min=min, max=max)


class Hardshrink(_Activation):
    fn = staticmethod(F.hardshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(threshold=threshold)


class Softshrink(_Activation):
    fn = staticmethod(F.softshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(threshold=threshold)


class CELU(_Activation):
    fn = staticmethod(F.celu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(alpha=alpha)


class SELU(_Activation):
    fn = staticmethod(F.selu)

    def __init__(self, scale=1.0507009873554804934193349852946,
                 alpha=1.6732632423543772848170429916717, name=None):
        super().__init__(scale=scale, alpha=alpha)


class PReLU(Layer):
    """``max(x, 0) + weight * min(x, 0)`` with a learned ``weight`` of ``num_parameters``
    slopes (1, or one per channel), initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        n = check_int(num_parameters, "num_parameters", "PReLU", minimum=1)
        init = float(check_number(init, "init", "PReLU"))
        check_choice(data_format, "data_format", ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC",
                                                  "NDHWC"), "PReLU")
        self._n, self._data_format = n, data_format
        self.weight = self.create_parameter([n], weight_attr,
                                            default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self.weight, self._data_format)

    def extra_repr(self):
        return f"num_parameters={self._n}, data_format={self._data_format}"

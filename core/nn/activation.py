"""Activation layers (2.0 spellings): ``ReLU``, ``ReLU6``, ``Sigmoid``, ``Tanh``, ``GELU``,
``ELU``, ``LeakyReLU``, ``Softplus``, ``Softmax``, ``LogSoftmax``. Each wraps the function of
the same name in :mod:`core.nn.functional`."""
from . import functional as F
from .layer import Layer

__all__ = [
    "ELU",
    "GELU",
    "LeakyReLU",
    "LogSoftmax",
    "ReLU",
    "ReLU6",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
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

"""``core.metric``: PaddlePaddle's ``paddle.metric`` / ``fluid.metrics`` spelling of accuracy."""
from .layers import accuracy as _accuracy

__all__ = ["accuracy"]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """Top-``k`` accuracy of the scores ``input`` ([N, C]) against ``label`` ([N, 1] int64):
    the fraction of rows whose label is among the ``k`` highest scores (a float32 tensor of
    shape [1]); ``correct`` / ``total``, when given, receive the counts."""
    return _accuracy(input, label, k=k, correct=correct, total=total)

"""``paddle.vision``: image ``transforms``, the ``MNIST`` data set read from local files (no
downloads) and the ``LeNet`` model."""
from . import datasets, models, transforms
from .models import LeNet

__all__ = ["LeNet", "datasets", "models", "transforms"]

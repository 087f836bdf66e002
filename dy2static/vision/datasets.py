"""``paddle.vision.datasets.MNIST`` read from local files: the standard idx files in
``image_path`` / ``label_path``'s folder or ``$MNIST_DIR``, else the subset bundled with
``core.dataset.mnist``. Nothing is downloaded (``download`` is accepted and ignored)."""
import os

import numpy as np

from core.dataset import mnist as _mnist
from core.io import Dataset

__all__ = ["MNIST"]


class MNIST(Dataset):
    """``(image, label)`` samples: ``image`` a float32 [28, 28] array of the raw 0..255 pixels
    (after ``transform`` when given), ``label`` an int64 array of shape [1]."""

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        if mode not in ("train", "test"):
            raise ValueError(f"MNIST: mode must be 'train' or 'test', got {mode!r}")
        if (image_path is None) != (label_path is None):
            raise ValueError("MNIST: give both image_path and label_path, or neither")
        if image_path is None:
            image_path, label_path = _mnist.find_files(mode)
        for p in (image_path, label_path):
            if not os.path.isfile(p):
                raise FileNotFoundError(f"MNIST: {p} does not exist; put the MNIST idx files "
                                        "there (nothing is downloaded)")
        self.images = _mnist.read_images(image_path)
        self.labels = _mnist.read_labels(label_path).astype(np.int64)
        if len(self.images) != len(self.labels):
            raise ValueError(f"MNIST: {len(self.images)} images but {len(self.labels)} labels")
        self.mode, self.transform, self.backend = mode, transform, backend

    def __getitem__(self, idx):
        image = self.images[idx].astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        return image, np.array([self.labels[idx]], dtype=np.int64)

    def __len__(self):
        return len(self.images)

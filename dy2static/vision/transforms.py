"""``paddle.vision.transforms``: numpy image transforms (``Compose``, ``Normalize``,
``ToTensor``, ``Resize``, ``Transpose``, ``CenterCrop``, ``RandomHorizontalFlip``).

Images are numpy arrays, ``HWC`` or ``HW`` (what a data set reads from disk); objects with
``__array__`` (a PIL image) are converted first. ``ToTensor`` gives a ``CHW`` float32 tensor.
"""
import numbers

import numpy as np

from core.random import default_generator
from core.tensor import to_tensor as _tensor

__all__ = ["BaseTransform", "CenterCrop", "Compose", "Normalize", "RandomHorizontalFlip",
           "Resize", "ToTensor", "Transpose", "normalize", "resize", "to_tensor"]


def _array(img):
    if hasattr(img, "numpy"):
        return np.asarray(img.numpy())
    return np.asarray(img)


class BaseTransform:
    """A transform is a callable of one image; subclasses define ``_apply_image``."""

    def __init__(self, keys=None):
        self.keys = keys

    def __call__(self, inputs):
        if isinstance(inputs, tuple):  # (image, label, ...): only the image is transformed
            return (self._apply_image(inputs[0]), *inputs[1:])
        return self._apply_image(inputs)

    def _apply_image(self, img):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_image")


class Compose:
    """Apply ``transforms`` in order."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not all(callable(t) for t in transforms):
            raise TypeError("Compose: transforms must be a list of callables")
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data


def to_tensor(pic, data_format="CHW"):
    """An ``HWC`` / ``HW`` image as a float32 tensor (``CHW`` unless ``data_format='HWC'``);
    uint8 values are scaled to [0, 1]."""
    img = _array(pic)
    if img.ndim == 2:
        img = img[:, :, None]
    if img.ndim != 3:
        raise ValueError(f"ToTensor: expected an HWC or HW image, got shape {list(img.shape)}")
    scale = img.dtype == np.uint8
    img = img.astype(np.float32)
    if scale:
        img = img / np.float32(255)
    if data_format == "CHW":
        img = img.transpose(2, 0, 1)
    elif data_format != "HWC":
        raise ValueError(f"ToTensor: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    return _tensor(np.ascontiguousarray(img))


class ToTensor(BaseTransform):
    """See :func:`to_tensor`."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return to_tensor(img, self.data_format)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel (channels first for ``'CHW'``, last for ``'HWC'``);
    a tensor stays a tensor."""
    is_tensor = hasattr(img, "numpy")
    arr = _array(img).astype(np.float32)
    mean, std = np.asarray(mean, np.float32), np.asarray(std, np.float32)
    if np.any(std == 0):
        raise ValueError(f"Normalize: std must not contain 0, got {std.tolist()}")
    if data_format == "CHW":
        mean, std = mean.reshape(-1, 1, 1), std.reshape(-1, 1, 1)
        if to_rgb:
            arr = arr[::-1]
    elif data_format == "HWC":
        if to_rgb:
            arr = arr[..., ::-1]
    else:
        raise ValueError(f"Normalize: data_format must be 'CHW' or 'HWC', got {data_format!r}")
    out = ((arr - mean) / std).astype(np.float32)
    return _tensor(out) if is_tensor else out


class Normalize(BaseTransform):
    """See :func:`normalize`; ``mean`` / ``std`` are numbers or one value per channel."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] if isinstance(mean, numbers.Number) else list(mean)
        self.std = [std] if isinstance(std, numbers.Number) else list(std)
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img):
        return normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


def _bilinear_axis(n_in, n_out):
    """Source indices and weights of a half-pixel-centred linear resampling of one axis."""
    pos = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
    pos = np.clip(pos, 0, n_in - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (pos - lo)


def resize(img, size, interpolation="bilinear"):
    """Resize an ``HWC`` / ``HW`` image to ``size`` ((h, w), or an int for the shorter side,
    keeping the aspect ratio) with ``'bilinear'`` or ``'nearest'`` sampling."""
    arr = _array(img)
    h, w = arr.shape[:2]
    if isinstance(size, numbers.Integral):
        if h <= w:
            out_h, out_w = int(size), max(int(size * w / h), 1)
        else:
            out_h, out_w = max(int(size * h / w), 1), int(size)
    elif isinstance(size, (list, tuple)) and len(size) == 2:
        out_h, out_w = int(size[0]), int(size[1])
    else:
        raise TypeError(f"Resize: size must be an int or (h, w), got {size!r}")
    if interpolation == "nearest":
        rows = np.minimum((np.arange(out_h) * h / out_h).astype(np.int64), h - 1)
        cols = np.minimum((np.arange(out_w) * w / out_w).astype(np.int64), w - 1)
        return arr[rows][:, cols]
    if interpolation != "bilinear":
        raise ValueError(f"Resize: interpolation must be 'bilinear' or 'nearest', got "
                         f"{interpolation!r}")
    r0, r1, fr = _bilinear_axis(h, out_h)
    c0, c1, fc = _bilinear_axis(w, out_w)
    data = arr.astype(np.float64)
    fr = fr.reshape(-1, 1, *([1] * (arr.ndim - 2)))
    fc = fc.reshape(1, -1, *([1] * (arr.ndim - 2)))
    top = data[r0][:, c0] * (1 - fc) + data[r0][:, c1] * fc
    bottom = data[r1][:, c0] * (1 - fc) + data[r1][:, c1] * fc
    out = top * (1 - fr) + bottom * fr
    if arr.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(arr.dtype)


class Resize(BaseTransform):
    """See :func:`resize`."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return resize(img, self.size, self.interpolation)


class Transpose(BaseTransform):
    """Permute the axes of an image (``HWC`` to ``CHW`` by default)."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        arr = _array(img)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        return np.ascontiguousarray(arr.transpose(self.order))


class CenterCrop(BaseTransform):
    """The central ``size`` ((h, w) or an int) window of an ``HWC`` / ``HW`` image."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Integral) else \
            tuple(int(s) for s in size)

    def _apply_image(self, img):
        arr = _array(img)
        h, w = arr.shape[:2]
        th, tw = self.size
        if th > h or tw > w:
            raise ValueError(f"CenterCrop: crop {th}x{tw} is larger than the image {h}x{w}")
        top, left = (h - th) // 2, (w - tw) // 2
        return arr[top:top + th, left:left + tw]


class RandomHorizontalFlip(BaseTransform):
    """Mirror an ``HWC`` / ``HW`` image left to right with probability ``prob`` (draws from
    the generator ``paddle.seed`` seeds)."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = float(prob)

    def _apply_image(self, img):
        arr = _array(img)
        if default_generator().random() < self.prob:
            return np.ascontiguousarray(arr[:, ::-1])
        return arr

"""``paddle.device``: ``set_device('cpu' | 'gpu' | 'gpu:N')`` and ``get_device()``: the place
new tensors and eager ops use (:func:`core.backend.set_default_place`)."""
from core import backend as _backend

__all__ = ["get_device", "is_compiled_with_cuda", "set_device"]

is_compiled_with_cuda = _backend.is_compiled_with_cuda


def set_device(device):
    """Make ``device`` ('cpu', 'gpu', 'gpu:N', or a place) the default; returns its place.
    'gpu' without a usable GPU (cupy and a CUDA device) is an error saying so."""
    if isinstance(device, _backend.Place):
        place = device
    elif isinstance(device, str):
        name = device.strip().lower()
        kind, _, index = name.partition(":")
        if kind == "cpu" and not index:
            place = _backend.CPUPlace()
        elif kind in ("gpu", "cuda") and (not index or index.isdigit()):
            if not _backend.is_compiled_with_cuda():
                raise ValueError(f"set_device: {device!r} needs cupy and a CUDA device, and none "
                                 "is usable here; use 'cpu'")
            place = _backend.CUDAPlace(int(index or 0))
        else:
            raise ValueError(f"set_device: device must be 'cpu', 'gpu' or 'gpu:N', got "
                             f"{device!r}")
    else:
        raise TypeError(f"set_device: device must be a str such as 'cpu' or 'gpu:0', got "
                        f"{type(device).__name__}")
    _backend.set_default_place(place)
    return place


def get_device():
    """'cpu' or 'gpu:N', the current default place."""
    place = _backend.default_place()
    return f"gpu:{place.id}" if getattr(place, "is_gpu", False) else "cpu"

"""Places and array modules: the one seam between the framework and numpy / cupy.

``CPUPlace`` arrays are numpy arrays, ``CUDAPlace`` arrays are cupy arrays. Kernels never
import either module; they receive the array module ``xp`` chosen here. Nothing else in the
package imports cupy.
"""
import numpy

try:  # cupy is the optional ``gpu`` extra
    import cupy

    try:
        _cuda_devices = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # any CUDA runtime failure means "no usable GPU"
        _cuda_devices = 0
except ImportError:
    cupy = None
    _cuda_devices = 0

__all__ = [
    "CPUPlace", "CUDAPlace", "Place", "is_compiled_with_cuda", "get_array_module",
    "array_module_of", "place_of", "to_place", "as_numpy", "default_place",
    "set_default_place", "cupy_available",
]


class Place:
    """A device that arrays live on."""

    __slots__ = ()
    is_gpu = False

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def _key(self):
        return ()


class CPUPlace(Place):
    """Host memory; arrays are numpy arrays."""

    __slots__ = ()

    def __repr__(self):
        return "CPUPlace"


class CUDAPlace(Place):
    """A CUDA device; arrays are cupy arrays on device ``id``."""

    __slots__ = ("id",)
    is_gpu = True

    def __init__(self, id=0):
        self.id = int(id)

    def _key(self):
        return (self.id,)

    def __repr__(self):
        return f"CUDAPlace({self.id})"


def cupy_available():
    """True when cupy imports and at least one CUDA device answers."""
    return cupy is not None and _cuda_devices > 0


def is_compiled_with_cuda():
    """True when cupy imports and sees a GPU (API name kept from PaddlePaddle)."""
    return cupy_available()


def get_array_module(place):
    """The array module (numpy or cupy) that computes on ``place``."""
    if place is not None and place.is_gpu:
        if not cupy_available():
            raise RuntimeError(
                f"{place!r} was requested but no CUDA device is usable: install the 'gpu' extra "
                "(cupy) on a machine with an NVIDIA GPU, or use CPUPlace()")
        return cupy
    return numpy


def array_module_of(array):
    """numpy or cupy, whichever owns ``array`` (numpy for scalars and lists)."""
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy
    return numpy


def place_of(array):
    """The place an array lives on."""
    if cupy is not None and isinstance(array, cupy.ndarray):
        return CUDAPlace(array.device.id)
    return CPUPlace()


def to_place(array, place):
    """``array`` moved (or copied) to ``place``; returned as is when already there."""
    if place is not None and place.is_gpu:
        xp = get_array_module(place)
        if isinstance(array, xp.ndarray) and array.device.id == place.id:
            return array
        with xp.cuda.Device(place.id):
            return xp.asarray(array)
    return as_numpy(array)


def as_numpy(array):
    """A numpy array with the data of ``array`` (copied to the host when it is a cupy array)."""
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy.asnumpy(array)
    return numpy.asarray(array)


_default_place = [CPUPlace()]


def default_place():
    """The place new eager tensors are created on."""
    return _default_place[0]


def set_default_place(place):
    """Make ``place`` (a Place, or None for CPU) the default for new eager tensors."""
    if place is None:
        place = CPUPlace()
    if not isinstance(place, Place):
        raise TypeError(f"place must be CPUPlace() or CUDAPlace(id), got {place!r}")
    get_array_module(place)  # fail early when the GPU is unusable
    _default_place[0] = place

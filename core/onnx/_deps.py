"""The one place that imports the optional ``onnx`` package (the ``onnx`` extra).

``import core`` never needs it: :mod:`core.onnx` imports this module, and :func:`require`
raises a clear error naming the extra when ``onnx`` is missing."""
try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # NOTE: optional dependency; export_program reports it when called
    onnx = helper = numpy_helper = TensorProto = None

__all__ = ["TensorProto", "helper", "numpy_helper", "onnx", "require"]


def require(what="ONNX export"):
    """Raise ImportError with the install command when ``onnx`` is not importable."""
    if onnx is None:
        raise ImportError(f"{what} needs the 'onnx' package, which is not installed; install "
                          "the optional extra with: pip install dy2static[onnx]")

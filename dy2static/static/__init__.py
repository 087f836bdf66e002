"""``paddle.static``: the static Program API of :mod:`core.static`, ``InputSpec``,
``static.nn`` and the inference-model save / load functions (2.x arguments and path-prefix
files, :mod:`.io`)."""
from core import static as _static
from core._reexport import reexport as _reexport
from core.param_attr import ParamAttr
from . import nn
from .io import load_inference_model, save_inference_model

__all__ = _reexport(globals(), [_static])
__all__ += ["ParamAttr", "load_inference_model", "nn", "save_inference_model"]

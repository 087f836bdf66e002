"""``core.layer_helper`` (fluid's ``fluid.layer_helper``): ``LayerHelper(layer_type,
**kwargs)``, the part of it model code calls directly: ``append_activation(x)`` applies the
``act`` given as a keyword (a name such as ``'relu'``, or a dict ``{'type': 'relu'}``; None
leaves ``x`` as it is), in eager and static mode alike."""
from .layers.activation import apply_act

__all__ = ["LayerHelper"]


class LayerHelper:
    """``LayerHelper(layer_type, act=None, ...)``; other keywords are kept in ``kwargs``."""

    def __init__(self, layer_type, **kwargs):
        if not isinstance(layer_type, str):
            raise TypeError(f"LayerHelper: argument 'layer_type' must be a str, got "
                            f"{type(layer_type).__name__}")
        self.layer_type = layer_type
        self.kwargs = kwargs

    def append_activation(self, input_var):
        """``input_var`` through the activation named by the ``act`` keyword."""
        act = self.kwargs.get("act")
        if isinstance(act, dict):
            extra = sorted(k for k in act if k != "type")
            if "type" not in act or extra:
                raise ValueError(f"LayerHelper({self.layer_type!r}): act as a dict must be "
                                 f"{{'type': name}}, got keys {sorted(act)}")
            act = act["type"]
        return apply_act(input_var, act, f"{self.layer_type} (LayerHelper)")

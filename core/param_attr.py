"""``ParamAttr``: how a layer should create one of its parameters."""
from .initializer import Initializer
from .regularizer import WeightDecayRegularizer

__all__ = ["ParamAttr"]


class ParamAttr:
    """Name, initializer, per-parameter learning-rate factor, regularizer and flags of a
    parameter. ``bias_attr=False`` on a layer means "no bias" and never reaches here."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=False, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: 'name' must be a str or None, got {type(name).__name__}")
        if initializer is not None and not isinstance(initializer, Initializer):
            raise TypeError(f"ParamAttr: 'initializer' must be a core.initializer object or "
                            f"None, got {type(initializer).__name__}")
        if not isinstance(learning_rate, (int, float)) or learning_rate < 0:
            raise ValueError(f"ParamAttr: 'learning_rate' must be a number >= 0, got "
                             f"{learning_rate!r}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = bool(do_model_average)
        self.need_clip = bool(need_clip)

    @staticmethod
    def _to_attr(arg):
        """Normalise a layer's ``param_attr`` / ``bias_attr`` argument: None gives defaults, a
        str is a name, an initializer or regularizer fills that field, ``False`` stays False
        (no parameter)."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, WeightDecayRegularizer):
            return ParamAttr(regularizer=arg)
        if arg is True:
            return ParamAttr()
        raise TypeError(f"a parameter attribute must be None, False, a str, a ParamAttr, an "
                        f"initializer or a regularizer; got {type(arg).__name__} ({arg!r})")

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
                f"trainable={self.trainable})")

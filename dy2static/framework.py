"""``paddle.framework``: ``save`` / ``load`` of objects, ``ParamAttr``, the random seed."""
from core.io.state_dict import load_object as load
from core.io.state_dict import save_object as save
from core.param_attr import ParamAttr
from core.random import seed

__all__ = ["ParamAttr", "load", "save", "seed"]

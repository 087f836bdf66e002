"""The one place parameters are created, in either mode.

Eager mode runs the initializer's creation op now and wraps the result in a
:class:`core.tensor.Parameter`; static mode asks the builder for a ``Parameter`` in the main
program whose initializer op goes to the startup program
(:func:`core.static.builder.append_parameter`). Names are ``attr.name`` or a unique name from
the layer's prefix (``linear_0.w`` gives ``linear_0.w_0``).

The public spellings delegate here: ``core.nn.param.create_parameter`` is this function,
``core.layers.create_parameter`` / ``core.static.create_parameter`` (fluid's signature, with
``name``) and ``Layer.create_parameter`` (named after the layer) call it.
"""
from . import mode as _mode
from . import unique_name
from .dispatch import eager_apply
from .dtypes import convert_dtype
from .initializer import Constant, Initializer, Xavier
from .ops.registry import get_op
from .param_attr import ParamAttr
from .static import builder
from .tensor import Parameter

__all__ = ["create_parameter"]


def _check_shape(shape):
    try:
        shape = [int(s) for s in shape]
    except TypeError:
        raise TypeError(f"create_parameter(): 'shape' must be a list of int, got {shape!r}") \
            from None
    bad = [s for s in shape if s <= 0]
    if bad:
        raise ValueError(f"create_parameter(): every dim of 'shape' must be > 0, got {shape}")
    return shape


def create_parameter(shape, dtype="float32", attr=None, is_bias=False, default_initializer=None,
                     prefix=None):
    """A new parameter of ``shape`` and ``dtype``.

    ``attr`` is a :class:`ParamAttr` (or anything ``ParamAttr._to_attr`` accepts; ``False`` is
    an error here, layers check it first). The initializer is ``attr.initializer``, else
    ``default_initializer``, else Xavier for weights and ``Constant(0)`` for biases (Paddle's
    defaults). ``prefix`` names the parameter when ``attr.name`` is None (``"linear_0.w"``).
    """
    shape = _check_shape(shape)
    dtype = convert_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"create_parameter(): 'dtype' must be a floating dtype, got {dtype.name}")
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter(): 'attr' is False, which means 'no parameter'; the "
                         "caller should not create one")
    init = attr.initializer or default_initializer
    if init is None:
        init = Constant(0.0) if is_bias else Xavier()
    if not isinstance(init, Initializer):
        raise TypeError(f"create_parameter(): the initializer must be a core.initializer "
                        f"object, got {type(init).__name__}")
    if attr.name is not None:
        name = attr.name
    else:
        name = unique_name.generate(prefix or ("create_parameter.b" if is_bias
                                               else "create_parameter.w"))
    op_type, attrs = init.op_spec(shape, dtype)
    optimize_attr = {"learning_rate": attr.learning_rate}
    if _mode.in_dynamic_mode():
        value = eager_apply(get_op(op_type), [], attrs)
        param = Parameter(value._data, name=name, trainable=attr.trainable,
                          optimize_attr=optimize_attr, regularizer=attr.regularizer,
                          need_clip=attr.need_clip)
        param.do_model_average = attr.do_model_average
        return param
    return builder.append_parameter(name, shape, dtype.name, init=(op_type, attrs),
                                    trainable=attr.trainable, regularizer=attr.regularizer,
                                    optimize_attr=optimize_attr, need_clip=attr.need_clip)

"""Functional API: creating tensors (``paddle.fluid.layers`` signatures): fill_constant, ones,
zeros, ones_like, zeros_like, assign, range / arange, linspace, uniform_random and
gaussian_random.

``shape`` is a list (or tuple) of non-negative ints and ``dtype`` a dtype name or numpy dtype;
results have exactly that dtype. In eager mode a 1-element tensor may stand for a number.

Dynamic shapes: a ``shape`` (and the other shape / position lists of the functional API,
through :func:`dynamic_ints`) may hold 1-element int tensors, or be a whole 1-D int tensor.
Eager tensors are read at once; static Variables become a tensor input of the op (Paddle's
ShapeTensor), and shape inference gives -1 for the dims they decide.
"""
import numbers

import numpy as np

from .. import mode as _mode
from .. import static as _static
from ..checks import check_int, check_number, check_variable, is_int, is_variable_like
from ..dispatch import apply
from ..dtypes import convert_dtype
from ..ops._shapes import ShapeError
from ..ops.creation import range_length
from ..param_attr import ParamAttr
from ..parameter import create_parameter as _create_parameter
from ..static import builder as _builder

__all__ = ["fill_constant", "ones", "zeros", "ones_like", "zeros_like", "assign", "range",
           "arange", "linspace", "uniform_random", "gaussian_random", "create_parameter",
           "create_global_var"]


def _int_tensor(v, arg, api, whole=False):
    """Check that ``v`` is a 1-element int tensor (``whole``: a 1-D int tensor)."""
    kind = np.dtype(v.dtype).kind
    shape = list(v.shape) if v.shape is not None else []
    if whole:
        ok = kind in "iu" and len(shape) == 1
        what = "a 1-D int tensor"
    else:
        ok = kind in "iu" and all(d == 1 for d in shape)
        what = "an int or a 1-element int tensor"
    if not ok:
        raise TypeError(f"{api}(): argument '{arg}' must be {what}, got a "
                        f"{np.dtype(v.dtype).name} tensor of shape {shape}")


def dynamic_ints(values, arg, api):
    """The entries of a shape or position list ``values``: ``(ints, None)`` when all are known
    now (Python ints; in eager mode also 1-element int tensors, or one 1-D int tensor), else
    ``(view, tensor)``: the static view (None where a static Variable decides) and an int64
    1-D Variable holding every entry at run time."""
    if is_variable_like(values):
        _int_tensor(values, arg, api, whole=True)
        if getattr(values, "block", None) is None:
            return [int(v) for v in values.numpy().reshape(-1).tolist()], None
        n = values.shape[0]
        if n < 0:
            raise ValueError(f"{api}(): argument '{arg}' is a Variable of shape "
                             f"{list(values.shape)}: its length must be known")
        if values.dtype != np.int64:
            values = apply("cast", [values], {"out_dtype": "int64"})
        return [None] * n, values
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{api}(): argument '{arg}' must be a list of ints or an int tensor, "
                        f"got {type(values).__name__} ({values!r})")
    ints, dynamic = [], False
    for k, v in enumerate(values):
        if is_variable_like(v):
            _int_tensor(v, f"{arg}[{k}]", api)
            if getattr(v, "block", None) is None:
                ints.append(int(v.numpy().reshape(-1)[0]))
            else:
                ints.append(None)
                dynamic = True
        elif not is_int(v):
            raise TypeError(f"{api}(): argument '{arg}' must hold ints or 1-element int "
                            f"tensors, got {list(values)!r} (element {k}: {v!r} of type "
                            f"{type(v).__name__})")
        else:
            ints.append(int(v))
    if not dynamic:
        return ints, None
    parts = []
    for v, i in zip(values, ints):
        if i is None:
            v = v if v.dtype == np.int64 else apply("cast", [v], {"out_dtype": "int64"})
            parts.append(apply("reshape", [v], {"shape": [1]}))
        else:
            parts.append(apply("fill_constant", [], {"shape": [1], "dtype": "int64",
                                                     "value": i}))
    return ints, apply("concat", [parts], {"axis": 0})


def _shape(shape, api):
    """``(dims, tensor)``: the dims (-1 where ``tensor``, a static Variable, decides)."""
    dims, tensor = dynamic_ints(shape, "shape", api)
    if any(d is not None and d < 0 for d in dims):
        raise ValueError(f"{api}(): argument 'shape' must hold non-negative dims, got {dims}")
    return [-1 if d is None else d for d in dims], tensor


def _create(op_type, attrs, tensor, outputs=None):
    if tensor is None:
        return apply(op_type, [], attrs, outputs=outputs)
    return apply(op_type + "_tensor", [tensor], attrs, outputs=outputs)


def _dtype(dtype, api, floating=False):
    try:
        d = convert_dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{api}(): argument 'dtype': {e}") from None
    if floating and d.kind != "f":
        raise TypeError(f"{api}(): argument 'dtype' must be a floating dtype, got {d.name}")
    return d.name


def _number(value, arg, api, allow_bool=False):
    """A Python number from ``value`` (in eager mode also from a 1-element tensor)."""
    if is_variable_like(value) and _mode.in_dynamic_mode() and hasattr(value, "numpy") \
            and int(np.prod(value.shape)) == 1:
        value = value.numpy().reshape(()).item()
    if allow_bool and isinstance(value, (bool, np.bool_)):
        return bool(value)
    return check_number(value, arg, api)


def _out(out, arg, api):
    return None if out is None else {0: check_variable(out, arg, api)}


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of ``shape`` and ``dtype`` filled with ``value`` (written into ``out`` when
    given). ``value`` is a number, or a one-element Tensor (in static mode a Variable, whose
    value the program reads when it runs, as PaddlePaddle's ``ValueTensor``)."""
    api = "fill_constant"
    dims, tensor = _shape(shape, api)
    if is_variable_like(value) and not _mode.in_dynamic_mode():
        return _fill_with_variable(dims, _dtype(dtype, api), value, tensor,
                                   _out(out, "out", api), api)
    attrs = {"shape": dims, "dtype": _dtype(dtype, api),
             "value": _number(value, "value", api, allow_bool=True)}
    return _create("fill_constant", attrs, tensor, outputs=_out(out, "out", api))


def _fill_with_variable(dims, dtype, value, tensor, outputs, api):
    """``fill_constant`` of a static one-element ``value``: zeros of the shape plus the value
    (reshaped to 0-d, cast to ``dtype``)."""
    numel = int(np.prod(value.shape)) if all(d >= 0 for d in value.shape) else -1
    if numel not in (1, -1):
        raise ValueError(f"{api}(): argument 'value' must be a number or a one-element "
                         f"Tensor, got a Variable of shape {list(value.shape)}")
    scalar = apply("reshape", [value], {"shape": []})
    if np.dtype(value.dtype).name != dtype:
        scalar = apply("cast", [scalar], {"out_dtype": dtype})
    zeros = _create("fill_constant", {"shape": dims, "dtype": dtype, "value": 0}, tensor)
    return apply("elementwise_add", [zeros, scalar], {"axis": -1}, outputs=outputs)


def ones(shape, dtype, force_cpu=False, name=None):
    """A tensor of ones."""
    return fill_constant(shape, dtype, 1, force_cpu)


def zeros(shape, dtype, force_cpu=False, name=None):
    """A tensor of zeros."""
    return fill_constant(shape, dtype, 0, force_cpu)


def _fill_like(api, x, value, out):
    check_variable(x, "x", api)
    return apply("fill_any_like", [x], {"value": value, "dtype": None},
                 outputs=_out(out, "out", api))


def ones_like(x, out=None, name=None):
    """Ones with x's shape and dtype."""
    return _fill_like("ones_like", x, 1, out)


def zeros_like(x, out=None, name=None):
    """Zeros with x's shape and dtype."""
    return _fill_like("zeros_like", x, 0, out)


def assign(input, output=None):
    """A copy of ``input`` (a Tensor/Variable, ndarray, nested list or scalar), written into
    ``output`` when given. Python floats become float32 and ints int64; an ndarray keeps its
    dtype."""
    api = "assign"
    outputs = _out(output, "output", api)
    if is_variable_like(input):
        return apply("assign", [input], outputs=outputs)
    if isinstance(input, np.ndarray):
        arr = input
    elif isinstance(input, (list, tuple, numbers.Number, np.generic)):
        try:
            arr = np.array(input)
        except ValueError as e:
            raise TypeError(f"assign(): argument 'input' is not a rectangular list: {e}") \
                from None
        if arr.dtype == np.float64 and not isinstance(input, np.generic):
            arr = arr.astype(np.float32)
    else:
        raise TypeError(f"assign(): argument 'input' must be a Tensor, Variable, ndarray, list "
                        f"or number, got {type(input).__name__}")
    try:
        dtype = convert_dtype(arr.dtype).name
    except TypeError as e:
        raise TypeError(f"assign(): argument 'input' has an unsupported dtype: {e}") from None
    if _mode.in_dynamic_mode():
        return apply("assign", [arr], outputs=outputs)
    attrs = {"shape": list(arr.shape), "dtype": dtype, "values": arr.ravel().tolist()}
    return apply("assign_value", [], attrs, outputs=outputs)


def _range(api, start, end, step, dtype):
    if not _mode.in_dynamic_mode() and \
            any(isinstance(v, _static.Variable) for v in (start, end, step)):
        # a bound known only when the program runs: the length too
        bounds = []
        for value, arg in ((start, "start"), (end, "end"), (step, "step")):
            if isinstance(value, _static.Variable):
                if int(np.prod([abs(d) for d in value.shape])) != 1:
                    raise ValueError(f"{api}(): argument '{arg}' must hold one element, got "
                                     f"'{value.name}' of shape {list(value.shape)}")
                bounds.append(value)
            else:
                value = _number(value, arg, api)
                if arg == "step" and value == 0:
                    raise ValueError(f"{api}(): argument 'step' must not be 0")
                bounds.append(apply("fill_constant", [], {"shape": [1], "dtype": "float64",
                                                          "value": float(value)}))
        return apply("range_tensor", bounds, {"dtype": _dtype(dtype, api)})
    start = _number(start, "start", api)
    end = _number(end, "end", api)
    step = _number(step, "step", api)
    if step == 0:
        raise ValueError(f"{api}(): argument 'step' must not be 0")
    try:
        range_length(start, end, step)
    except (ShapeError, OverflowError, ValueError) as e:
        raise ValueError(f"{api}(): arguments start={start}, end={end}, step={step}: {e}") \
            from None
    return apply("range", [], {"start": start, "end": end, "step": step,
                               "dtype": _dtype(dtype, api)})


def range(start, end, step, dtype, name=None):
    """``start, start + step, ...`` up to, not including, ``end``, of ``dtype``."""
    return _range("range", start, end, step, dtype)


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """``arange(n)`` is ``0 .. n-1``; ``dtype`` None gives int64 when every bound is an int,
    else float32."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        def integral(v, n):
            if isinstance(v, _static.Variable) and not _mode.in_dynamic_mode():
                return np.dtype(v.dtype).kind in "iu"
            return isinstance(_number(v, n, "arange"), numbers.Integral)
        dtype = "int64" if all(integral(v, n) for v, n in ((start, "start"), (end, "end"),
                                                            (step, "step"))) else "float32"
    return _range("arange", start, end, step, dtype)


def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (float32 by
    default)."""
    api = "linspace"
    num = _number(num, "num", api)
    if not isinstance(num, numbers.Integral) or num < 1:
        raise ValueError(f"linspace(): argument 'num' must be a positive int, got {num!r}")
    attrs = {"start": float(_number(start, "start", api)),
             "stop": float(_number(stop, "stop", api)), "num": int(num),
             "dtype": _dtype("float32" if dtype is None else dtype, api)}
    return apply("linspace", [], attrs)


def _seed(seed, api):
    seed = check_int(seed, "seed", api, integral_float=False)
    if seed < 0:
        raise ValueError(f"{api}(): argument 'seed' must be >= 0 (0: the global generator), "
                         f"got {seed}")
    return int(seed)


def uniform_random(shape, dtype="float32", min=-1.0, max=1.0, seed=0, name=None):
    """Uniform samples in ``[min, max)``; ``seed`` 0 draws from the global generator
    (``core.seed``), another value gives the same samples on every call."""
    api = "uniform_random"
    lo, hi = float(_number(min, "min", api)), float(_number(max, "max", api))
    if lo > hi:
        raise ValueError(f"uniform_random(): argument 'min' ({lo}) must not exceed 'max' ({hi})")
    dims, tensor = _shape(shape, api)
    attrs = {"shape": dims, "dtype": _dtype(dtype, api, floating=True),
             "min": lo, "max": hi, "seed": _seed(seed, api)}
    return _create("uniform_random", attrs, tensor)


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype="float32", name=None):
    """Normal samples with ``mean`` and ``std``; ``seed`` as in :func:`uniform_random`."""
    api = "gaussian_random"
    std = float(_number(std, "std", api))
    if std < 0:
        raise ValueError(f"gaussian_random(): argument 'std' must be >= 0, got {std}")
    dims, tensor = _shape(shape, api)
    attrs = {"shape": dims, "dtype": _dtype(dtype, api, floating=True),
             "mean": float(_number(mean, "mean", api)), "std": std, "seed": _seed(seed, api)}
    return _create("gaussian_random", attrs, tensor)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A new trainable parameter (fluid's ``layers.create_parameter``): an eager Parameter in
    eager mode, a Parameter of the main program (initialised by the startup program) in
    static mode. ``name`` overrides ``attr.name``. Delegates to
    :func:`core.parameter.create_parameter`; ``core.static.create_parameter`` is this function."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter(): 'attr' is False, which means no parameter")
    if name is not None:
        attr.name = name
    return _create_parameter(shape, dtype, attr=attr, is_bias=is_bias,
                             default_initializer=default_initializer)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A tensor of ``shape`` filled with ``value`` (fluid's ``layers.create_global_var``): an
    eager tensor in eager mode, a global-block variable set by the startup program in static
    mode."""
    shape, tensor = _shape(shape, "create_global_var")
    if tensor is not None:
        raise TypeError("create_global_var(): argument 'shape' must be known when the program "
                        f"is built (Python ints), got {shape} with Variables at -1")
    if not _mode.in_dynamic_mode():
        return _builder.create_global_var(shape, value, dtype, persistable=persistable,
                                          force_cpu=force_cpu, name=name)
    out = fill_constant(shape, dtype, value)
    out.persistable = bool(persistable)
    if name is not None:
        out.name = name
    return out


# ``core.static.create_parameter`` (Paddle's ``static.create_parameter``) is this function; the
# static IR does not import the layers above it, so it is set there from here.
_static.create_parameter = create_parameter

"""Functional API: elementwise arithmetic, unary math, clip, sums, matmul, mul, cast, the
finiteness checks, comparisons and logic (``paddle.fluid.layers`` signatures).

Every function checks its arguments (errors name the function, the argument, what was
expected and what came), then applies the op: at once in eager mode, as an operator of the
current block in static mode. ``act=`` names an activation op applied to the result.
"""

from ..checks import check_bool, check_int, check_number, check_type, check_variable, \
    is_variable_like
from ..dispatch import apply
from ..dtypes import dtype_name
from ..ops._shapes import ShapeError
from ..ops.math import flat2d, matmul_shape
from .activation import apply_act

__all__ = ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_div",
           "elementwise_pow", "pow", "elementwise_max", "elementwise_min", "elementwise_mod",
           "elementwise_floordiv", "scale", "abs", "exp", "log", "sqrt", "rsqrt", "square",
           "sign", "floor", "ceil", "round", "sin", "cos", "clip", "sums", "matmul", "mul",
           "cast", "isfinite", "has_nan", "less_than", "less_equal", "greater_than",
           "greater_equal", "equal", "not_equal", "logical_and", "logical_or", "logical_xor",
           "logical_not"]


def _operand(y, api):
    """Y of a binary op: a Tensor/Variable or a Python number (a weak scalar)."""
    if is_variable_like(y):
        return y
    return check_number(y, "y", api)


def _binary(op_type, x, y, axis, act=None):
    check_variable(x, "x", op_type)
    y = _operand(y, op_type)
    axis = check_int(axis, "axis", op_type, integral_float=False)
    if axis < -1:
        raise ValueError(f"{op_type}(): argument 'axis' must be -1 or a dim index of x, got "
                         f"{axis}")
    if axis != -1 and is_variable_like(y):
        # the lower-rank operand's dims line up with the other's from ``axis``: they must fit
        small, big = sorted((list(x.shape), list(y.shape)), key=len)
        if small and len(small) < len(big) and axis > len(big) - len(small):
            raise ValueError(f"{op_type}(): argument 'axis' must be -1 or in [0, "
                             f"{len(big) - len(small)}] (where the dims {small} start in "
                             f"{big}; x {list(x.shape)}, y {list(y.shape)}), got axis={axis}")
    return apply_act(apply(op_type, [x, y], {"axis": axis}), act, op_type)


def elementwise_add(x, y, axis=-1, act=None, name=None):
    """``x + y``; with ``axis`` != -1, y's dims line up with x's starting at ``axis``."""
    return _binary("elementwise_add", x, y, axis, act)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    """``x - y`` (broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_sub", x, y, axis, act)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    """``x * y`` (broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_mul", x, y, axis, act)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    """``x / y`` (true division; broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_div", x, y, axis, act)


def elementwise_pow(x, y, axis=-1, act=None, name=None):
    """``x ** y`` (broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_pow", x, y, axis, act)


def pow(x, factor=1.0, name=None):
    """``x ** factor`` elementwise (``paddle.fluid.layers.pow``); ``factor`` is a Python number
    (kept weak: the result has x's dtype) or a one-element Tensor."""
    check_variable(x, "x", "pow")
    return elementwise_pow(x, factor if is_variable_like(factor) else
                           check_number(factor, "factor", "pow"))


def elementwise_max(x, y, axis=-1, act=None, name=None):
    """Elementwise maximum (broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_max", x, y, axis, act)


def elementwise_min(x, y, axis=-1, act=None, name=None):
    """Elementwise minimum (broadcasting as :func:`elementwise_add`)."""
    return _binary("elementwise_min", x, y, axis, act)


def elementwise_mod(x, y, axis=-1, act=None, name=None):
    """``x % y`` with the sign of y, as in Python (no gradient)."""
    return _binary("elementwise_mod", x, y, axis, act)


def elementwise_floordiv(x, y, axis=-1, act=None, name=None):
    """``x // y`` (no gradient)."""
    return _binary("elementwise_floordiv", x, y, axis, act)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``scale * x + bias`` (``scale * (x + bias)`` when ``bias_after_scale`` is False); the
    result keeps x's dtype."""
    api = "scale"
    check_variable(x, "x", api)
    attrs = {"scale": float(check_number(scale, "scale", api)),
             "bias": float(check_number(bias, "bias", api)),
             "bias_after_scale": check_bool(bias_after_scale, "bias_after_scale", api)}
    return apply_act(apply("scale", [x], attrs), act, api)


def _unary(op_type, x):
    check_variable(x, "x", op_type)
    return apply(op_type, [x])


def abs(x, name=None):
    """``|x|``."""
    return _unary("abs", x)


def exp(x, name=None):
    """``e ** x``."""
    return _unary("exp", x)


def log(x, name=None):
    """Natural logarithm."""
    return _unary("log", x)


def sqrt(x, name=None):
    """Square root."""
    return _unary("sqrt", x)


def rsqrt(x, name=None):
    """``1 / sqrt(x)``."""
    return _unary("rsqrt", x)


def square(x, name=None):
    """``x * x``."""
    return _unary("square", x)


def sign(x, name=None):
    """-1, 0 or 1 by the sign of each element (no gradient)."""
    return _unary("sign", x)


def floor(x, name=None):
    """Round down (no gradient)."""
    return _unary("floor", x)


def ceil(x, name=None):
    """Round up (no gradient)."""
    return _unary("ceil", x)


def round(x, name=None):
    """Round half away from zero, keeping x's dtype (no gradient)."""
    return _unary("round", x)


def sin(x, name=None):
    """Sine."""
    return _unary("sin", x)


def cos(x, name=None):
    """Cosine."""
    return _unary("cos", x)


def clip(x, min, max, name=None):
    """``x`` limited to ``[min, max]``; the gradient flows where ``min < x < max``."""
    api = "clip"
    check_variable(x, "x", api)
    lo, hi = float(check_number(min, "min", api)), float(check_number(max, "max", api))
    if not lo <= hi:  # NaN bounds too: they would fill the result with NaN
        raise ValueError(f"clip(): argument 'min' must be a number <= 'max' ({hi}), got {lo}")
    return apply("clip", [x], {"min": lo, "max": hi})


def sums(input, out=None):
    """The sum of a list of tensors; written into ``out`` when given."""
    api = "sums"
    if is_variable_like(input):
        input = [input]
    check_type(input, "input", (list, tuple), api)
    if not input:
        raise ValueError("sums(): argument 'input' must hold at least one tensor, got []")
    for i, t in enumerate(input):
        check_variable(t, f"input[{i}]", api)
    outputs = None if out is None else {0: check_variable(out, "out", api)}
    return apply("sums", [list(input)], outputs=outputs)


def _rank_at_least(x, n, arg, api):
    if len(x.shape) < n:
        raise ValueError(f"{api}(): argument '{arg}' must have rank >= {n}, got shape "
                         f"{list(x.shape)}")


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """``alpha * op(x) @ op(y)`` with numpy's matmul rules (1-D operands, broadcast batch
    dims); ``op`` swaps the last two axes when ``transpose_*`` is set."""
    api = "matmul"
    check_variable(x, "x", api)
    check_variable(y, "y", api)
    _rank_at_least(x, 1, "x", api)
    _rank_at_least(y, 1, "y", api)
    attrs = {"transpose_X": check_bool(transpose_x, "transpose_x", api),
             "transpose_Y": check_bool(transpose_y, "transpose_y", api),
             "alpha": float(check_number(alpha, "alpha", api))}
    try:
        matmul_shape(x.shape, y.shape, attrs["transpose_X"], attrs["transpose_Y"])
    except ShapeError as e:
        raise ValueError(f"matmul(): arguments 'x' and 'y' do not fit: {e}") from None
    return apply("matmul", [x, y], attrs)


def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """fluid's ``mul``: x flattened to 2-D after ``x_num_col_dims`` dims, y after
    ``y_num_col_dims``, then multiplied; the result has shape
    ``x.shape[:x_num_col_dims] + y.shape[y_num_col_dims:]``."""
    api = "mul"
    check_variable(x, "x", api)
    check_variable(y, "y", api)
    for arg, v, t in (("x_num_col_dims", x_num_col_dims, x),
                      ("y_num_col_dims", y_num_col_dims, y)):
        check_int(v, arg, api, integral_float=False)
        if not 1 <= v < max(len(t.shape), 2):
            raise ValueError(f"mul(): argument '{arg}' must be in [1, {len(t.shape)}) for an "
                             f"input of shape {list(t.shape)}, got {v}")
    kx, ky = flat2d(x.shape, x_num_col_dims)[1], flat2d(y.shape, y_num_col_dims)[0]
    if kx != -1 and ky != -1 and kx != ky:
        raise ValueError(f"mul(): x of shape {list(x.shape)} flattened at {x_num_col_dims} "
                         f"has {kx} columns but y of shape {list(y.shape)} flattened at "
                         f"{y_num_col_dims} has {ky} rows")
    return apply("mul", [x, y], {"x_num_col_dims": int(x_num_col_dims),
                                 "y_num_col_dims": int(y_num_col_dims)})


def cast(x, dtype):
    """``x`` converted to ``dtype`` (a name like ``'float32'`` or a numpy dtype)."""
    check_variable(x, "x", "cast")
    try:
        name = dtype_name(dtype)
    except TypeError as e:
        raise TypeError(f"cast(): argument 'dtype': {e}") from None
    return apply("cast", [x], {"out_dtype": name})


def isfinite(x):
    """A one-element bool tensor: True when every element of x is finite."""
    return _unary("isfinite", x)


def has_nan(x):
    """A one-element bool tensor: True when any element of x is NaN."""
    return _unary("has_nan", x)


def _compare(op_type, x, y, cond):
    check_variable(x, "x", op_type)
    y = _operand(y, op_type)
    outputs = None if cond is None else {0: check_variable(cond, "cond", op_type)}
    return apply(op_type, [x, y], outputs=outputs)


def less_than(x, y, cond=None, name=None):
    """``x < y`` elementwise (bool); written into ``cond`` when given."""
    return _compare("less_than", x, y, cond)


def less_equal(x, y, cond=None, name=None):
    """``x <= y`` elementwise (bool)."""
    return _compare("less_equal", x, y, cond)


def greater_than(x, y, cond=None, name=None):
    """``x > y`` elementwise (bool)."""
    return _compare("greater_than", x, y, cond)


def greater_equal(x, y, cond=None, name=None):
    """``x >= y`` elementwise (bool)."""
    return _compare("greater_equal", x, y, cond)


def equal(x, y, cond=None, name=None):
    """``x == y`` elementwise (bool)."""
    return _compare("equal", x, y, cond)


def not_equal(x, y, cond=None, name=None):
    """``x != y`` elementwise (bool)."""
    return _compare("not_equal", x, y, cond)


def _logical(op_type, args, out):
    for arg, v in args:
        check_variable(v, arg, op_type, dtypes=("bool",))
    outputs = None if out is None else {0: check_variable(out, "out", op_type)}
    return apply(op_type, [v for _, v in args], outputs=outputs)


def logical_and(x, y, out=None, name=None):
    """Elementwise ``x and y`` of bool tensors."""
    return _logical("logical_and", [("x", x), ("y", y)], out)


def logical_or(x, y, out=None, name=None):
    """Elementwise ``x or y`` of bool tensors."""
    return _logical("logical_or", [("x", x), ("y", y)], out)


def logical_xor(x, y, out=None, name=None):
    """Elementwise ``x xor y`` of bool tensors."""
    return _logical("logical_xor", [("x", x), ("y", y)], out)


def logical_not(x, out=None, name=None):
    """Elementwise ``not x`` of a bool tensor."""
    return _logical("logical_not", [("x", x)], out)

"""Functional API: shape ops, slicing and gathering (``paddle.fluid.layers`` signatures).

Each function checks its arguments against what is known of the input shapes (static shapes
may hold -1) and raises an error naming the function, the argument and the shapes involved,
then applies the op. Integer arguments may be given as 1-element eager tensors.
"""
import numbers


from .. import mode as _mode
from ..checks import check_act, check_axis, check_int, check_number, check_type, \
    check_variable, is_variable_like
from ..dispatch import apply
from ..operator_mixin import register as _register_operators
from ..ops._shapes import ShapeError
from ..ops.indexing import check_scatter_updates
from ..ops.shape import reshape_target, split_sizes
from .creation import dynamic_ints

__all__ = ["concat", "expand", "expand_as", "flatten", "gather", "gather_nd", "one_hot", "pad",
           "reshape", "scatter", "shape", "slice", "split", "squeeze", "stack", "strided_slice",
           "tile", "transpose", "unsqueeze", "unstack", "where"]

_INTS = ("int32", "int64", "int16", "int8", "uint8")




def _int(v, arg, api):
    """An int argument: a Python int or, in eager mode, a 1-element int tensor."""
    return check_int(v, arg, api, integral_float=False, tensor=True)


def _ints(values, arg, api):
    """A list of ints from a list / tuple (or, in eager mode, an int tensor)."""
    if is_variable_like(values) and _mode.in_dynamic_mode():
        values = values.numpy().reshape(-1).tolist()
    check_type(values, arg, (list, tuple), api)
    return [_int(v, f"{arg}[{k}]", api) for k, v in enumerate(values)]


def _axes(axes, arg, api):
    return _ints(axes, arg, api) if isinstance(axes, (list, tuple)) else [_int(axes, arg, api)]


def _tensors(values, arg, api):
    if is_variable_like(values):
        values = [values]
    check_type(values, arg, (list, tuple), api)
    if not values:
        raise ValueError(f"{api}(): argument '{arg}' must not be empty")
    for i, v in enumerate(values):
        check_variable(v, f"{arg}[{i}]", api)
    return list(values)


def _shape_error(api, arg, fn, *args):
    """``fn(*args)``, with a ShapeError restated as naming the function and argument."""
    try:
        return fn(*args)
    except ShapeError as e:
        raise ValueError(f"{api}(): argument '{arg}': {e}") from None


def _same_dims(shapes, skip, arg, api):
    for s in shapes[1:]:
        bad = len(s) != len(shapes[0]) or any(i != skip and a != b and a >= 0 and b >= 0
                                              for i, (a, b) in enumerate(zip(s, shapes[0])))
        if bad:
            where_ = "" if skip is None else f" except along axis {skip}"
            raise ValueError(f"{api}(): the tensors in '{arg}' must have equal shapes{where_}, "
                             f"got {[list(t) for t in shapes]}")


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    """``x`` with a new shape: 0 copies the input dim, one -1 is inferred.

    ``actual_shape`` (an eager int tensor) overrides ``shape``; ``inplace`` is accepted and
    ignored (the result is always a new tensor)."""
    check_variable(x, "x", "reshape")
    if actual_shape is not None:
        shape = actual_shape
    dims, tensor = dynamic_ints(shape, "shape", "reshape")
    if tensor is not None:
        view = [-1 if d is None else d for d in dims]
        out = apply("reshape_tensor", [x, tensor], {"shape": view})
    else:
        _shape_error("reshape", "shape", reshape_target, x.shape, dims)
        out = apply("reshape", [x], {"shape": dims})
    return apply(check_act(act, "reshape"), [out]) if act else out


def transpose(x, perm, name=None):
    """``x`` with its dims permuted: output dim i is input dim ``perm[i]``."""
    check_variable(x, "x", "transpose")
    perm = _ints(perm, "perm", "transpose")
    rank = len(x.shape)
    if len(perm) != rank or sorted(p % max(rank, 1) for p in perm) != list(range(rank)):
        raise ValueError(f"transpose(): argument 'perm'={perm} must be a permutation of the "
                         f"{rank} dims of x (shape {list(x.shape)})")
    return apply("transpose", [x], {"axis": [p % max(rank, 1) for p in perm]})


def _is_tensor_array(v):
    return getattr(v, "type", None) == "tensor_array" and getattr(v, "block", None) is not None


def _from_tensor_array(array, axis, use_stack, arg, api):
    """The elements of static tensor array ``array`` stacked or concatenated along ``axis``
    (the ``tensor_array_to_tensor`` op)."""
    if array.shape is None:
        raise ValueError(f"{api}(): argument '{arg}' is tensor array '{array.name}' to which "
                         "nothing is written, so its elements' shape is unknown")
    rank = len(array.shape) + (1 if use_stack else 0)
    ax = check_axis(_int(axis, "axis", api), rank, "axis", api)
    return apply("tensor_array_to_tensor", [array], {"axis": ax, "use_stack": use_stack})[0]


def concat(input=None, axis=0, name=None, *, x=None):
    """The tensors of ``input`` joined along ``axis``. ``input`` may also be a static tensor
    array (a list a static loop appended to). ``x`` is the 2.0 spelling of ``input``
    (``paddle.concat(x, axis)``): pass one of them."""
    if x is not None:
        if input is not None:
            raise TypeError("concat(): pass the tensors as 'input' or as 'x', not both")
        input = x
    elif input is None:
        raise TypeError("concat(): missing the tensors to join: argument 'input' (or 'x')")
    if _is_tensor_array(input):
        return _from_tensor_array(input, axis, False, "input", "concat")
    xs = _tensors(input, "input", "concat")
    ax = check_axis(_int(axis, "axis", "concat"), len(xs[0].shape), "axis", "concat")
    _same_dims([list(x.shape) for x in xs], ax, "input", "concat")
    return apply("concat", [xs], {"axis": ax})


def split(input, num_or_sections, dim=-1, name=None):
    """A list of parts of ``input`` along ``dim``: ``num_or_sections`` equal parts (an int) or
    parts of the given sizes (a list; one -1 is inferred)."""
    check_variable(input, "input", "split")
    ax = check_axis(_int(dim, "dim", "split"), len(input.shape), "dim", "split")
    if isinstance(num_or_sections, numbers.Integral):
        num, sections = int(num_or_sections), []
    else:
        num, sections = 0, _ints(num_or_sections, "num_or_sections", "split")
    _shape_error("split", "num_or_sections",
                 lambda: split_sizes(input.shape[ax], num, sections,
                                     f"split of shape {list(input.shape)} along dim {ax}"))
    return list(apply("split", [input], {"num": num, "sections": sections, "axis": ax}))


def stack(x, axis=0, name=None):
    """The equally shaped tensors of ``x`` stacked along a new dim ``axis``. ``x`` may also be
    a static tensor array (a list a static loop appended to)."""
    if _is_tensor_array(x):
        return _from_tensor_array(x, axis, True, "x", "stack")
    xs = _tensors(x, "x", "stack")
    _same_dims([list(t.shape) for t in xs], None, "x", "stack")
    ax = check_axis(_int(axis, "axis", "stack"), len(xs[0].shape) + 1, "axis", "stack")
    return apply("stack", [xs], {"axis": ax})


def unstack(x, axis=0, num=None):
    """The slices of ``x`` along ``axis``, as a list (the dim is removed)."""
    check_variable(x, "x", "unstack")
    ax = check_axis(_int(axis, "axis", "unstack"), len(x.shape), "axis", "unstack")
    dim = x.shape[ax]
    if (num is None and dim < 0) or (num is not None and dim >= 0 and num != dim):
        raise ValueError(f"unstack(): argument 'num'={num} does not fit dim {ax} of x "
                         f"(shape {list(x.shape)}); give the dim's size")
    return list(apply("unstack", [x], {"axis": ax, "num": dim if num is None else int(num)}))


def squeeze(input, axes, name=None):
    """``input`` without the size-1 dims named in ``axes`` (every size-1 dim when empty)."""
    check_variable(input, "input", "squeeze")
    axes = _axes(axes, "axes", "squeeze")
    axes = [check_axis(a, len(input.shape), "axes", "squeeze") for a in axes]
    return apply("squeeze", [input], {"axes": axes})


def unsqueeze(input, axes, name=None):
    """``input`` with size-1 dims inserted at ``axes`` (one at a time, in order)."""
    check_variable(input, "input", "unsqueeze")
    axes = _axes(axes, "axes", "unsqueeze")
    rank = len(input.shape)
    for i, a in enumerate(axes):
        check_axis(a, rank + i + 1, "axes", "unsqueeze")
    return apply("unsqueeze", [input], {"axes": axes})


def flatten(x, axis=1, name=None):
    """fluid's flatten: ``x`` as 2-D ``[prod(dims[:axis]), prod(dims[axis:])]``."""
    check_variable(x, "x", "flatten")
    axis = _int(axis, "axis", "flatten")
    if not 0 <= axis <= len(x.shape):
        raise ValueError(f"flatten(): argument 'axis'={axis} must be in [0, {len(x.shape)}] "
                         f"for x of shape {list(x.shape)}")
    return apply("flatten", [x], {"axis": axis})


def _repeats(values, arg, api, rank=None):
    reps = _ints(values, arg, api)
    if any(r < 1 for r in reps) or (rank is not None and len(reps) != rank):
        need = "" if rank is None else f"{rank} "
        raise ValueError(f"{api}(): argument '{arg}'={reps} must be {need}positive ints"
                         + ("" if rank is None else f" (one per dim of x, rank {rank})"))
    return reps


def expand(x, expand_times, name=None):
    """fluid's expand: ``x`` tiled ``expand_times[i]`` times along dim i."""
    check_variable(x, "x", "expand")
    dims, tensor = dynamic_ints(expand_times, "expand_times", "expand")
    if tensor is not None:
        return _tile_by_tensor(x, dims, tensor, "expand_times", "expand", len(x.shape))
    reps = _repeats(dims, "expand_times", "expand", len(x.shape))
    return apply("expand", [x], {"expand_times": reps})


def expand_as(x, target_tensor, name=None):
    """fluid's expand_as: ``x`` tiled to the shape of ``target_tensor`` (each target dim a
    multiple of x's)."""
    check_variable(x, "x", "expand_as")
    check_variable(target_tensor, "target_tensor", "expand_as")
    xs, ts = list(x.shape), list(target_tensor.shape)
    if len(xs) != len(ts) or any(a <= 0 or b < 0 or b % a for a, b in zip(xs, ts)):
        raise ValueError(f"expand_as(): the shape of 'target_tensor' {ts} must be a known "
                         f"multiple of the shape of 'x' {xs}, dim by dim")
    return apply("expand", [x], {"expand_times": [b // a for a, b in zip(xs, ts)]})


def tile(x, repeat_times, name=None):
    """``x`` repeated ``repeat_times[i]`` times along dim i (shorter lists and shapes are
    padded with leading 1s)."""
    check_variable(x, "x", "tile")
    dims, tensor = dynamic_ints(repeat_times, "repeat_times", "tile")
    if tensor is not None:
        return _tile_by_tensor(x, dims, tensor, "repeat_times", "tile")
    return apply("tile", [x], {"repeat_times": _repeats(dims, "repeat_times", "tile")})


def _tile_by_tensor(x, dims, tensor, arg, api, rank=None):
    """Static tile / expand whose repeat counts a Variable decides (-1 in the static view)."""
    if any(d is not None and d < 1 for d in dims) or (rank is not None and len(dims) != rank):
        need = "" if rank is None else f"{rank} "
        raise ValueError(f"{api}(): argument '{arg}' must be {need}positive ints, got "
                         f"{[('?' if d is None else d) for d in dims]}")
    view = [-1 if d is None else d for d in dims]
    return apply("tile_tensor", [x, tensor], {"repeat_times": view})


def _slice_attrs(api, x, axes, starts, ends, strides=None):
    check_variable(x, "input", api)
    axes, starts, ends = (_ints(v, n, api) for v, n in
                          ((axes, "axes"), (starts, "starts"), (ends, "ends")))
    attrs = {"axes": [check_axis(a, len(x.shape), "axes", api) for a in axes],
             "starts": starts, "ends": ends}
    lengths = [len(axes), len(starts), len(ends)]
    if strides is not None:
        attrs["strides"] = _ints(strides, "strides", api)
        lengths.append(len(attrs["strides"]))
        if 0 in attrs["strides"]:
            raise ValueError(f"{api}(): argument 'strides'={attrs['strides']} holds a 0")
    if len(set(lengths)) != 1 or len(set(attrs["axes"])) != len(axes):
        raise ValueError(f"{api}(): 'axes' {axes} (distinct), 'starts' {starts}, 'ends' {ends}"
                         + ("" if strides is None else f", 'strides' {attrs['strides']}")
                         + " must have the same length")
    return attrs


def slice(input, axes, starts, ends):
    """``input`` restricted to ``[starts[i], ends[i])`` along ``axes[i]`` (negative bounds count
    from the end; out-of-range bounds are clamped). ``starts`` / ``ends`` may hold 1-element
    int tensors or be int tensors (see Dynamic shapes in :mod:`core.layers.creation`)."""
    api = "slice"
    s_dims, s_tensor = dynamic_ints(starts, "starts", api)
    e_dims, e_tensor = dynamic_ints(ends, "ends", api)
    if s_tensor is None and e_tensor is None:
        return apply("slice", [input], _slice_attrs(api, input, axes, s_dims, e_dims))
    attrs = _slice_attrs(api, input, axes, [0 if d is None else d for d in s_dims],
                         [0 if d is None else d for d in e_dims])
    attrs["starts"], attrs["ends"] = s_dims, e_dims
    if s_tensor is None:
        s_tensor = apply("assign_value", [], {"shape": [len(s_dims)], "dtype": "int64",
                                               "values": s_dims})
    if e_tensor is None:
        e_tensor = apply("assign_value", [], {"shape": [len(e_dims)], "dtype": "int64",
                                               "values": e_dims})
    return apply("slice_tensor", [input, s_tensor, e_tensor], attrs)


def strided_slice(input, axes, starts, ends, strides):
    """Like :func:`slice`, taking every ``strides[i]``-th entry (negative strides go back)."""
    attrs = _slice_attrs("strided_slice", input, axes, starts, ends, strides)
    return apply("strided_slice", [input], attrs)


def gather(input, index, overwrite=True):
    """Rows of ``input`` picked by the int tensor ``index`` (shape [N] or [N, 1]).

    ``overwrite`` only concerns Paddle's gradient kernel; gradients of repeated rows always
    accumulate here, which is the correct derivative."""
    check_variable(input, "input", "gather")
    check_variable(index, "index", "gather", _INTS)
    if len(index.shape) not in (1, 2) or (len(index.shape) == 2 and index.shape[1] != 1):
        raise ValueError(f"gather(): argument 'index' must have shape [N] or [N, 1], got "
                         f"{list(index.shape)}")
    return apply("gather", [input, index], {"axis": 0})


def gather_nd(input, index, name=None):
    """``input`` at the coordinates held in the last dim of the int tensor ``index``."""
    check_variable(input, "input", "gather_nd")
    check_variable(index, "index", "gather_nd", _INTS)
    k = index.shape[-1] if index.shape else -1
    if not 0 <= k <= len(input.shape):
        raise ValueError(f"gather_nd(): the last dim of 'index' (shape {list(index.shape)}) "
                         f"must be known and at most the rank of 'input' ({list(input.shape)})")
    return apply("gather_nd", [input, index])


def scatter(input, index, updates, name=None, overwrite=True):
    """``input`` with rows ``index`` replaced by the rows of ``updates`` (``overwrite``), or set
    to the sum of the updates aimed at them."""
    check_variable(input, "input", "scatter")
    check_variable(index, "index", "scatter", _INTS)
    check_variable(updates, "updates", "scatter")
    if len(index.shape) != 1:
        raise ValueError(f"scatter(): argument 'index' must be 1-D, got shape "
                         f"{list(index.shape)}")
    _shape_error("scatter", "updates", check_scatter_updates, input.shape, index.shape,
                 updates.shape)
    return apply("scatter", [input, index, updates], {"overwrite": bool(overwrite)})


def shape(input):
    """The shape of ``input`` as an int32 1-D tensor (in static mode: computed at run time)."""
    check_variable(input, "input", "shape")
    return apply("shape", [input])


def one_hot(input, depth, allow_out_of_range=False):
    """float32 one-hot rows for the int ids in ``input``: fluid's [N, 1] (or [N]) ids give
    [N, depth]; other shapes S give S + [depth]."""
    check_variable(input, "input", "one_hot", _INTS)
    depth = _int(depth, "depth", "one_hot")
    if depth < 1:
        raise ValueError(f"one_hot(): argument 'depth' must be positive, got {depth}")
    if len(input.shape) >= 2 and input.shape[-1] == 1:
        input = apply("squeeze", [input], {"axes": [len(input.shape) - 1]})
    return apply("one_hot", [input], {"depth": depth,
                                      "allow_out_of_range": bool(allow_out_of_range)})


def where(condition, x, y, name=None):
    """``x`` where the bool tensor ``condition`` holds, else ``y`` (numpy broadcasting)."""
    check_variable(condition, "condition", "where", ["bool"])
    for arg, v in (("x", x), ("y", y)):
        if not is_variable_like(v) and not isinstance(v, numbers.Real):
            raise TypeError(f"where(): argument '{arg}' must be a Tensor, Variable or number, "
                            f"got {type(v).__name__}")
    return apply("where", [condition, x, y])


def pad(x, paddings, pad_value=0.0, name=None):
    """``x`` padded with ``pad_value``: ``paddings`` is ``[before0, after0, before1, ...]``."""
    check_variable(x, "x", "pad")
    paddings = _ints(paddings, "paddings", "pad")
    if len(paddings) != 2 * len(x.shape) or any(p < 0 for p in paddings):
        raise ValueError(f"pad(): argument 'paddings'={paddings} must hold 2 non-negative ints "
                         f"per dim of x (shape {list(x.shape)}), i.e. {2 * len(x.shape)}")
    return apply("pad", [x], {"paddings": paddings,
                              "pad_value": float(check_number(pad_value, "pad_value", "pad"))})


_register_operators(reshape=reshape)  # x.reshape(shape) of tensors and Variables

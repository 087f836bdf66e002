"""Cases for core/ops/shape.py."""
import numpy as np

from . import Case

r = np.random.default_rng(3)


def f32(*shape):
    return r.uniform(-1.0, 1.0, shape).astype(np.float32)


def _reshape(x, shape):
    return np.reshape(x, [x.shape[i] if s == 0 else s for i, s in enumerate(shape)])


def _split(x, num=0, sections=(), axis=0):
    if not sections:
        return (np.split(x, num, axis=axis),)
    sizes = list(sections)
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    return (np.split(x, np.cumsum(sizes)[:-1], axis=axis),)


def _unstack(x, axis=0, num=None):
    return ([np.take(x, i, axis=axis) for i in range(x.shape[axis])],)


def _squeeze(x, axes):
    axes = [a % x.ndim for a in axes if x.shape[a] == 1] if axes else None
    return np.squeeze(x, axis=None if axes is None else tuple(axes))


def _flatten(x, axis=1):
    return x.reshape(int(np.prod(x.shape[:axis])), -1)


def _flatten_range(x, start_axis=0, stop_axis=-1):
    start, stop = start_axis % x.ndim, stop_axis % x.ndim
    return x.reshape(x.shape[:start] + (-1,) + x.shape[stop + 1:])


def _expand_v2(x, shape):
    lead = len(shape) - x.ndim
    return np.broadcast_to(x, [x.shape[i - lead] if s == -1 else s for i, s in enumerate(shape)])


def _pad(x, paddings, pad_value=0.0):
    pairs = [(paddings[2 * i], paddings[2 * i + 1]) for i in range(x.ndim)]
    return np.pad(x, pairs, constant_values=pad_value)


def _tile(x, repeat_times):
    return np.tile(x, repeat_times)


CASES = {
    "reshape": [
        Case([f32(2, 3, 4)], {"shape": [6, 4]}, ref=_reshape),
        Case([f32(2, 3, 4)], {"shape": [0, -1]}, ref=_reshape, name="zero-and-infer"),
        Case([f32(6)], {"shape": [3, 1, 2]}, ref=_reshape, name="add-dims"),
        Case([np.arange(6)], {"shape": [-1, 2]}, ref=_reshape, name="int"),
    ],
    "transpose": [
        Case([f32(2, 3, 4)], {"axis": [2, 0, 1]}, ref=lambda x, axis: np.transpose(x, axis)),
        Case([f32(3, 2)], {"axis": [1, 0]}, ref=lambda x, axis: x.T, name="2d"),
    ],
    "concat": [
        Case([[f32(2, 3), f32(1, 3), f32(2, 3)]], {"axis": 0},
             ref=lambda xs, axis: np.concatenate(xs, axis)),
        Case([[f32(2, 1, 2), f32(2, 3, 2)]], {"axis": -2},
             ref=lambda xs, axis: np.concatenate(xs, axis), name="negative-axis"),
    ],
    "split": [
        Case([f32(4, 3)], {"num": 2, "axis": 0}, ref=_split, name="num"),
        Case([f32(2, 6)], {"sections": [1, -1, 2], "axis": 1}, ref=_split, name="sections"),
        Case([f32(2, 3, 2)], {"sections": [2, 1], "axis": -2}, ref=_split, name="neg-axis"),
    ],
    "stack": [
        Case([[f32(2, 3), f32(2, 3)]], {"axis": 1}, ref=lambda xs, axis: np.stack(xs, axis)),
        Case([[f32(3), f32(3), f32(3)]], {"axis": -1},
             ref=lambda xs, axis: np.stack(xs, axis), name="last"),
    ],
    "unstack": [
        Case([f32(3, 2)], {"axis": 0, "num": 3}, ref=_unstack),
        Case([f32(2, 3, 2)], {"axis": -2}, ref=_unstack, name="neg-axis"),
    ],
    "squeeze": [
        Case([f32(1, 3, 1, 2)], {"axes": []}, ref=_squeeze, name="all"),
        Case([f32(1, 3, 1, 2)], {"axes": [-2]}, ref=_squeeze, name="one"),
        Case([f32(1, 3, 2)], {"axes": [0, 1]}, ref=_squeeze, name="non-1-kept"),
    ],
    "unsqueeze": [
        Case([f32(2, 3)], {"axes": [0, 2]}, ref=lambda x, axes: np.expand_dims(x, (0, 2))),
        Case([f32(3)], {"axes": [-1]}, ref=lambda x, axes: x[:, None], name="last"),
    ],
    "flatten": [
        Case([f32(2, 3, 2)], {"axis": 1}, ref=_flatten),
        Case([f32(2, 3, 2)], {"axis": 0}, ref=_flatten, name="axis0"),
        Case([f32(2, 3, 2)], {"axis": 3}, ref=_flatten, name="axis-rank"),
    ],
    "flatten_contiguous_range": [
        Case([f32(2, 3, 2, 2)], {"start_axis": 1, "stop_axis": 2}, ref=_flatten_range),
        Case([f32(2, 3, 2)], {}, ref=_flatten_range, name="all"),
        Case([f32(2, 3, 2)], {"start_axis": -2, "stop_axis": -1}, ref=_flatten_range,
             name="negative"),
    ],
    "expand": [
        Case([f32(2, 1, 3)], {"expand_times": [1, 3, 2]},
             ref=lambda x, expand_times: np.tile(x, expand_times)),
    ],
    "tile": [
        Case([f32(2, 3)], {"repeat_times": [2, 2]}, ref=_tile),
        Case([f32(2, 3)], {"repeat_times": [2]}, ref=_tile, name="short-reps"),
        Case([f32(3)], {"repeat_times": [2, 1, 2]}, ref=_tile, name="long-reps"),
    ],
    "tile_tensor": [
        Case([f32(2, 3), np.array([2, 2], np.int64)], {"repeat_times": [-1, 2]},
             ref=lambda x, r, repeat_times: np.tile(x, r)),
        Case([f32(3), np.array([2, 1, 2], np.int32)], {"repeat_times": [-1, -1, -1]},
             ref=lambda x, r, repeat_times: np.tile(x, r), name="long-reps"),
    ],
    "expand_v2": [
        Case([f32(3, 1)], {"shape": [2, -1, 4]}, ref=_expand_v2),
        Case([f32(1, 3)], {"shape": [2, 3]}, ref=_expand_v2, name="same-rank"),
    ],
    "pad": [
        Case([f32(2, 3)], {"paddings": [1, 0, 2, 1], "pad_value": 0.5}, ref=_pad),
        Case([f32(3)], {"paddings": [0, 2]}, ref=_pad, name="1d"),
    ],
    "shape": [
        Case([f32(2, 3, 1)], ref=lambda x: np.array(x.shape, np.int32)),
        Case([np.float32(1.0).reshape(())], ref=lambda x: np.zeros(0, np.int32), name="0d"),
    ],
}


def _reshape_by(x, target, shape=None):
    dims = [int(d) for d in np.asarray(target).reshape(-1)]
    dims = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]
    return x.reshape(dims)


CASES["reshape_tensor"] = [
    Case([f32(2, 3, 2), np.array([2, -1], np.int64)], {"shape": [-1, -1]}, ref=_reshape_by),
    Case([f32(4, 3), np.array([0, 3, 1], np.int32)], {"shape": [0, -1, 1]}, ref=_reshape_by,
         name="copy-dim"),
]

"""The shape part of the functional API (``core.layers``) in eager mode, its argument errors,
and the static shape inference of the shape ops with unknown (-1) dims."""
import importlib

import numpy as np
import pytest

import core
from core import layers
from core.ops.registry import Meta, get_op

shape_layers = importlib.import_module("core.layers.shape")  # the module; layers.shape is the op

r = np.random.default_rng(5)
A = r.uniform(-1, 1, (2, 3, 4)).astype(np.float32)


def t(a, stop_gradient=True):
    return core.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


def close(got, want):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_reshape_transpose_flatten():
    close(layers.reshape(t(A), [0, -1]), A.reshape(2, 12))
    close(layers.reshape(t(A), t(np.array([4, 6]))), A.reshape(4, 6))
    close(layers.reshape(t(A), [1], actual_shape=t([3, 8])), A.reshape(3, 8))
    close(layers.transpose(t(A), [2, 0, 1]), A.transpose(2, 0, 1))
    close(layers.flatten(t(A), axis=2), A.reshape(6, 4))
    close(t(A).flatten(1), A.reshape(2, 12))
    close(t(A).reshape([4, -1]).transpose([1, 0]), A.reshape(4, 6).T)


def test_reshape_act_applies_the_activation():
    close(layers.reshape(t(A), [-1], act="abs"), np.abs(A.reshape(-1)))


def test_concat_split_stack_unstack():
    parts = layers.split(t(A), 2, dim=-1)
    assert isinstance(parts, list) and len(parts) == 2
    close(parts[1], A[..., 2:])
    parts = layers.split(t(A), [1, -1], dim=1)
    close(parts[0], A[:, :1])
    close(parts[1], A[:, 1:])
    close(layers.concat(parts, axis=1), A)
    close(layers.stack([t(A), t(A)], axis=-1), np.stack([A, A], -1))
    rows = layers.unstack(t(A), axis=1)
    assert len(rows) == 3
    close(rows[2], A[:, 2])


def test_squeeze_unsqueeze():
    b = A.reshape(2, 1, 3, 1, 4)
    close(layers.squeeze(t(b), []), A)
    close(layers.squeeze(t(b), [1]), A.reshape(2, 3, 1, 4))
    close(layers.squeeze(t(b), [0]), b)  # a dim not of size 1 stays, as in Paddle
    close(layers.unsqueeze(t(A), [0, 4]), A.reshape(1, 2, 3, 4, 1))
    close(layers.unsqueeze(t(A), -1), A[..., None])


def test_expand_tile_pad():
    close(layers.expand(t(A[:, :1]), [1, 3, 2]), np.tile(A[:, :1], (1, 3, 2)))
    close(layers.expand_as(t(A[:, :1]), t(np.zeros((4, 3, 8)))), np.tile(A[:, :1], (2, 3, 2)))
    close(layers.tile(t(A[0]), [2]), np.tile(A[0], 2))
    close(layers.pad(t(A[0]), [1, 0, 0, 2], pad_value=-3.0),
          np.pad(A[0], [(1, 0), (0, 2)], constant_values=-3.0))


def test_slices():
    close(layers.slice(t(A), axes=[0, 2], starts=[-1, 1], ends=[100, 3]), A[-1:, :, 1:3])
    close(layers.strided_slice(t(A), [1, 2], [2, 0], [-4, 4], [-1, 2]), A[:, 2::-1, 0:4:2])


def test_gather_scatter_gather_nd():
    close(layers.gather(t(A), t([1, 1, 0])), A[[1, 1, 0]])
    close(layers.gather(t(A), t([[1], [0]])), A[[1, 0]])
    close(layers.gather_nd(t(A), t([[0, 2], [1, 0]])), A[[0, 1], [2, 0]])
    upd = np.ones((2, 3, 4), np.float32)
    out = layers.scatter(t(A), t([1, 1]), t(upd), overwrite=False)
    close(out, np.stack([A[0], 2 * upd[0]]))


def test_gradients_through_the_functional_api():
    x = t(A, stop_gradient=False)
    y = layers.concat([layers.gather(x, t([1, 1])), layers.slice(x, [0], [0], [1])], axis=0)
    layers.reshape(layers.transpose(y, [2, 1, 0]), [-1]).sum().backward()
    np.testing.assert_allclose(x.gradient(), np.stack([np.ones((3, 4)), 2 * np.ones((3, 4))]))


def test_gradients_through_list_outputs():
    """split / unstack return lists; the tape routes each part's gradient back (unused parts
    contribute zeros)."""
    x = t(A, stop_gradient=False)
    a, b, _ = layers.split(x, [1, 2, 1], dim=2)
    rows = layers.unstack(b, axis=1)
    loss = (a * 3.0).sum() + layers.stack([rows[0], rows[2] * 2.0], axis=0).sum()
    loss.backward()
    want = np.zeros_like(A)
    want[..., 0] = 3.0
    want[:, 0, 1:3] = 1.0
    want[:, 2, 1:3] = 2.0
    np.testing.assert_allclose(x.gradient(), want)


def test_shape_one_hot_where():
    s = shape_layers.shape(t(A))
    assert s.dtype == np.int32 and s.numpy().tolist() == [2, 3, 4]
    oh = layers.one_hot(t(np.array([[2], [0]])), depth=3)
    close(oh, np.array([[0, 0, 1], [1, 0, 0]], np.float32))
    assert oh.dtype == np.float32
    close(layers.one_hot(t(np.array([1, 3])), 4), np.eye(4, dtype=np.float32)[[1, 3]])
    close(layers.one_hot(t(np.array([[1, 5]])), 4, allow_out_of_range=True),
          np.array([[[0, 1, 0, 0], [0, 0, 0, 0]]], np.float32))
    cond = t(A > 0)
    close(layers.where(cond, t(A), t(np.zeros_like(A))), np.where(A > 0, A, 0))


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda x: layers.reshape(x, [5, -1]), ValueError,
     r"reshape\(\): argument 'shape'.*input of shape \[2, 3, 4\] \(24 elements\) to \[5, -1\]"),
    (lambda x: layers.reshape(x, [4, 4]), ValueError,
     r"reshape\(\): argument 'shape'.*\[2, 3, 4\] \(24 elements\) to \[4, 4\] \(16 elements\)"),
    (lambda x: layers.reshape(x, [-1, -1]), ValueError, r"reshape.*one -1"),
    (lambda x: layers.reshape(x, [2, 0.5]), TypeError, (r"reshape\(\): argument 'shape' must "
                                                        r"hold ints or 1-element int tensors")),
    (lambda x: layers.reshape(x, 6), TypeError, r"reshape\(\): argument 'shape' must be a list"),
    (lambda x: layers.transpose(x, [1, 0]), ValueError,
     (r"transpose\(\): argument 'perm'=\[1, 0\] must be a permutation of the 3 dims of x "
      r"\(shape \[2, 3, 4\]\)")),
    (lambda x: layers.transpose(x, [0, 0, 1]), ValueError, r"transpose\(\): argument 'perm'"),
    (lambda x: layers.concat([x, x[:, :1, :2]], axis=1), ValueError,
     r"concat\(\).*equal shapes except along axis 1, got \[\[2, 3, 4\], \[2, 1, 2\]\]"),
    (lambda x: layers.concat([x], axis=3), ValueError,
     r"concat\(\): argument 'axis'=3 is out of range for a tensor of rank 3"),
    (lambda x: layers.split(x, [1, 1], dim=2), ValueError,
     (r"split\(\): argument 'num_or_sections'.*sections \[1, 1\] do not add up to the dim size "
      r"4")),
    (lambda x: layers.split(x, 3, dim=2), ValueError,
     r"split\(\).*shape \[2, 3, 4\] along dim 2.*does not split into 3 equal parts"),
    (lambda x: layers.split(x, 2, dim=5), ValueError, r"split\(\): argument 'dim'=5"),
    (lambda x: layers.stack([x, x[0]]), ValueError, r"stack\(\).*equal shapes"),
    (lambda x: layers.unstack(x, axis=1, num=2), ValueError, r"unstack\(\): argument 'num'=2"),
    (lambda x: layers.squeeze(x, [3]), ValueError, r"squeeze\(\): argument 'axes'=3"),
    (lambda x: layers.unsqueeze(x, [5]), ValueError, r"unsqueeze\(\): argument 'axes'=5"),
    (lambda x: layers.flatten(x, 4), ValueError, (r"flatten\(\): argument 'axis'=4 must be in "
                                                 r"\[0, 3\]")),
    (lambda x: layers.expand(x, [2, 2]), ValueError,
     r"expand\(\): argument 'expand_times'=\[2, 2\] must be 3 positive ints"),
    (lambda x: layers.tile(x, [0]), ValueError, r"tile\(\): argument 'repeat_times'"),
    (lambda x: layers.expand_as(x, x[:, :2]), ValueError, (r"expand_as\(\).*\[2, 2, 4\].*"
                                                          r"\[2, 3, 4\]")),
    (lambda x: layers.slice(x, [0, 1], [0], [1, 2]), ValueError,
     (r"slice\(\): 'axes' \[0, 1\] \(distinct\), 'starts' \[0\], 'ends' \[1, 2\] must have the "
      r"same length")),
    (lambda x: layers.slice(x, [4], [0], [1]), ValueError, r"slice\(\): argument 'axes'=4"),
    (lambda x: layers.strided_slice(x, [0], [0], [1], [0]), ValueError,
     r"strided_slice\(\): argument 'strides'=\[0\] holds a 0"),
    (lambda x: layers.gather(x, t([0.0])), TypeError,
     r"gather\(\): argument 'index' has dtype float64"),
    (lambda x: layers.gather(x, t([[0, 1]])), ValueError, (r"gather\(\): argument 'index' must "
                                                          r"have shape \[N\] or \[N, 1\]")),
    (lambda x: layers.gather_nd(x, t([[0, 0, 0, 0]])), ValueError, r"gather_nd\(\)"),
    (lambda x: layers.scatter(x, t([0]), x), ValueError,
     r"scatter\(\): argument 'updates'.*\[2, 3, 4\].*expected \[1, 3, 4\]"),
    (lambda x: layers.one_hot(x, 3), TypeError, r"one_hot\(\): argument 'input' has dtype"),
    (lambda x: layers.where(x, x, x), TypeError, (r"where\(\): argument 'condition' has dtype "
                                                 r"float32")),
    (lambda x: layers.pad(x, [1, 1]), ValueError,
     (r"pad\(\): argument 'paddings'=\[1, 1\] must hold 2 non-negative ints per dim of x "
      r"\(shape \[2, 3, 4\]\), i.e. 6")),
    (lambda x: layers.concat("x"), TypeError, r"concat\(\): argument 'input' must be"),
])
def test_argument_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(t(A))


def test_runtime_errors_name_the_ids():
    with pytest.raises(core.errors.OpError, match=r"index 3 is out of range \[0, 3\)"):
        layers.one_hot(t(np.array([0, 3])), depth=3)
    with pytest.raises(core.errors.OpError, match=r"gather along axis 0 of \[2, 3, 4\]: index 2"):
        layers.gather(t(A), t([2]))
    with pytest.raises(core.errors.OpError, match=r"scatter into \[2, 3, 4\]: index -1"):
        layers.scatter(t(A), t([-1]), t(A[:1]))


def infer(op_type, *shapes, dtype=np.float32, **attrs):
    op = get_op(op_type)
    metas = [[Meta(tuple(s), np.dtype(dtype)) for s in x] if isinstance(x, list)
             else Meta(tuple(x), np.dtype(dtype)) for x in shapes]
    out = op.infer(*metas, **op.full_attrs(attrs))
    return [m.shape for m in out] if isinstance(out, list) else out.shape


@pytest.mark.parametrize("op_type,shapes,attrs,want", [
    ("reshape", [(-1, 3, 4)], {"shape": [0, -1]}, (-1, 12)),
    ("reshape", [(-1, 3, 4)], {"shape": [-1, 6]}, (-1, 6)),
    ("reshape", [(2, 3, 4)], {"shape": [4, -1]}, (4, 6)),
    ("transpose", [(-1, 3)], {"axis": [1, 0]}, (3, -1)),
    ("concat", [[(-1, 3), (2, 3)]], {"axis": 0}, (-1, 3)),
    ("concat", [[(-1, 3), (2, 3)]], {"axis": 1}, (2, 6)),
    ("split", [(-1, 6)], {"sections": [2, -1], "axis": 1}, [(-1, 2), (-1, 4)]),
    ("split", [(-1, 6)], {"num": 2, "axis": 0}, [(-1, 6), (-1, 6)]),
    ("stack", [[(-1, 3), (-1, 3)]], {"axis": 1}, (-1, 2, 3)),
    ("unstack", [(-1, 2)], {"axis": 1}, [(-1,), (-1,)]),
    ("squeeze", [(-1, 1, 3)], {"axes": []}, (-1, 3)),
    ("unsqueeze", [(-1, 3)], {"axes": [0, 3]}, (1, -1, 3, 1)),
    ("flatten", [(-1, 3, 4)], {"axis": 1}, (-1, 12)),
    ("flatten_contiguous_range", [(-1, 3, 4)], {"start_axis": 1}, (-1, 12)),
    ("expand", [(-1, 2)], {"expand_times": [2, 3]}, (-1, 6)),
    ("tile", [(-1, 2)], {"repeat_times": [2, 2, 1]}, (2, -1, 2)),
    ("expand_v2", [(-1, 1)], {"shape": [-1, 5]}, (-1, 5)),
    ("pad", [(-1, 2)], {"paddings": [1, 1, 0, 2]}, (-1, 4)),
    ("shape", [(-1, 2, 3)], {}, (3,)),
    ("slice", [(-1, 5)], {"axes": [0, 1], "starts": [0, 1], "ends": [2, -1]}, (-1, 3)),
    ("strided_slice", [(-1, 5)], {"axes": [1], "starts": [4], "ends": [0], "strides": [-2]},
     (-1, 2)),
    ("gather", [(-1, 3), (4,)], {}, (4, 3)),
    ("gather_nd", [(-1, 3, 2), (5, 2)], {}, (5, 2)),
    ("scatter", [(-1, 3), (4,), (4, 3)], {}, (-1, 3)),
    ("one_hot", [(-1,)], {"depth": 5}, (-1, 5)),
    ("where", [(-1, 1), (1, 3), (2, 1)], {}, (2, 3)),
])
def test_static_inference_with_unknown_dims(op_type, shapes, attrs, want):
    assert infer(op_type, *shapes, **attrs) == want


def test_static_inference_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"cannot reshape input of shape \[2, 3\] \(6 "
                                         r"elements\) to \[4\]"):
        infer("reshape", (2, 3), shape=[4])
    with pytest.raises(ValueError, match=r"unstack: num=None does not fit dim 0 of shape "
                                         r"\[-1, 2\]"):
        infer("unstack", (-1, 2), axis=0)
    with pytest.raises(ValueError, match=r"concat: input shapes \[\[2, 3\], \[2, 4\]\] differ "
                                         r"at dim 1"):
        infer("concat", [(2, 3), (2, 4)], axis=0)


def test_static_reshape_with_a_variable_dim_reads_it_at_run_time():
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 2, 3], "float32")
            n = layers.shape(x)[0]
            y = x.reshape([n, -1])
            with pytest.raises(TypeError, match=r"'shape\[0\]' must be an int or a 1-element "
                                                r"int tensor, got a float32 tensor"):
                layers.reshape(x, [layers.cast(n, "float32"), -1])
        finally:
            core.disable_static()
    assert y.shape == [-1, -1]
    exe = core.Executor(core.CPUPlace())
    for batch in (1, 4):
        xv = np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3)
        got, = exe.run(main, feed={"x": xv}, fetch_list=[y])
        np.testing.assert_array_equal(got, xv.reshape(batch, 6))

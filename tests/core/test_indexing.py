"""Eager ``Tensor.__getitem__`` against numpy: values, gradients through ``Tensor.backward``,
static shape inference of the ``getitem`` op, and error messages."""
import numpy as np
import pytest

import core
from core.indexing import encode_index
from core.ops.indexing import getitem_shape

X = np.arange(24, dtype=np.float64).reshape(3, 4, 2) / 7.0 - 1.0
MASK = X > 0.3


def t(a):
    return core.to_tensor(np.asarray(a))


# (name, index for the Tensor, the same index for numpy)
INDEXES = [
    ("int", lambda: 1, 1),
    ("negative-int", lambda: -1, -1),
    ("slice", lambda: slice(1, 3), slice(1, 3)),
    ("slice-step", lambda: (slice(None), slice(None, None, 2)),
     (slice(None), slice(None, None, 2))),
    ("slice-negative-step", lambda: (slice(None, None, -2), 0), (slice(None, None, -2), 0)),
    ("slice-clamped", lambda: slice(-10, 10), slice(-10, 10)),
    ("none", lambda: (None, 0), (None, 0)),
    ("ellipsis", lambda: (Ellipsis, 1), (Ellipsis, 1)),
    ("tuple-mix", lambda: (2, None, slice(1, None), -1), (2, None, slice(1, None), -1)),
    ("int-tensor", lambda: t([2, 0, 2]), np.array([2, 0, 2])),
    ("int-tensor-2d", lambda: (slice(None), t([[0, 3], [3, 3]])), (slice(None), [[0, 3], [3, 3]])),
    ("0d-int-tensor", lambda: t(2), 2),
    ("bool-mask", lambda: t(MASK), MASK),
    ("bool-mask-2d", lambda: (t(MASK[..., 0]), 1), (MASK[..., 0], 1)),
    ("list", lambda: [0, 0, 2], [0, 0, 2]),
    ("ndarray", lambda: (slice(None), np.array([1, -1])), (slice(None), np.array([1, -1]))),
    ("int-and-tensor-apart", lambda: (0, slice(None), t([1, 0])), (0, slice(None), [1, 0])),
    ("tensors-adjacent", lambda: (slice(None), t([1, 2]), t([0, 1])),
     (slice(None), [1, 2], [0, 1])),
    ("tensor-slice-bound", lambda: slice(t([1]), t(3)), slice(1, 3)),
]


def _grad_oracle(index, w):
    """d sum(x[index] * w) / dx by counting: which element of X each output element is."""
    ids = np.arange(X.size).reshape(X.shape)[index]
    return np.bincount(np.ravel(ids), weights=np.ravel(w), minlength=X.size).reshape(X.shape)


@pytest.mark.parametrize("name,make,np_index", INDEXES, ids=[c[0] for c in INDEXES])
def test_getitem_matches_numpy(name, make, np_index):
    x = core.to_tensor(X, stop_gradient=False)
    y = x[make()]
    want = X[np_index]
    assert y.shape == list(np.shape(want))
    assert y.dtype == want.dtype
    np.testing.assert_allclose(y.numpy(), want)
    w = np.random.default_rng(0).standard_normal(np.shape(want))
    (y * core.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(x.gradient(), _grad_oracle(np_index, w), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,make,np_index", INDEXES, ids=[c[0] for c in INDEXES])
def test_static_shape_inference_matches_eager(name, make, np_index):
    items, tensors = encode_index(make(), None)
    tinfo = [(tuple(a.shape), np.dtype(a.dtype).kind == "b") for a in tensors]
    got = getitem_shape(X.shape, items, tinfo)
    want = np.shape(X[np_index])
    if name.startswith("bool"):  # the number of True entries is unknown statically
        assert got == tuple(-1 if i == 0 else d for i, d in enumerate(want))
    else:
        assert got == want


@pytest.mark.parametrize("shape,index,want", [
    ((-1, 4, 2), (slice(None), 1), (-1, 2)),
    ((-1, 4, 2), (slice(0, 2), slice(1, 3)), (-1, 2, 2)),
    ((-1, 4), (0, slice(None, None, 2)), (2,)),
    ((5, -1), (Ellipsis, None, 1), (5, 1)),
    ((-1, 3), (None, slice(None), np.array([0, 2])), (1, -1, 2)),
])
def test_static_shape_inference_with_unknown_dims(shape, index, want):
    items, tensors = encode_index(index, None)
    tinfo = [(tuple(a.shape), a.dtype.kind == "b") for a in tensors]
    assert getitem_shape(shape, items, tinfo) == want


def test_static_inference_checks_known_dims():
    items, _ = encode_index((slice(None), 7), None)
    with pytest.raises(IndexError, match=r"index 7 .*axis 1 with size 4.*\[-1, 4\]"):
        getitem_shape((-1, 4), items, [])


def test_result_is_a_copy_not_a_view():
    x = core.to_tensor(X)
    y = x[0]
    y.set_value(np.zeros(y.shape))
    np.testing.assert_allclose(x.numpy(), X)


def test_encoding_is_plain_data():
    items, tensors = encode_index((1, slice(None, 3), None, Ellipsis, [0, 1]), None)
    assert items == [{"kind": "int", "value": 1},
                     {"kind": "slice", "start": None, "stop": 3, "step": None},
                     {"kind": "none"}, {"kind": "ellipsis"}, {"kind": "tensor", "input": 0}]
    assert isinstance(tensors[0], np.ndarray) and tensors[0].tolist() == [0, 1]


def test_iteration_uses_getitem():
    rows = [r.numpy() for r in core.to_tensor(X)]
    assert len(rows) == 3
    np.testing.assert_allclose(rows[2], X[2])


@pytest.mark.parametrize("index,exc,pattern", [
    (5, IndexError, r"index 5 is out of range for axis 0 with size 3 \(tensor shape \[3, 4, 2\]\)"),
    ((0, -5), IndexError, r"index -5 is out of range for axis 1 with size 4"),
    ((Ellipsis, 2), IndexError, r"index 2 is out of range for axis 2 with size 2"),
    ((0, 0, 0, 0), IndexError, r"too many indices for a tensor of shape \[3, 4, 2\]"),
    ((Ellipsis, 0, Ellipsis), IndexError, r"single ellipsis"),
    (1.5, TypeError, r"unsupported index 1.5 of type float"),
    (True, TypeError, r"Python bool"),
    (slice(0, 2, 0), ValueError, r"slice step cannot be zero"),
    (slice(0.5, 2), TypeError, r"slice start must be an int"),
])
def test_index_errors(index, exc, pattern):
    with pytest.raises(exc, match=pattern):
        core.to_tensor(X)[index]


def test_tensor_index_errors():
    x = core.to_tensor(X)
    with pytest.raises(IndexError, match=r"index 3 \(in an index tensor\) is out of range for "
                                         r"axis 0 with size 3 \(tensor shape \[3, 4, 2\]\)"):
        x[t([0, 3])]
    with pytest.raises(IndexError, match=r"bool mask of shape \[3, 3\] does not match dims "
                                         r"\[3, 4\]"):
        x[t(np.ones((3, 3), bool))]
    with pytest.raises(TypeError, match=r"must hold ints or bools, got float64 of shape \[2\]"):
        x[t([0.0, 1.0])]
    with pytest.raises(TypeError, match=r"slice stop must be an int or a 1-element int tensor, "
                                        r"got a int64 tensor of shape \[2\]"):
        x[:t([1, 2])]


class _FakeVariable:
    """Just enough of a static Variable for the encoder to recognise one."""

    shape, dtype, stop_gradient, name, block = [1], np.dtype("int64"), True, "n", object()


def test_static_variable_slice_bound_is_an_error():
    with pytest.raises(TypeError, match=r"slice stop is a static Variable \('n'\)"):
        encode_index(slice(0, _FakeVariable()), None)


def test_static_getitem_appends_one_op_with_inferred_shape():
    from core.static.program import Program, program_guard

    main = Program()
    core.enable_static()
    try:
        with program_guard(main, Program()):
            x = main.global_block().create_var(name="x", shape=[-1, 4, 2], dtype="float32")
            y = x[:, 1:3, np.array([0, 1, 1])]
            z = x[..., 0]
            with pytest.raises(IndexError, match=r"index 4 is out of range for axis 1 with "
                                                 r"size 4 \(tensor shape \[-1, 4, 2\]\)"):
                x[0, 4]
    finally:
        core.disable_static()
    assert list(y.shape) == [-1, 2, 3] and list(z.shape) == [-1, 4]
    ops = [op.type for op in main.global_block().ops]
    assert ops.count("getitem") == 2

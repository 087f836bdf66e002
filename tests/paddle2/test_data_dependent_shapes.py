"""``masked_select``, ``nonzero`` and one-argument ``where(cond)``: results whose size depends on
the values. Eagerly, in a static Program (the Variable's data-dependent dim is -1 while the
program is built, the run gives the real shape), in a ``declarative`` function, with the
gradient of ``masked_select`` flowing back to ``x``, and exported to ONNX."""
import numpy as np
import pytest

import core
import dy2static as paddle
from core import static
from translator import InputSpec, declarative

X = np.array([[0.5, -1.0, 2.0, 0.0], [-3.0, 4.0, 0.25, -0.5], [1.5, 0.0, -2.5, 3.0]], "float32")


def select_fn(x):
    picked = paddle.masked_select(x, x > 0)
    return (picked * picked).sum(), picked, paddle.nonzero(x > 0), paddle.where(x < 0)


def _want():
    pos = X[X > 0]
    return (pos * pos).sum(), pos, np.argwhere(X > 0), np.nonzero(X < 0)


def _check(got_sum, got_pick, got_nz, got_parts):
    s, pos, nz, parts = _want()
    np.testing.assert_allclose(np.asarray(got_sum).reshape(()), s, rtol=1e-6)
    np.testing.assert_array_equal(got_pick, pos)
    assert np.asarray(got_nz).dtype == np.int64
    np.testing.assert_array_equal(got_nz, nz)
    assert len(got_parts) == 2
    for got, want in zip(got_parts, parts):
        assert np.shape(got) == (len(want), 1)
        np.testing.assert_array_equal(np.asarray(got)[:, 0], want)


def test_eager_values_and_gradient():
    x = paddle.to_tensor(X, stop_gradient=False)
    s, pick, nz, parts = select_fn(x)
    _check(s.numpy(), pick.numpy(), nz.numpy(), [p.numpy() for p in parts])
    s.backward()
    np.testing.assert_allclose(x.gradient(), np.where(X > 0, 2 * X, 0), rtol=1e-6)


def test_static_program_has_minus_one_dims_and_runs_with_the_real_shape():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), core.mode.static_mode_guard():
        x = static.data("x", [3, 4], "float32")
        x.stop_gradient = False
        s, pick, nz, parts = select_fn(x)
        (gx,) = static.gradients([s], [x])
    assert list(pick.shape) == [-1]
    assert list(nz.shape) == [-1, 2]
    assert [list(p.shape) for p in parts] == [[-1, 1], [-1, 1]]
    exe = static.Executor(core.CPUPlace())
    for data in (X, -X, np.zeros_like(X)):
        got = exe.run(main, feed={"x": data}, fetch_list=[s, pick, nz] + list(parts) + [gx])
        np.testing.assert_array_equal(got[1], data[data > 0])
        np.testing.assert_array_equal(got[2], np.argwhere(data > 0))
        np.testing.assert_allclose(got[-1], np.where(data > 0, 2 * data, 0), rtol=1e-6)
    got = exe.run(main, feed={"x": X}, fetch_list=[s, pick, nz] + list(parts))
    _check(got[0], got[1], got[2], got[3:])


def test_declarative_equals_eager_with_gradient():
    fn = declarative(select_fn, full_graph=True)
    x = paddle.to_tensor(X, stop_gradient=False)
    s, pick, nz, parts = fn(x)
    _check(s.numpy(), pick.numpy(), nz.numpy(), [p.numpy() for p in parts])
    s.backward()
    np.testing.assert_allclose(x.gradient(), np.where(X > 0, 2 * X, 0), rtol=1e-6)
    other = -X  # the same program, another count
    _, pick2, nz2, _ = fn(paddle.to_tensor(other))
    np.testing.assert_array_equal(pick2.numpy(), other[other > 0])
    np.testing.assert_array_equal(nz2.numpy(), np.argwhere(other > 0))


def test_masked_select_broadcasts_the_mask_and_sums_the_gradient_of_a_broadcast_x():
    row = paddle.to_tensor(X[:1], stop_gradient=False)        # [1, 4] against a [3, 4] mask
    mask = paddle.to_tensor(X > 0)
    out = paddle.masked_select(row, mask)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(X[:1], X.shape)[X > 0])
    out.sum().backward()
    np.testing.assert_array_equal(row.gradient(), (X > 0).sum(0, keepdims=True))
    col = paddle.masked_select(paddle.to_tensor(X), paddle.to_tensor(np.array([True, False,
                                                                               False, True])))
    np.testing.assert_array_equal(col.numpy(), X[:, [0, 3]].reshape(-1))


def test_tensor_method_spelling():
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(x.masked_select(x > 1).numpy(), X[X > 1])


def test_exported_to_onnx_runs_in_onnxruntime(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import translator.onnx as tonnx

    class Net(paddle.nn.Layer):
        def forward(self, x):
            picked = paddle.masked_select(x, x > 0)
            return picked.sum(), picked * 2.0, paddle.nonzero(x < 0)

    path = tmp_path / "select.onnx"
    tonnx.export(Net(), path, input_spec=[InputSpec([None, 4], "float32", "x")])
    onnx.checker.check_model(onnx.load(str(path)))
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for data in (X, X[:1], -X):
        total, doubled, neg = sess.run(None, {"x": data})
        np.testing.assert_allclose(np.asarray(total).reshape(()), data[data > 0].sum(),
                                   rtol=1e-6)
        np.testing.assert_allclose(doubled, data[data > 0] * 2, rtol=1e-6)
        np.testing.assert_array_equal(neg, np.argwhere(data < 0))

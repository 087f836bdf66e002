"""Calls that work eagerly work in static mode, with the same meaning: ``no_grad`` (ops built
under it give no gradient), the train mode that fluid ``dropout`` / ``batch_norm`` with
``is_test=None`` follow, ``to_tensor`` of lists (tensors inside too), ``sequence_mask`` with a
tensor ``maxlen`` and ``concat``'s 2.0 keyword ``x``. Each static case is built under
``program_guard`` and run by ``core.Executor``, and compared with the eager result."""
import numpy as np
import pytest

import core
from core import layers
from core.static import backward


def _static(build, feed=None):
    """``build()`` in static mode under a fresh Program; returns (fetched arrays, program,
    the built outputs)."""
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            outs = build()
        finally:
            core.disable_static()
    exe = core.Executor(core.CPUPlace())
    scope = core.static.Scope()
    exe.run(startup, scope=scope)
    fetched = exe.run(main, feed=feed or {}, fetch_list=list(outs), scope=scope)
    return fetched, main, outs


# -- no_grad ----------------------------------------------------------------------------------

def test_static_no_grad_outputs_stop_gradient_and_backward_skips_them():
    # fluid's no_grad example: tmp = l1.weight * 2 under no_grad; y = l0(x) + tmp; o = l1(y)
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [2, 2], "float32")
            w0 = core.static.create_parameter([2, 2], "float32", name="w0")
            w1 = core.static.create_parameter([2, 2], "float32", name="w1")
            with core.no_grad():
                tmp = w1 * 2
                inner = layers.matmul(x, w0)
            assert tmp.stop_gradient and inner.stop_gradient
            y = layers.matmul(x, w0) + tmp + inner
            loss = layers.reduce_sum(layers.matmul(y, w1))
            assert not y.stop_gradient
            grads = dict((p.name, g) for p, g in backward.append_backward(loss))
        finally:
            core.disable_static()
    # w1 gets its gradient from matmul(y, w1) only; w0 from the first matmul only
    exe, scope = core.Executor(core.CPUPlace()), core.static.Scope()
    exe.run(startup, scope=scope)
    xv = np.array([[2, 3], [4, 5]], np.float32)
    g0, g1, w0v, w1v = exe.run(main, feed={"x": xv},
                               fetch_list=[grads["w0"], grads["w1"], "w0", "w1"], scope=scope)
    yv = xv @ w0v + 2 * w1v + xv @ w0v
    ones = np.ones([2, 2], np.float32)
    np.testing.assert_allclose(g1, yv.T @ ones, rtol=1e-5)
    np.testing.assert_allclose(g0, xv.T @ (ones @ w1v.T), rtol=1e-5)


def test_static_no_grad_is_cut_for_gradients_too():
    # as PaddlePaddle's static gradients() asks: the input says it needs a gradient
    def build():
        x = core.static.data("x", [3], "float32")
        x.stop_gradient = False
        with core.no_grad():
            frozen = x * 3
        y = layers.reduce_sum(x * x + frozen)
        return backward.gradients([y], [x])

    (gx,), _, _ = _static(build, {"x": np.array([1, 2, 3], np.float32)})
    np.testing.assert_allclose(gx, [2, 4, 6])


def test_static_mode_guard_turns_gradients_on_inside():
    with core.no_grad():
        with core.mode.static_mode_guard():
            assert core.autograd.is_grad_enabled()
            with core.no_grad():
                assert not core.autograd.is_grad_enabled()
        assert not core.autograd.is_grad_enabled()
    assert core.autograd.is_grad_enabled()


def test_no_grad_decorator_in_static_mode():
    @core.dygraph.no_grad
    def frozen(v):
        return v * 2

    def build():
        x = core.static.data("x", [2], "float32")
        x.stop_gradient = False
        return [frozen(x), x * 2]

    _, _, (a, b) = _static(build, {"x": np.ones(2, np.float32)})
    assert a.stop_gradient and not b.stop_gradient


# -- train mode -------------------------------------------------------------------------------

class _Fluid(core.nn.Layer):
    """Functional fluid calls inside forward, is_test left to the Layer's mode."""

    def forward(self, x):
        return layers.dropout(x, 0.5, seed=3)


class _Outer(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Fluid()

    def forward(self, x):
        return self.inner(x), layers.dropout(x, 0.5, seed=3)


def test_dropout_is_test_none_follows_the_calling_layer():
    x = core.to_tensor(np.ones([4, 16], np.float32))
    net = _Outer()
    inner, outer = net(x)
    assert set(np.unique(inner.numpy())) <= {0.0, 1.0} and (inner.numpy() == 0).any()
    net.eval()
    inner, outer = net(x)
    np.testing.assert_allclose(inner.numpy(), 0.5)
    np.testing.assert_allclose(outer.numpy(), 0.5)
    net.inner.train()  # the sublayer's own flag wins inside it
    inner, outer = net(x)
    assert (inner.numpy() == 0).any()
    np.testing.assert_allclose(outer.numpy(), 0.5)
    # outside every Layer call: the default train mode, not the last eval() (no leak)
    assert core.mode.in_train_mode()
    assert (layers.dropout(x, 0.5, seed=3).numpy() == 0).any()
    with core.mode.train_mode_guard(False):
        np.testing.assert_allclose(layers.dropout(x, 0.5).numpy(), 0.5)
    assert core.mode.in_train_mode()


def test_dropout_is_test_none_in_static_mode_follows_train_mode():
    def build(training):
        x = core.static.data("x", [2, 8], "float32")
        with core.mode.train_mode_guard(training):
            return [layers.dropout(x, 0.5)]

    for training in (True, False):
        _, main, _ = _static(lambda t=training: build(t), {"x": np.ones([2, 8], np.float32)})
        (op,) = [op for op in main.global_block().ops if op.type == "dropout"]
        assert op.attrs["is_test"] is (not training)


def test_batch_norm_is_test_none_follows_the_layer():
    class BN(core.nn.Layer):
        def forward(self, x):
            return layers.batch_norm(x, is_test=None, name="bn_follow")

    x = core.to_tensor(np.arange(24, dtype=np.float32).reshape(4, 3, 2) / 10)
    net = BN()
    train_out = net(x).numpy()
    # batch statistics: each channel normalised to mean 0
    np.testing.assert_allclose(train_out.mean(axis=(0, 2)), 0, atol=1e-5)
    net.eval()
    eval_out = net(x).numpy()  # running statistics: after one step mostly the initial 0 / 1
    assert not np.allclose(eval_out, train_out, atol=1e-3)


def test_is_test_must_be_a_bool_or_none():
    x = core.to_tensor(np.ones([2, 2], np.float32))
    with pytest.raises(TypeError, match=r"dropout.*'is_test' must be a bool"):
        layers.dropout(x, 0.5, is_test="yes")


# -- to_tensor --------------------------------------------------------------------------------

_TO_TENSOR_CASES = [
    ([1, 2], None),
    ([1, 2], "int32"),
    ([1.5, 2.0], None),
    ([[1, 2], [3, 4]], "float32"),
    (3, None),
    (2.5, None),
    (np.array([1.0, 2.0]), None),  # an ndarray keeps float64
]


@pytest.mark.parametrize("data,dtype", _TO_TENSOR_CASES)
def test_to_tensor_of_python_data_in_static_mode(data, dtype):
    eager = core.to_tensor(data, dtype=dtype).numpy()
    (got,), _, _ = _static(lambda: [core.to_tensor(data, dtype=dtype)])
    assert got.dtype == eager.dtype and got.shape == eager.shape
    np.testing.assert_array_equal(got, eager)


def test_to_tensor_of_a_list_of_tensors_in_static_mode():
    xv = np.array([3, 4], np.int64)
    fv = np.array([[0.5], [1.5]], np.float32)

    def compute(x, f):
        t0, t1 = x[0] * 2, x[1] * 3
        return [core.to_tensor([t0, t1]),                 # 0-d int64 -> [2] int64
                core.to_tensor([[t0, 1], [t1, 2]]),       # nested, numbers among them
                core.to_tensor([f[0], f[1]]),             # [1] float32 -> [2, 1]
                core.to_tensor([t0, 2.5]),                # int64 and a float -> float32
                core.to_tensor([f[0], f[1]], dtype="float64")]

    eager = [t.numpy() for t in compute(core.to_tensor(xv), core.to_tensor(fv))]

    def build():
        return compute(core.static.data("x", [2], "int64"), core.static.data("f", [2, 1],
                                                                            "float32"))

    got, _, outs = _static(build, {"x": xv, "f": fv})
    for e, g in zip(eager, got):
        assert (g.dtype, g.shape) == (e.dtype, e.shape)
        np.testing.assert_allclose(g, e)
    assert all(o.stop_gradient for o in outs)


def test_to_tensor_of_tensors_is_a_copy_without_gradient():
    # eager: to_tensor copies; the copy is a new leaf, so x gets no gradient through it
    def build():
        x = core.static.data("x", [2], "float32")
        x.stop_gradient = False
        y = layers.reduce_sum(core.to_tensor([x[0], x[1]]) * x)
        return backward.gradients([y], [x])

    (gx,), _, _ = _static(build, {"x": np.array([2, 5], np.float32)})
    np.testing.assert_allclose(gx, [2, 5])


def test_to_tensor_list_of_tensors_rejects_other_objects():
    def build():
        x = core.static.data("x", [2], "float32")
        return [core.to_tensor([x[0], "a"])]

    with pytest.raises(TypeError, match=r"to_tensor: a list holding tensors.*str"):
        _static(build)


# -- sequence_mask ----------------------------------------------------------------------------

def test_sequence_mask_with_a_tensor_maxlen():
    lv, xv = np.array([1, 3, 0], np.int64), np.zeros([3, 5], np.float32)
    expected = (np.arange(5) < lv[:, None]).astype(np.int64)
    eager = layers.sequence_mask(core.to_tensor(lv), maxlen=layers.shape(core.to_tensor(xv))[1])
    np.testing.assert_array_equal(eager.numpy(), expected)

    def build():
        lengths = core.static.data("lengths", [3], "int64")
        x = core.static.data("x", [3, -1], "float32")
        out = layers.sequence_mask(lengths, maxlen=layers.shape(x)[1], dtype="float32")
        assert out.shape == [3, -1]
        return [out]

    (got,), _, _ = _static(build, {"lengths": lv, "x": xv})
    np.testing.assert_array_equal(got, expected.astype(np.float32))
    # a longer x in the same program: the width follows the fed value
    (got,), _, _ = _static(build, {"lengths": lv, "x": np.zeros([3, 7], np.float32)})
    assert got.shape == (3, 7)


def test_sequence_mask_maxlen_errors_name_the_argument():
    lengths = core.to_tensor(np.array([1, 2], np.int64))
    with pytest.raises(TypeError, match=r"sequence_mask.*'maxlen'"):
        layers.sequence_mask(lengths, maxlen=core.to_tensor(np.array(2.0, np.float32)))
    with pytest.raises(ValueError, match=r"sequence_mask.*'maxlen' must be an int or a "
                                         r"one-element"):
        layers.sequence_mask(lengths, maxlen=core.to_tensor(np.array([2, 3], np.int64)))


# -- concat -----------------------------------------------------------------------------------

def test_concat_takes_the_2_0_keyword_x():
    av = np.arange(4, dtype=np.float32).reshape(2, 2)
    expected = np.concatenate([av, av], axis=1)
    a = core.to_tensor(av)
    for out in (core.concat(x=[a, a], axis=1), layers.concat(x=[a, a], axis=1),
                layers.concat(input=[a, a], axis=1), layers.concat([a, a], 1)):
        np.testing.assert_array_equal(out.numpy(), expected)

    def build():
        s = core.static.data("a", [2, 2], "float32")
        return [core.concat(x=[s, s], axis=1), layers.concat(x=[s, s], axis=1)]

    got, _, _ = _static(build, {"a": av})
    for g in got:
        np.testing.assert_array_equal(g, expected)


def test_concat_input_and_x_together_is_an_error():
    a = core.to_tensor(np.ones([1], np.float32))
    with pytest.raises(TypeError, match=r"concat.*'input' or as 'x', not both"):
        layers.concat([a], x=[a])
    with pytest.raises(TypeError, match=r"concat.*argument 'input' \(or 'x'\)"):
        layers.concat(axis=0)

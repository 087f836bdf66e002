"""append_backward / gradients on plain programs: names, accumulation, stop_gradient,
no_grad_set, and agreement with central differences and with eager autograd."""
import numpy as np
import pytest

import core
from core import layers, static
from core.mode import static_mode_guard
from core.static import builder


def build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        out = fn()
    return main, startup, out


def _param(name, value):
    value = np.asarray(value, np.float64)
    return builder.append_parameter(name, list(value.shape), "float64",
                                    init=("assign_value", {"shape": list(value.shape),
                                                           "dtype": "float64",
                                                           "values": value.ravel().tolist()}))


W0 = np.array([[0.5, -1.0], [2.0, 0.3], [-0.7, 1.1]])


def _model():
    x = static.data("x", [None, 3], "float64")
    w = _param("w_b", W0)
    h = layers.matmul(x, w)
    loss = layers.mean(layers.tanh(h) * h + h)  # h feeds three ops: contributions are summed
    return x, w, loss


def test_append_backward_names_and_values():
    main, startup, (_x, _w, loss) = build(_model)
    with static.program_guard(main, startup), static_mode_guard():
        pairs = static.append_backward(loss)
    assert [(p.name, g.name) for p, g in pairs] == [("w_b", "w_b@GRAD")]
    assert any(op.type == "grad_sum" for op in main.global_block().ops)
    assert all(op.role == "backward" for op in main.global_block().ops
               if op.type.endswith("_grad"))
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    xv = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    g, = exe.run(main, feed={"x": xv}, fetch_list=[pairs[0][1]], scope=scope)

    def f(wv):
        h = xv @ wv
        return float(np.mean(np.tanh(h) * h + h))

    num = np.zeros_like(W0)
    for idx in np.ndindex(*W0.shape):
        a, b = W0.copy(), W0.copy()
        a[idx] += 1e-6
        b[idx] -= 1e-6
        num[idx] = (f(a) - f(b)) / 2e-6
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-9)
    with core.dygraph.guard():
        we = core.to_tensor(W0, stop_gradient=False)
        he = core.to_tensor(xv).matmul(we)
        layers.mean(layers.tanh(he) * he + he).backward()
        np.testing.assert_allclose(g, we.gradient(), rtol=1e-12)


def test_stop_gradient_cuts_the_path():
    def fn():
        x = static.data("x", [2, 3], "float64")
        w = _param("w_s", W0)
        h = layers.matmul(x, w)
        h.stop_gradient = True
        return layers.mean(h * w[0])

    main, _, loss = build(fn)
    with static.program_guard(main), static_mode_guard():
        pairs = static.append_backward(loss)
    assert [op.type for op in main.global_block().ops if op.type == "matmul_grad"] == []
    assert len(pairs) == 1


def test_no_grad_set_and_unrelated_inputs():
    def fn():
        x = static.data("x", [3], "float64")
        y = static.data("y", [3], "float64")
        z = static.data("z", [3], "float64")
        out = layers.reduce_sum(x * y)
        return x, y, z, static.gradients([out], [x, y, z], no_grad_set=["y"])

    main, _, (_x, _y, _z, (gx, gy, gz)) = build(fn)
    assert gy is None and gz is None
    got, = static.Executor().run(main, feed={"x": np.ones(3), "y": np.arange(3.0)},
                                 fetch_list=[gx])
    np.testing.assert_allclose(got, [0, 1, 2])


def test_gradient_of_an_intermediate():
    def fn():
        x = static.data("x", [3], "float64")
        h = x * 3.0
        out = layers.reduce_sum(h * h)
        return x, static.gradients(out, h)

    main, _, (_x, (gh,)) = build(fn)
    got, = static.Executor().run(main, feed={"x": np.array([1.0, 2.0, 3.0])}, fetch_list=[gh])
    np.testing.assert_allclose(got, 2 * 3 * np.array([1.0, 2.0, 3.0]))


def test_loss_must_be_scalar():
    _main, _, x = build(lambda: static.data("x", [3], "float64") * 1.0)
    with pytest.raises(ValueError, match="must hold one element"):
        static.append_backward(x)


def test_static_training_with_optimizer_reduces_loss():
    def fn():
        x = static.data("x", [None, 3], "float64")
        w = _param("w_t", W0)
        loss = layers.mean(layers.square(layers.matmul(x, w) - 1.0))
        core.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return x, loss

    main, startup, (_x, loss) = build(fn)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    xv = np.random.default_rng(0).normal(size=(8, 3))
    losses = [float(exe.run(main, feed={"x": xv}, fetch_list=[loss], scope=scope)[0])
              for _ in range(20)]
    assert losses[-1] < 0.5 * losses[0]


def test_append_backward_parameter_list_and_parameters_inside_control_flow():
    """Only the listed parameters get gradients; parameters read inside a while loop and a
    cond branch get the gradient central differences give."""
    v0 = np.array([0.3, -0.2, 0.5])

    def fn():
        x = static.data("x", [2, 3], "float64")
        w = _param("w_l", W0)
        v = _param("v_l", v0)
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            h = layers.cond(layers.reduce_sum(h) > 0.0, lambda: h * v, lambda: h + v)
            return [i + 1, h]

        _, h = layers.while_loop(lambda i, h: i < 3, body, [i, x])
        return x, layers.mean(layers.matmul(h, w) ** 2)

    main, startup, (_x, loss) = build(fn)
    with static.program_guard(main, startup), static_mode_guard():
        only_v = static.append_backward(loss, parameter_list=["v_l"])
    assert [(p.name, g.name) for p, g in only_v] == [("v_l", "v_l@GRAD")]
    assert main.global_block()._find_var_recursive("w_l@GRAD") is None
    with pytest.raises(ValueError, match="parameter 'nope' is not in the loss's program"):
        static.append_backward(loss, parameter_list=["nope"])
    main, startup, (_x, loss) = build(fn)
    with static.program_guard(main, startup), static_mode_guard():
        pairs = dict((p.name, g) for p, g in static.append_backward(loss))
    assert sorted(pairs) == ["v_l", "w_l"]
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    xv = np.array([[0.5, 1.0, -0.25], [-1.0, -0.5, -2.0]])
    got_w, got_v = exe.run(main, feed={"x": xv}, fetch_list=[pairs["w_l"], pairs["v_l"]],
                           scope=scope)

    def f(wv, vv):
        h = xv
        for _ in range(3):
            h = h * vv if h.sum() > 0 else h + vv
        return float(np.mean((h @ wv) ** 2))

    def num(fun, p):
        g = np.zeros_like(p)
        for idx in np.ndindex(*p.shape):
            a, b = p.copy(), p.copy()
            a[idx] += 1e-6
            b[idx] -= 1e-6
            g[idx] = (fun(a) - fun(b)) / 2e-6
        return g

    np.testing.assert_allclose(got_w, num(lambda a: f(a, v0), W0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got_v, num(lambda a: f(W0, a), v0), rtol=1e-6, atol=1e-9)

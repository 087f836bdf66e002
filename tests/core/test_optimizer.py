"""Optimizers, regularizers, gradient clipping and LR schedules (eager mode), each checked
against update rules written out in numpy."""
import math

import numpy as np
import pytest

import core
from core import clip, initializer, lr, optimizer, regularizer
from core.nn.param import create_parameter
from core.param_attr import ParamAttr


def make_param(value, **attr):
    value = np.asarray(value, np.float32)
    return create_parameter(list(value.shape), "float32",
                            ParamAttr(initializer=initializer.NumpyArrayInitializer(value),
                                      **attr))


def half_square_loss(*params):
    """sum(p**2) / 2 over the params: the gradient of each is the parameter itself."""
    total = None
    for p in params:
        s = (p * p).sum() * 0.5
        total = s if total is None else total + s
    return total


def run_steps(opt, params, steps):
    for _ in range(steps):
        loss = half_square_loss(*params)
        loss.backward()
        opt.minimize(loss)
        for p in params:
            p.clear_gradient()


P0 = np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], np.float32)


def test_sgd_two_steps():
    p = make_param(P0)
    run_steps(optimizer.SGD(0.1, parameter_list=[p]), [p], 2)
    want = P0.astype(np.float64)
    for _ in range(2):
        want = want - 0.1 * want
    np.testing.assert_allclose(p.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_two_steps(nesterov):
    p = make_param(P0)
    opt = optimizer.Momentum(0.1, momentum=0.9, parameter_list=[p], use_nesterov=nesterov)
    run_steps(opt, [p], 2)
    want, v = P0.astype(np.float64), np.zeros_like(P0, np.float64)
    for _ in range(2):
        g = want
        v = 0.9 * v + g
        want = want - 0.1 * (g + 0.9 * v) if nesterov else want - 0.1 * v
    np.testing.assert_allclose(p.numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(opt.state_dict()[f"{p.name}_velocity_0"].numpy(), v, rtol=1e-6)


def test_adam_two_steps_matches_textbook_adam():
    p = make_param(P0)
    opt = optimizer.Adam(0.01, beta1=0.8, beta2=0.9, epsilon=1e-6, parameter_list=[p])
    run_steps(opt, [p], 2)
    want = P0.astype(np.float64)
    m = np.zeros_like(want)
    v = np.zeros_like(want)
    for t in (1, 2):
        g = want
        m = 0.8 * m + 0.2 * g
        v = 0.9 * v + 0.1 * g * g
        m_hat, v_hat = m / (1 - 0.8 ** t), v / (1 - 0.9 ** t)
        want = want - 0.01 * m_hat / (np.sqrt(v_hat) + 1e-6)
    np.testing.assert_allclose(p.numpy(), want, rtol=1e-5)
    state = opt.state_dict()
    np.testing.assert_allclose(state[f"{p.name}_moment1_0"].numpy(), m, rtol=1e-5)
    np.testing.assert_allclose(state[f"{p.name}_beta1_pow_acc_0"].numpy(), [0.8 ** 3], rtol=1e-6)


def _textbook(kind, steps, lr_=0.05):
    """``steps`` updates of P0 under loss sum(p^2)/2 (gradient = p), written out in numpy."""
    p = P0.astype(np.float64)
    a = np.zeros_like(p)
    b = np.zeros_like(p)
    c = np.zeros_like(p)
    for t in range(1, steps + 1):
        g = p.copy()
        if kind == "adagrad":
            a += g * g
            p = p - lr_ * g / (np.sqrt(a) + 1e-6)
        elif kind == "adamax":
            a = 0.9 * a + 0.1 * g
            b = np.maximum(0.999 * b + 1e-8, np.abs(g))
            p = p - lr_ / (1 - 0.9 ** t) * a / b
        elif kind == "rmsprop":
            a = 0.9 * a + 0.1 * g * g
            b = 0.9 * b + 0.1 * g
            c = 0.5 * c + lr_ * g / np.sqrt(a - b * b + 1e-6)
            p = p - c
        elif kind == "lamb":
            a = 0.9 * a + 0.1 * g
            b = 0.999 * b + 0.001 * g * g
            r = (a / (1 - 0.9 ** t)) / (np.sqrt(b / (1 - 0.999 ** t)) + 1e-6) + 0.01 * p
            p = p - lr_ * (np.linalg.norm(p) / np.linalg.norm(r)) * r
    return p


@pytest.mark.parametrize("kind", ["adagrad", "adamax", "rmsprop", "lamb"])
def test_new_optimizers_three_steps_match_textbook_updates(kind):
    p = make_param(P0)
    opt = {"adagrad": lambda: optimizer.AdagradOptimizer(0.05, parameter_list=[p]),
           "adamax": lambda: optimizer.AdamaxOptimizer(0.05, parameter_list=[p]),
           "rmsprop": lambda: optimizer.RMSPropOptimizer(0.05, rho=0.9, momentum=0.5,
                                                         centered=True, parameter_list=[p]),
           "lamb": lambda: optimizer.LambOptimizer(0.05, parameter_list=[p])}[kind]()
    run_steps(opt, [p], 3)
    np.testing.assert_allclose(p.numpy(), _textbook(kind, 3), rtol=2e-5, atol=1e-6)


def test_lamb_exclude_from_weight_decay_and_argument_errors():
    p, q = make_param(P0), make_param(P0)
    opt = optimizer.Lamb(0.05, lamb_weight_decay=0.5, parameter_list=[p, q],
                         exclude_from_weight_decay_fn=lambda param: param is q)
    run_steps(opt, [p, q], 1)
    # step 1: m_hat / sqrt(v_hat) = sign(g) (up to epsilon), decay only for p
    r_q = np.sign(P0) * np.abs(P0) / (np.abs(P0) + 1e-6)
    want_q = P0 - 0.05 * np.linalg.norm(P0) / np.linalg.norm(r_q) * r_q
    np.testing.assert_allclose(q.numpy(), want_q, rtol=1e-5)
    assert not np.allclose(p.numpy(), q.numpy())
    with pytest.raises(ValueError, match="beta1"):
        optimizer.Adamax(0.1, beta1=1.0)
    with pytest.raises(ValueError, match="rho"):
        optimizer.RMSProp(0.1, rho=1.5)


def test_l2_decay_adds_coeff_times_param():
    p = make_param(P0)
    run_steps(optimizer.SGD(0.1, parameter_list=[p], regularization=regularizer.L2Decay(0.5)),
              [p], 1)
    np.testing.assert_allclose(p.numpy(), P0 - 0.1 * (P0 + 0.5 * P0), rtol=1e-6)


def test_param_regularizer_overrides_optimizer_regularization():
    p = make_param(P0, regularizer=regularizer.L1Decay(0.25))
    q = make_param(P0)
    opt = optimizer.SGD(0.1, parameter_list=[p, q], regularization=regularizer.L2Decay(0.5))
    run_steps(opt, [p, q], 1)
    np.testing.assert_allclose(p.numpy(), P0 - 0.1 * (P0 + 0.25 * np.sign(P0)), rtol=1e-6)
    np.testing.assert_allclose(q.numpy(), P0 - 0.1 * (P0 + 0.5 * P0), rtol=1e-6)


def test_global_norm_clipping_scales_all_gradients():
    a, b = P0, np.array([3.0, -4.0], np.float32)
    p, q = make_param(a), make_param(b)
    opt = optimizer.SGD(1.0, parameter_list=[p, q], grad_clip=clip.GradientClipByGlobalNorm(1.0))
    run_steps(opt, [p, q], 1)
    norm = math.sqrt(float((a.astype(np.float64) ** 2).sum() + (b ** 2).sum()))
    np.testing.assert_allclose(p.numpy(), a - a / norm, rtol=1e-5)
    np.testing.assert_allclose(q.numpy(), b - b / norm, rtol=1e-5)


def test_global_norm_clipping_leaves_small_gradients_and_need_clip_false():
    small = np.array([0.1, 0.2], np.float32)
    p = make_param(small)
    big = make_param(P0 * 100, need_clip=False)
    opt = optimizer.SGD(1.0, parameter_list=[p, big],
                        grad_clip=clip.GradientClipByGlobalNorm(10.0))
    run_steps(opt, [p, big], 1)
    np.testing.assert_allclose(p.numpy(), [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(big.numpy(), np.zeros_like(P0), atol=1e-4)


def test_clip_by_value_and_by_norm():
    p = make_param(P0)
    run_steps(optimizer.SGD(1.0, parameter_list=[p],
                            grad_clip=clip.GradientClipByValue(0.6, -0.3)), [p], 1)
    np.testing.assert_allclose(p.numpy(), P0 - np.clip(P0, -0.3, 0.6), rtol=1e-6)
    q = make_param(P0)
    run_steps(optimizer.SGD(1.0, parameter_list=[q], grad_clip=clip.ClipGradByNorm(0.5)), [q], 1)
    norm = np.sqrt((P0.astype(np.float64) ** 2).sum())
    np.testing.assert_allclose(q.numpy(), P0 - P0 * 0.5 / norm, rtol=1e-5)


def test_clipping_happens_before_regularization():
    p = make_param(np.array([3.0, 4.0], np.float32))
    opt = optimizer.SGD(1.0, parameter_list=[p], regularization=regularizer.L2Decay(1.0),
                        grad_clip=clip.GradientClipByGlobalNorm(1.0))
    run_steps(opt, [p], 1)
    # clipped gradient [0.6, 0.8], then + 1.0 * param
    np.testing.assert_allclose(p.numpy(), [3.0 - 3.6, 4.0 - 4.8], rtol=1e-5)


def test_per_parameter_learning_rate_factor():
    p = make_param(P0, learning_rate=0.5)
    run_steps(optimizer.SGD(0.2, parameter_list=[p]), [p], 1)
    np.testing.assert_allclose(p.numpy(), P0 - 0.1 * P0, rtol=1e-6)


def test_non_trainable_and_gradless_parameters_are_untouched():
    p = make_param(P0)
    frozen = make_param(P0, trainable=False)
    unused = make_param(P0)
    opt = optimizer.Adam(0.1, parameter_list=[p, frozen, unused])
    loss = half_square_loss(p, frozen)
    loss.backward()
    opt.minimize(loss)
    assert not np.allclose(p.numpy(), P0)
    np.testing.assert_array_equal(frozen.numpy(), P0)
    np.testing.assert_array_equal(unused.numpy(), P0)
    assert all(unused.name not in k and frozen.name not in k for k in opt.state_dict())


def test_minimize_without_parameter_list_finds_parameters_from_the_loss():
    p = make_param(P0)
    loss = half_square_loss(p)
    loss.backward()
    optimizer.SGD(0.1).minimize(loss)
    np.testing.assert_allclose(p.numpy(), 0.9 * P0, rtol=1e-6)


def test_step_and_clear_grad_2_0_spelling():
    p = make_param(P0)
    opt = optimizer.SGD(learning_rate=0.1, parameters=[p], weight_decay=0.5)
    half_square_loss(p).backward()
    opt.step()
    opt.clear_grad()
    np.testing.assert_allclose(p.numpy(), P0 - 0.1 * 1.5 * P0, rtol=1e-6)
    np.testing.assert_array_equal(p.gradient(), np.zeros_like(P0))


def test_lr_scheduler_drives_the_update():
    sched = lr.StepDecay(0.1, step_size=1, gamma=0.5)
    p = make_param(P0)
    opt = optimizer.SGD(sched, parameter_list=[p])
    assert opt.current_step_lr() == pytest.approx(0.1)
    run_steps(opt, [p], 1)
    sched.step()
    assert opt.current_step_lr() == pytest.approx(0.05)
    run_steps(opt, [p], 1)
    np.testing.assert_allclose(p.numpy(), P0 * 0.9 * 0.95, rtol=1e-6)
    with pytest.raises(RuntimeError, match="StepDecay"):
        opt.set_lr(0.3)


def _lrs(sched, n):
    out = []
    for _ in range(n):
        out.append(sched())
        sched.step()
    return out


@pytest.mark.parametrize("sched,want", [
    (lambda: lr.StepDecay(1.0, 2, 0.5), [1, 1, 0.5, 0.5, 0.25]),
    (lambda: lr.MultiStepDecay(1.0, [1, 3], 0.1), [1, 0.1, 0.1, 0.01, 0.01]),
    (lambda: lr.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1]), [1, 1, 0.5, 0.5, 0.1]),
    (lambda: lr.ExponentialDecay(2.0, 0.5), [2, 1, 0.5, 0.25, 0.125]),
    (lambda: lr.NaturalExpDecay(1.0, 0.5), [math.exp(-0.5 * i) for i in range(5)]),
    (lambda: lr.InverseTimeDecay(1.0, 0.5), [1 / (1 + 0.5 * i) for i in range(5)]),
    (lambda: lr.PolynomialDecay(1.0, 4, end_lr=0.0, power=1.0), [1, 0.75, 0.5, 0.25, 0.0]),
    (lambda: lr.CosineAnnealingDecay(1.0, 4), [1, (1 + math.cos(math.pi / 4)) / 2, 0.5,
                                               (1 + math.cos(3 * math.pi / 4)) / 2, 0.0]),
    (lambda: lr.LinearWarmup(0.5, 2, 0.0, 0.5), [0, 0.25, 0.5, 0.5, 0.5]),
    (lambda: lr.LambdaDecay(2.0, lambda e: 0.5 ** e), [2, 1, 0.5, 0.25, 0.125]),
])
def test_lr_schedule_values(sched, want):
    np.testing.assert_allclose(_lrs(sched(), 5), want, rtol=1e-12, atol=1e-12)


def test_lr_schedule_errors_and_state():
    with pytest.raises(ValueError, match="boundaries"):
        lr.PiecewiseDecay([1, 2], [1.0, 0.5])
    with pytest.raises(ValueError, match="step_size"):
        lr.StepDecay(0.1, 0)
    s = lr.ExponentialDecay(1.0, 0.5)
    s.step()
    s.step()
    t = lr.ExponentialDecay(1.0, 0.5)
    t.set_state_dict(s.state_dict())
    assert t() == pytest.approx(0.25) and t.last_epoch == 2


def test_state_dict_round_trip_continues_identically():
    sched = lr.StepDecay(0.05, step_size=1, gamma=0.5)
    a = make_param(P0)
    opt_a = optimizer.Adam(sched, parameter_list=[a])
    run_steps(opt_a, [a], 2)
    sched.step()
    saved = {k: (v.numpy() if hasattr(v, "numpy") else v) for k, v in opt_a.state_dict().items()}
    assert saved["LR_Scheduler"]["last_epoch"] == 1

    b = make_param(a.numpy())
    b.name = a.name  # the same model, rebuilt: accumulators are keyed by parameter name
    opt_b = optimizer.Adam(lr.StepDecay(0.05, step_size=1, gamma=0.5), parameter_list=[b])
    opt_b.set_dict(saved)  # before any step: kept until the accumulators are created
    assert opt_b.current_step_lr() == pytest.approx(0.025)
    run_steps(opt_a, [a], 1)
    run_steps(opt_b, [b], 1)
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
    for k, v in opt_a.state_dict().items():
        if k != "LR_Scheduler":
            np.testing.assert_allclose(opt_b.state_dict()[k].numpy(), v.numpy(), rtol=1e-6)


def test_set_dict_shape_mismatch_names_the_accumulator():
    p = make_param(P0)
    opt = optimizer.Momentum(0.1, 0.9, parameter_list=[p])
    run_steps(opt, [p], 1)
    key = f"{p.name}_velocity_0"
    with pytest.raises(ValueError, match=f"{key}.*\\[2, 3\\].*\\[3\\]"):
        opt.set_dict({key: np.zeros([3], np.float32)})


def test_constructor_errors_name_the_argument():
    with pytest.raises(TypeError, match="learning_rate"):
        optimizer.SGD("fast")
    with pytest.raises(TypeError, match="grad_clip"):
        optimizer.SGD(0.1, grad_clip=1.0)
    with pytest.raises(TypeError, match="regularization"):
        optimizer.SGD(0.1, regularization=0.1)
    with pytest.raises(ValueError, match="beta1"):
        optimizer.Adam(0.1, beta1=1.5)
    with pytest.raises(ValueError, match="parameter_list"):
        optimizer.SGD(0.1).step()
    with pytest.raises(ValueError, match="clip_norm"):
        clip.GradientClipByGlobalNorm(0)


def test_fluid_aliases():
    assert optimizer.AdamOptimizer is optimizer.Adam
    assert optimizer.SGDOptimizer is optimizer.SGD
    assert optimizer.MomentumOptimizer is optimizer.Momentum
    assert clip.ClipGradByGlobalNorm is clip.GradientClipByGlobalNorm
    assert regularizer.L2DecayRegularizer is regularizer.L2Decay


# -- static mode -----------------------------------------------------------------------------
W0 = np.array([[0.5, -0.2], [0.1, 0.4], [-0.3, 0.2]], np.float32)
X0 = np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0]], np.float32)


def _make_opt(kind):
    common = {"regularization": regularizer.L2Decay(0.1),
              "grad_clip": clip.GradientClipByGlobalNorm(0.5)}
    if kind == "adam":
        return optimizer.Adam(0.05, **common)
    if kind == "adagrad":
        return optimizer.Adagrad(0.05, **common)
    if kind == "adamax":
        return optimizer.Adamax(0.05, **common)
    if kind == "rmsprop":
        return optimizer.RMSProp(0.05, momentum=0.5, centered=True, **common)
    if kind == "lamb":
        return optimizer.Lamb(0.05, **common)
    return optimizer.Momentum(0.05, momentum=0.9, use_nesterov=True, **common)


def _fc():
    attr = ParamAttr(initializer=initializer.NumpyArrayInitializer(W0))
    return core.nn.Linear(3, 2, param_attr=attr)


@pytest.mark.parametrize("kind", ["adam", "momentum", "adagrad", "adamax", "rmsprop", "lamb"])
def test_static_minimize_matches_eager(kind):
    fc = _fc()
    opt = _make_opt(kind)
    opt._parameter_list = fc.parameters()
    eager_losses = []
    for _ in range(3):
        loss = core.layers.mean(core.layers.square(fc(core.to_tensor(X0))))
        loss.backward()
        opt.minimize(loss)
        fc.clear_gradients()
        eager_losses.append(float(loss))

    from core import static

    core.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            sfc = _fc()
            sloss = core.layers.mean(core.layers.square(sfc(x)))
            sopt = _make_opt(kind)
            ops, params_grads = sopt.minimize(sloss)
        assert [op.type for op in ops] == [kind, kind]
        assert sorted(p.name for p, _ in params_grads) == sorted(p.name for p in sfc.parameters())
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = static.Executor(core.CPUPlace())
            exe.run(startup)
            static_losses = [float(exe.run(main, feed={"x": X0}, fetch_list=[sloss])[0])
                             for _ in range(3)]
            w = np.asarray(scope.find_var(sfc.weight.name).get_tensor())
    finally:
        core.disable_static()
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5)
    np.testing.assert_allclose(w, fc.weight.numpy(), rtol=1e-5, atol=1e-7)


def test_static_minimize_follows_a_schedule_as_eager_does():
    """The Executor writes the schedule's current value into the program's learning-rate
    variable before each run (PaddlePaddle 2's design); the user steps the schedule."""
    from core import static

    rng = np.random.default_rng(5)
    xs = [rng.standard_normal((4, 3)).astype(np.float32) for _ in range(5)]
    core.seed(11)
    fc = _fc()
    init = [p.numpy().copy() for p in fc.parameters()]
    sched = lr.StepDecay(0.1, step_size=2, gamma=0.5)
    opt = optimizer.SGD(sched, parameter_list=fc.parameters())
    eager_losses = []
    for x in xs:
        loss = core.layers.mean(fc(core.to_tensor(x)))
        loss.backward()
        opt.minimize(loss)
        fc.clear_gradients()
        sched.step()
        eager_losses.append(float(loss))
    core.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 3], "float32")
            sfc = _fc()
            loss = core.layers.mean(sfc(x))
            sched2 = lr.StepDecay(0.1, step_size=2, gamma=0.5)
            optimizer.SGD(sched2).minimize(loss)
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        for p, v in zip(sfc.parameters(), init):
            scope.find_var(p.name).get_tensor().set(v)
        static_losses = []
        for xv in xs:
            static_losses.append(float(exe.run(main, feed={"x": xv}, fetch_list=[loss],
                                               scope=scope)[0]))
            sched2.step()
    finally:
        core.disable_static()
    np.testing.assert_allclose(static_losses, eager_losses, rtol=1e-5)
    # the schedule really changed the rate: with a constant 0.1 the losses differ
    assert sched2() == pytest.approx(0.025)


def test_static_minimize_ops_are_dropped_by_clone_for_test():
    """Clip, regularisation and update ops carry the optimize role; an inference clone keeps
    only the forward ops."""
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [-1, 3], "float32")
            y = core.layers.fc(x, 2)
            loss = core.layers.mean(y)
            opt = core.optimizer.Momentum(0.1, momentum=0.9,
                                          regularization=core.regularizer.L2Decay(1e-3),
                                          grad_clip=core.clip.GradientClipByGlobalNorm(1.0))
            opt.minimize(loss)
        finally:
            core.disable_static()
    roles = {op.role for op in main.global_block().ops}
    assert {"forward", "backward", "optimize"} <= roles
    test_prog = main.clone(for_test=True)
    assert all(op.role == "forward" for op in test_prog.global_block().ops)
    assert not any(op.type in ("momentum", "sqrt", "clip") for op in test_prog.global_block().ops)
    assert len(test_prog.global_block().ops) < len(main.global_block().ops)

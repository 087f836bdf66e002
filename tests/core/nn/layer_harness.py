"""One check for a layer, in every mode: ``check_layer(make, inputs, want)`` builds the layer
with ``make()``, and asserts that

* eagerly, its output equals the numpy reference ``want`` (when given);
* the gradients of ``sum(out * R)`` (R fixed random) with respect to the float inputs and the
  parameters agree with central differences of the eager forward;
* a static Program built from a second ``make()`` (the first one's state loaded) gives the
  same output and the same gradients (``core.gradients``);
* a ``declarative`` forward (``full_graph=True``) gives the same output and gradients.

Inputs are numpy arrays: float ones are differentiated, integer ones (labels, ids) and those
whose positions are in ``nondiff`` are not."""
import numpy as np

import core
from core import static, unique_name
from translator import declarative


def _diff(inputs, nondiff=()):
    """Which inputs are differentiated."""
    return [a.dtype.kind == "f" and i not in nondiff for i, a in enumerate(inputs)]


def _tensors(inputs, diff):
    out = []
    for a, d in zip(inputs, diff):
        t = core.to_tensor(a)
        t.stop_gradient = not d
        out.append(t)
    return out


def _weights(shape, seed=11):
    return np.random.default_rng(seed).uniform(0.5, 1.5, size=shape).astype(np.float32)


def _objective(out, weights):
    return core.layers.reduce_sum(out * weights)


def eager_run(layer, inputs, diff):
    """``(out, [input grads], [param grads])`` of ``sum(out * R)``, eagerly."""
    ts = _tensors(inputs, diff)
    out = layer(*ts)
    loss = _objective(out, _weights(out.shape))
    loss.backward()
    g_in = [t.gradient() for t, d in zip(ts, diff) if d]
    g_par = [p.gradient() for p in layer.parameters() if not p.stop_gradient]
    layer.clear_gradients()
    return out.numpy(), g_in, g_par


def _loss_value(layer, inputs, weights):
    with core.no_grad():
        out = layer(*[core.to_tensor(a) for a in inputs])
    return float(np.sum(out.numpy().astype(np.float64) * weights))


def _numeric(layer, inputs, target, weights, eps, picks):
    """Central differences of the objective at ``picks`` flat positions of ``target`` (an
    input array, changed in place and restored; or a parameter)."""
    is_param = not isinstance(target, np.ndarray)
    arr = target.numpy().copy() if is_param else target
    flat = arr.reshape(-1)
    g = []
    for i in picks:
        old = flat[i]
        vals = []
        for v in (old + eps, old - eps):
            flat[i] = v
            if is_param:
                target.set_value(arr)
            vals.append(_loss_value(layer, inputs, weights))
        flat[i] = old
        if is_param:
            target.set_value(arr)
        g.append((vals[0] - vals[1]) / (2 * eps))
    return np.array(g)


def check_gradients(layer, inputs, diff, g_in, g_par, out_shape, eps=1e-2, rtol=3e-2,
                    atol=3e-3, max_points=12):
    """The eager gradients agree with central differences at up to ``max_points`` positions
    of each float input and each trainable parameter."""
    weights = _weights(out_shape).astype(np.float64)
    rng = np.random.default_rng(5)
    floats = [a for a, d in zip(inputs, diff) if d]
    params = [p for p in layer.parameters() if not p.stop_gradient]
    for target, grad, what in [(a, g, f"input {i}") for i, (a, g) in enumerate(zip(floats, g_in))] \
            + [(p, g, p.name) for p, g in zip(params, g_par)]:
        size = int(np.prod(grad.shape))
        picks = rng.choice(size, min(size, max_points), replace=False)
        want = _numeric(layer, inputs, target, weights, eps, picks)
        np.testing.assert_allclose(grad.reshape(-1)[picks], want, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of {what}")


def static_run(make, inputs, diff, state):
    """``(out, [input grads], [param grads])`` from a static Program with ``state`` loaded."""
    core.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup), unique_name.guard():
            feeds = [static.data(f"in{i}", list(a.shape), str(a.dtype))
                     for i, a in enumerate(inputs)]
            for f, d in zip(feeds, diff):
                f.stop_gradient = not d
            layer = make()
            out = layer(*feeds)
            loss = _objective(out, _weights([d for d in out.shape]))
            wrt = [f for f, d in zip(feeds, diff) if d]
            params = [p for p in layer.parameters() if p.trainable]
            grads = core.gradients([loss], wrt + params) if wrt + params else []
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = static.Executor(core.CPUPlace())
            exe.run(startup)
            if state:
                layer.set_dict(state)
            res = exe.run(main, feed={f"in{i}": a for i, a in enumerate(inputs)},
                          fetch_list=[out] + list(grads))
    finally:
        core.disable_static()
    return res[0], res[1:1 + len(wrt)], res[1 + len(wrt):]


def check_layer(make, inputs, want=None, rtol=1e-5, atol=1e-5, grads=True, modes=True,
                grad_tol=None, nondiff=()):
    """Runs the checks of the module docstring; returns the eager layer."""
    layer = make()
    diff = _diff(inputs, nondiff)
    state = {k: np.array(v.numpy()) for k, v in layer.state_dict().items()}
    out, g_in, g_par = eager_run(layer, inputs, diff)
    if want is not None:
        np.testing.assert_allclose(out, want, rtol=rtol, atol=atol, err_msg="eager vs numpy")
    if grads:
        check_gradients(layer, inputs, diff, g_in, g_par, out.shape, **(grad_tol or {}))
    if not modes:
        return layer
    s_out, s_in, s_par = static_run(make, inputs, diff, state)
    np.testing.assert_allclose(s_out, out, rtol=1e-5, atol=1e-5, err_msg="static vs eager")
    for a, b in zip(s_in + s_par, g_in + g_par):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg="static gradients")
    layer.set_dict(state)
    ts = _tensors(inputs, diff)
    d_out = declarative(layer.forward, full_graph=True)(*ts)
    np.testing.assert_allclose(d_out.numpy(), out, rtol=1e-5, atol=1e-5,
                               err_msg="declarative vs eager")
    _objective(d_out, _weights(d_out.shape)).backward()
    d_in = [t.gradient() for t, d in zip(ts, diff) if d]
    d_par = [p.gradient() for p in layer.parameters() if not p.stop_gradient]
    for a, b in zip(d_in + d_par, g_in + g_par):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg="declarative gradients")
    layer.clear_gradients()
    return layer

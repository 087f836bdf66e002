"""Registry-driven static tests: every op case built into a Program and run by the Executor.

For each case: the static forward equals the eager forward (values and dtypes), ``infer``
promises the shapes and dtypes the kernel returns, and the gradients that
``core.static.gradients`` builds equal the op's own ``backward`` (which tests/core/ops/test_ops.py
checks against central differences).
"""
import numpy as np
import pytest

import core
from core import static
from core.dispatch import apply
from core.mode import static_mode_guard
from core.ops.registry import get_op, is_list_slot, slot_name

from .op_cases import load_all
from .op_harness import analytic_grad, as64, diff_outputs, grad_slots, projection, run_forward

CASES = load_all()
PARAMS = [pytest.param(t, c, id=f"{t}-{i}{'-' + c.name if c.name else ''}")
          for t, cs in sorted(CASES.items()) for i, c in enumerate(cs)]


def _declare(inputs):
    """Static inputs for a case: a ``data`` variable per array, scalars and None as they are."""
    feed, values = {}, []
    for i, v in enumerate(inputs):
        if isinstance(v, list):
            entry = []
            for j, a in enumerate(v):
                name = f"in{i}_{j}"
                entry.append(static.data(name, list(np.shape(a)), np.asarray(a).dtype))
                feed[name] = np.asarray(a)
            values.append(entry)
        elif isinstance(v, np.ndarray):
            name = f"in{i}"
            values.append(static.data(name, list(v.shape), v.dtype))
            feed[name] = v
        else:
            values.append(v)
    return values, feed


def _flat(outs):
    flat = []
    for o in outs:
        flat.extend(o if isinstance(o, list) else [o])
    return flat


def _build(op, case, inputs):
    main, startup = static.Program(), static.Program()
    if op.random:
        main.random_seed = case.seed
    with static.program_guard(main, startup), static_mode_guard():
        values, feed = _declare(inputs)
        outs = apply(op.type, values, case.attrs)
    outs = (outs,) if len(op.outputs) == 1 else tuple(outs)
    return main, values, feed, outs


def _run(main, feed, fetch, case, random):
    if random and not case.seed:
        core.seed(0)  # the harness draws from make_generator(np, 0) for seed 0
    return static.Executor(core.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


@pytest.mark.parametrize("op_type,case", PARAMS)
def test_static_forward_equals_eager(op_type, case):
    op = get_op(op_type)
    main, _, feed, outs = _build(op, case, case.inputs)
    want = _flat(run_forward(op, case, case.inputs))
    got_vars = _flat(outs)
    got = _run(main, feed, got_vars, case, op.random)
    assert len(got) == len(want)
    for var, g, w in zip(got_vars, got, want):
        w = np.asarray(w)
        assert g.dtype == w.dtype, f"{op_type} output '{var.name}': static dtype {g.dtype} vs " \
                                   f"eager {w.dtype}"
        assert g.shape == w.shape, f"{op_type} output '{var.name}': static shape {g.shape} vs " \
                                   f"eager {w.shape}"
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-6,
                                   atol=1e-7, err_msg=f"{op_type}: static vs eager forward")


@pytest.mark.parametrize("op_type,case", PARAMS)
def test_infer_matches_kernel(op_type, case):
    op = get_op(op_type)
    _, _, _, outs = _build(op, case, case.inputs)
    want = _flat(run_forward(op, case, case.inputs))
    for var, w in zip(_flat(outs), want):
        w = np.asarray(w)
        assert var.dtype == w.dtype, f"{op_type}: infer promises {var.dtype} for '{var.name}', " \
                                     f"the kernel returns {w.dtype}"
        assert len(var.shape) == w.ndim and all(
            d in (-1, s) for d, s in zip(var.shape, w.shape)), \
            f"{op_type}: infer promises shape {var.shape} for '{var.name}', the kernel returns " \
            f"{list(w.shape)}"


def _grad_params():
    out = []
    for p in PARAMS:
        op_type, case = p.values
        op = get_op(op_type)
        if op.differentiable and not op.random and grad_slots(op, case):
            out.append(p)
    return out


def grad_program(op, case, inputs, ws, slots):
    """``(program, values, feed, grads)``: ``op`` applied to ``inputs`` in a static program,
    and the gradients (None where there is none) of its outputs, weighted by ``ws`` (fed
    as ``w{k}_{j}``), with respect to the input ``slots``."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        values, feed = _declare(inputs)
        outs = apply(op.type, values, case.attrs)
        outs = (outs,) if len(op.outputs) == 1 else tuple(outs)
        targets, seeds = [], []
        for k in diff_outputs(op):
            pairs = zip(outs[k], ws[k]) if is_list_slot(op.outputs[k]) else [(outs[k], ws[k])]
            for j, (t, w) in enumerate(pairs):
                name = f"w{k}_{j}"
                seeds.append(static.data(name, list(np.shape(w)), t.dtype))
                feed[name] = np.asarray(w, dtype=t.dtype)
                targets.append(t)
        wrt = []
        for s in slots:
            wrt.extend(values[s] if isinstance(values[s], list) else [values[s]])
        grads = static.gradients(targets, wrt, target_gradients=seeds)
    return main, values, feed, grads


@pytest.mark.parametrize("op_type,case", _grad_params())
def test_static_gradient_equals_op_backward(op_type, case):
    op = get_op(op_type)
    slots = grad_slots(op, case)
    inputs = [as64(v) for v in case.inputs]
    outs64 = run_forward(op, case, inputs)
    ws = projection(op, outs64, np.random.default_rng(1234))
    want = analytic_grad(op, case, inputs, ws, slots)
    main, values, feed, grads = grad_program(op, case, inputs, ws, slots)
    fetch = [g for g in grads if g is not None]
    got = iter(static.Executor().run(main, feed=feed, fetch_list=fetch))
    k = 0
    for s in slots:
        expected = want[s] if isinstance(values[s], list) else [want[s]]
        for e in expected:
            g = grads[k]
            k += 1
            assert g is not None, f"{op_type}: no static gradient for input {op.inputs[s]}"
            np.testing.assert_allclose(next(got), np.asarray(e), rtol=1e-9, atol=1e-12,
                                       err_msg=f"{op_type}: static gradient of "
                                               f"{slot_name(op.inputs[s])} vs op backward")

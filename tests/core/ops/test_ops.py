"""Registry-driven op tests: every op's forward against its numpy reference and every
differentiable input's gradient against central differences (float64); the eager tape routes
gradients the same way the op's backward computes them."""
import numpy as np
import pytest

import core
from core.ops.registry import all_ops, get_op

from .op_cases import load_all
from .op_harness import as64, check_case, grad_slots, projection, run_forward

CASES = load_all()
PARAMS = [pytest.param(t, c, id=f"{t}-{i}{'-' + c.name if c.name else ''}")
          for t, cs in sorted(CASES.items()) for i, c in enumerate(cs)]


def test_every_op_has_cases():
    ops = [op for op in all_ops() if op.checked_by_registry]
    missing = [op.type for op in ops if not CASES.get(op.type)]
    assert not missing, f"ops registered without test cases: {missing}"
    unknown = sorted(set(CASES) - {op.type for op in all_ops()})
    assert not unknown, f"cases for ops that are not registered: {unknown}"


def test_only_control_flow_ops_opt_out_of_the_registry_checks():
    """``checked_by_registry = False`` is for control-flow / program-plumbing ops, whose own
    module (tests/core/layers/test_control_flow.py) covers them; no other op may skip these
    checks."""
    skipped = {op.type: type(op).__module__ for op in all_ops() if not op.checked_by_registry}
    elsewhere = {t: m for t, m in skipped.items() if m != "core.ops.control_flow"}
    assert not elsewhere, f"ops outside core.ops.control_flow skip the registry tests: {elsewhere}"


def test_every_differentiable_input_has_a_gradient_check():
    """Each differentiable input slot of each op is gradient-checked by at least one case."""
    lacking = []
    for op in all_ops():
        if not op.checked_by_registry or not op.differentiable:
            continue
        checked = set()
        for c in CASES.get(op.type, []):
            checked.update(grad_slots(op, c))
        lacking += [f"{op.type}.{op.inputs[i]}" for i in op.grad_slots() if i not in checked]
    assert not lacking, f"differentiable inputs without a numeric gradient check: {lacking}"


@pytest.mark.parametrize("op_type,case", PARAMS)
def test_forward_and_numeric_gradient(op_type, case):
    check_case(op_type, case)


def _tensors(op, case, slots):
    def mk(v, need):
        if isinstance(v, np.ndarray):
            return core.to_tensor(v, stop_gradient=not need)
        return v

    ins = []
    for i, v in enumerate(as64(list(case.inputs))):
        need = i in slots
        ins.append([mk(a, need) for a in v] if isinstance(v, list) else mk(v, need))
    return ins


@pytest.mark.parametrize("op_type,case", [p for p in PARAMS
                                          if len(get_op(p.values[0]).outputs) == 1
                                          and not get_op(p.values[0]).random])
def test_eager_tape_matches_op_backward(op_type, case):
    """``Tensor.backward`` through the dispatch path gives the op's own gradient."""
    from core.dispatch import eager_apply

    from .op_harness import analytic_grad

    op = get_op(op_type)
    slots = grad_slots(op, case) if op.differentiable else []
    if not slots:
        pytest.skip("no differentiable input")
    inputs = [as64(v) for v in case.inputs]
    ws = projection(op, run_forward(op, case, inputs), np.random.default_rng(7))
    want = analytic_grad(op, case, inputs, ws, slots)
    tins = _tensors(op, case, slots)
    out = eager_apply(op, tins, case.attrs)
    if isinstance(out, list):  # a list output slot (split, unstack): one loss over the parts
        total = None
        for o, w in zip(out, ws[0]):
            term = (o * core.to_tensor(w)).sum()
            total = term if total is None else total + term
        total.backward()
    else:
        out.backward(core.to_tensor(ws[0]))
    for s in slots:
        ts = tins[s] if isinstance(tins[s], list) else [tins[s]]
        ws_ = want[s] if isinstance(tins[s], list) else [want[s]]
        for t, w in zip(ts, ws_):
            np.testing.assert_allclose(t.gradient(), w, rtol=1e-10, atol=1e-12)


def _on_device(v, xp):
    if isinstance(v, list):
        return [_on_device(a, xp) for a in v]
    return xp.asarray(v) if isinstance(v, np.ndarray) else v


def _to_host(v):
    from core.backend import as_numpy

    if isinstance(v, (list, tuple)):
        return [_to_host(a) for a in v]
    return None if v is None else as_numpy(v)


def _assert_same(got, want, what):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{what}[{k}]")
        return
    if want is None:
        assert got is None, f"{what}: None on numpy but not on the device"
        return
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: {got.dtype}{list(got.shape)} on the device vs {want.dtype}{list(want.shape)}"
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9, err_msg=what)


def compare_with_numpy(op_type, case, xp, place):
    """Forward and backward of one case on module ``xp`` equal the numpy run (float64)."""
    from core.ops.registry import KernelContext
    from core.random import make_generator

    op = get_op(op_type)
    inputs = [as64(v) for v in case.inputs]
    dev_inputs = [_on_device(v, xp) for v in inputs]
    ctx = KernelContext(xp, place, rng_source=lambda m: make_generator(m, case.seed))
    outs = op.forward(ctx, *dev_inputs, **op.full_attrs(case.attrs))
    outs = (outs,) if len(op.outputs) == 1 else tuple(outs)
    want = run_forward(op, case, inputs)
    if op.random:  # different generators: same shapes and dtypes only
        for g, w in zip(_to_host(outs), want):
            assert np.shape(g) == np.shape(w) and np.asarray(g).dtype == np.asarray(w).dtype
        return
    _assert_same(_to_host(outs), want, f"{op_type} forward")
    slots = grad_slots(op, case) if op.differentiable else []
    if not slots:
        return
    ws = projection(op, want, np.random.default_rng(7))
    needs = tuple(i in slots for i in range(len(op.inputs)))
    grads = op.backward(KernelContext(xp, place, needs_grad=needs), dev_inputs, list(outs),
                        [_on_device(w, xp) for w in ws], **op.full_attrs(case.attrs))
    from .op_harness import analytic_grad

    want_grads = analytic_grad(op, case, inputs, ws, slots)
    for s in slots:
        _assert_same(_to_host(grads[s]), want_grads[s], f"{op_type} grad of {op.inputs[s]}")


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
@pytest.mark.parametrize("op_type,case", PARAMS)
def test_cupy_matches_numpy(op_type, case):
    """Every registry case run on cupy gives numpy's outputs and gradients."""
    import cupy

    compare_with_numpy(op_type, case, cupy, core.CUDAPlace(0))

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


def test_every_differentiable_op_has_a_gradient_check():
    lacking = []
    for op in all_ops():
        if not op.checked_by_registry or not op.differentiable:
            continue
        if not any(grad_slots(op, c) for c in CASES.get(op.type, [])):
            lacking.append(op.type)
    assert not lacking, f"differentiable ops without a numeric gradient check: {lacking}"


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

"""Every registry op case run as a static Program with the optimisation passes on and off:
both give the eager result (forward) and the same gradients (``core.static.gradients``)."""
import numpy as np
import pytest

import core
from core import static
from core.ops.registry import get_op

from ...ops.op_harness import grad_slots, projection, run_forward
from ...ops.test_ops_static import PARAMS, _build, _flat, _grad_params, grad_program

OFF = static.BuildStrategy(enable_passes=False)


def _run(main, feed, fetch, strategy, case, random):
    if random:
        core.seed(case.seed)
    prog = main if strategy is None else static.CompiledProgram(main, build_strategy=strategy)
    return static.Executor(core.CPUPlace()).run(prog, feed=feed, fetch_list=fetch)


@pytest.mark.parametrize("op_type,case", PARAMS)
def test_forward_with_and_without_passes(op_type, case):
    op = get_op(op_type)
    main, _, feed, outs = _build(op, case, case.inputs)
    fetch = _flat(outs)
    on = _run(main, feed, fetch, None, case, op.random)
    off = _run(main, feed, fetch, OFF, case, op.random)
    want = [np.asarray(w) for w in _flat(run_forward(op, case, case.inputs))]
    for var, a, b, w in zip(fetch, on, off, want):
        assert a.dtype == b.dtype == w.dtype, f"{op_type} '{var.name}'"
        np.testing.assert_array_equal(a, b, err_msg=f"{op_type}: passes changed '{var.name}'")
        if not op.random:
            np.testing.assert_allclose(a.astype(np.float64), w.astype(np.float64), rtol=1e-6,
                                       atol=1e-7, err_msg=f"{op_type}: optimised vs eager")


@pytest.mark.parametrize("op_type,case", _grad_params())
def test_gradients_with_and_without_passes(op_type, case):
    op = get_op(op_type)
    slots = grad_slots(op, case)
    outs_np = run_forward(op, case, case.inputs)
    ws = projection(op, outs_np, np.random.default_rng(99))
    main, _, feed, grads = grad_program(op, case, case.inputs, ws, slots)
    grads = [g for g in grads if g is not None]
    on = _run(main, feed, grads, None, case, False)
    off = _run(main, feed, grads, OFF, case, False)
    for g, a, b in zip(grads, on, off):
        np.testing.assert_array_equal(a, b, err_msg=f"{op_type}: passes changed '{g.name}'")

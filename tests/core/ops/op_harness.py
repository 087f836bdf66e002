"""Running one op case: eager forward, direct backward, central-difference gradients."""
import numpy as np

from core.backend import CPUPlace
from core.ops.registry import KernelContext, get_op, is_list_slot, slot_name
from core.random import make_generator


def as64(v):
    """Floating arrays (also inside lists) converted to float64; everything else unchanged."""
    if isinstance(v, list):
        return [as64(a) for a in v]
    if isinstance(v, np.ndarray) and v.dtype.kind == "f":
        return v.astype(np.float64)
    return v


def ctx_for(case, needs=None):
    return KernelContext(np, CPUPlace(), rng_source=lambda xp: make_generator(xp, case.seed),
                         needs_grad=needs)


def run_forward(op, case, inputs):
    out = op.forward(ctx_for(case), *inputs, **op.full_attrs(case.attrs))
    return (out,) if len(op.outputs) == 1 else tuple(out)


def grad_slots(op, case):
    """Input slots whose gradient the case checks."""
    if case.grad is not None:
        return list(case.grad)
    slots = []
    for i in op.grad_slots():
        v = case.inputs[i]
        vals = v if isinstance(v, list) else [v]
        if vals and all(isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in vals):
            slots.append(i)
    return slots


def diff_outputs(op):
    return [k for k, s in enumerate(op.outputs) if slot_name(s) not in op.nondiff_outputs]


def projection(op, outs, rng):
    """Random weights per differentiable output (the direction the gradient is checked in)."""
    ws = []
    for k, o in enumerate(outs):
        if k not in diff_outputs(op):
            ws.append(None)
        elif is_list_slot(op.outputs[k]):
            ws.append([rng.standard_normal(np.shape(a)) for a in o])
        else:
            ws.append(rng.standard_normal(np.shape(o)))
    return ws


def objective(op, case, inputs, ws):
    outs = run_forward(op, case, inputs)
    total = 0.0
    for o, w in zip(outs, ws):
        if w is None:
            continue
        if isinstance(w, list):
            total += sum(float(np.sum(np.asarray(a, np.float64) * b)) for a, b in zip(o, w))
        else:
            total += float(np.sum(np.asarray(o, np.float64) * w))
    return total


def numeric_grad(op, case, inputs, ws, slot, pos):
    """d objective / d inputs[slot][pos] by central differences."""
    inputs = [list(v) if isinstance(v, list) else v for v in inputs]
    target = inputs[slot] if pos is None else inputs[slot][pos]
    target = np.array(target, dtype=np.float64)
    if pos is None:
        inputs[slot] = target
    else:
        inputs[slot][pos] = target
    g = np.zeros_like(target)
    flat, gflat = target.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + case.eps
        hi = objective(op, case, inputs, ws)
        flat[i] = old - case.eps
        lo = objective(op, case, inputs, ws)
        flat[i] = old
        gflat[i] = (hi - lo) / (2 * case.eps)
    return g


def analytic_grad(op, case, inputs, ws, slots):
    outs = run_forward(op, case, inputs)
    douts = list(ws)
    needs = tuple(i in slots for i in range(len(op.inputs)))
    res = op.backward(ctx_for(case, needs), list(inputs), list(outs), douts,
                      **op.full_attrs(case.attrs))
    assert isinstance(res, (tuple, list)) and len(res) == len(op.inputs), \
        f"backward of '{op.type}' must return one entry per input slot"
    return res


def check_case(op_type, case):
    """Every check the registry test makes for one case (raises AssertionError)."""
    op = get_op(op_type)
    outs = run_forward(op, case, case.inputs)
    if case.ref is not None:
        ref = case.ref(*case.inputs, **case.attrs)
        ref = ref if isinstance(ref, tuple) else (ref,)
        assert len(ref) <= len(outs), f"{op_type}: reference gives {len(ref)} outputs"
        for k, (o, r) in enumerate(zip(outs, ref)):
            if r is None:
                continue
            o_list, r_list = (o, r) if isinstance(o, list) else ([o], [r])
            for oo, rr in zip(o_list, r_list):
                rr = np.asarray(rr)
                assert np.shape(oo) == rr.shape, \
                    f"{op_type} output {k}: shape {np.shape(oo)} vs reference {rr.shape}"
                if rr.dtype.kind != "O":
                    got = np.asarray(oo).dtype
                    assert got == rr.dtype or case.attrs.get("_any_dtype"), \
                        f"{op_type} output {k}: dtype {got} vs reference {rr.dtype}"
                np.testing.assert_allclose(np.asarray(oo, dtype=np.float64),
                                           np.asarray(rr, dtype=np.float64),
                                           atol=case.atol, rtol=case.rtol,
                                           err_msg=f"{op_type} forward vs reference")
    slots = grad_slots(op, case) if op.differentiable else []
    if not slots:
        return False
    inputs = [as64(v) for v in case.inputs]
    outs64 = run_forward(op, case, inputs)
    ws = projection(op, outs64, np.random.default_rng(1234))
    res = analytic_grad(op, case, inputs, ws, slots)
    for slot in slots:
        vals = inputs[slot]
        positions = range(len(vals)) if isinstance(vals, list) else [None]
        for pos in positions:
            got = res[slot] if pos is None else res[slot][pos]
            want = numeric_grad(op, case, inputs, ws, slot, pos)
            assert got is not None, f"{op_type}: no gradient for input slot {op.inputs[slot]}"
            got = np.asarray(got)
            assert got.shape == want.shape, \
                f"{op_type} grad of {op.inputs[slot]}: shape {got.shape} vs {want.shape}"
            np.testing.assert_allclose(got, want, atol=case.atol, rtol=case.rtol,
                                       err_msg=f"{op_type}: analytic vs numeric gradient of "
                                               f"input {op.inputs[slot]}[{pos}]")
    return True

"""Registry-driven ONNX export tests: every registered op is exported and checked in
onnxruntime against the executor, or is listed (with its reason) in
``core.onnx.NOT_EXPORTABLE``.

Each registry case (``tests/core/ops/op_cases``) is built into a Program, pruned for inference as
``export_program`` prunes it, run by the Executor, exported, and run by onnxruntime on the same
feeds: values, shapes and dtypes must agree. An op with a mapper and no case that exports, an
op that is neither mapped nor listed, or an op both mapped and listed fails the suite.

To add an op: give it a mapper in ``core/onnx/ops_<family>.py`` (its registry cases then test
it here), or a line with the reason in ``NOT_EXPORTABLE`` (``core/onnx/registry.py``). Ops with
no registry cases (control flow, tensor arrays) name the test module that covers them in
``COVERED_ELSEWHERE``.
"""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import core.onnx as conx  # noqa: E402
from core import static  # noqa: E402
from core.dispatch import apply  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402
from core.ops.registry import all_ops, get_op  # noqa: E402
from core.static.prune import prune_for_inference  # noqa: E402

from ..ops.op_cases import Case, load_all  # noqa: E402
from ..ops.test_ops_static import _declare, _flat  # noqa: E402

CASES = load_all()

#: mapped ops whose tests are not registry cases, and the module that runs them in onnxruntime
COVERED_ELSEWHERE = {
    "cond": "tests/core/onnx/test_onnx_control_flow.py",
    "while": "tests/core/onnx/test_onnx_control_flow.py",
    "create_array": "tests/core/onnx/test_onnx_control_flow.py",
    "write_to_array": "tests/core/onnx/test_onnx_control_flow.py",
    "read_from_array": "tests/core/onnx/test_onnx_control_flow.py",
    "array_length": "tests/core/onnx/test_onnx_control_flow.py",
    "tensor_array_to_tensor": "tests/core/onnx/test_onnx_control_flow.py",
    "increment": "tests/core/onnx/test_onnx_control_flow.py",
    "print": "tests/core/onnx/test_onnx_control_flow.py",
    "assert": "tests/translator/test_onnx_models.py",
    "python_print": "tests/translator/test_print_calls.py",
}

#: registry cases ``(op type, case name)`` of mapped ops that have no ONNX form, with the
#: reason; the test checks that exporting them is an ExportError naming the op
UNSUPPORTED_CASES = {}

#: outputs the registry cases do not fetch from the export, with the reason
NOT_FETCHED = {
    "rnn": {"Reserve": "the backward pass's workspace: inference programs never read it"},
}

_r = np.random.default_rng(11)


def _f32(*shape):
    return _r.uniform(-1.0, 1.0, shape).astype(np.float32)


#: cases for mapper branches the registry cases do not reach (checked the same way)
EXTRA_CASES = {
    "pool2d": [
        Case([_f32(1, 2, 6, 5)], {"pooling_type": "avg", "ksize": [3, 2], "strides": [2, 2],
                                  "paddings": [1, 0, 1, 1], "ceil_mode": True,
                                  "exclusive": False}, name="avg-ceil-inclusive-pad"),
        Case([_f32(1, 2, 6, 5)], {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 1],
                                  "paddings": [1, 1], "exclusive": False}, name="avg-inclusive"),
        Case([_f32(1, 2, 6, 8)], {"pooling_type": "max", "ksize": [3, 4], "adaptive": True},
             name="adaptive-divisible"),
        Case([_f32(1, 2, 6, 5)], {"ksize": [3, 3], "strides": [2, 2], "paddings": [0, 1, 1, 0],
                                  "ceil_mode": True}, name="max-ceil-asym-pad"),
    ],
    "batch_norm": [
        Case([_f32(2, 3, 4, 3), _f32(3), _f32(3), _f32(3), np.abs(_f32(3)) + 0.5],
             {"is_test": True, "data_layout": "NHWC"}, name="test-nhwc"),
    ],
    "layer_norm": [Case([_f32(2, 3, 4), None, None], {"begin_norm_axis": 1}, name="no-affine")],
    "elementwise_add": [Case([_f32(3), _f32(2, 3, 4)], {"axis": 1}, name="x-lower-rank")],
    "squeeze": [Case([_f32(1, 3, 1, 2)], {"axes": [0, 1]}, name="named-non-unit")],
    "getitem": [
        Case([_f32(3, 4, 5), [np.array([[0, 2], [1, 1]]), np.array([1, 3])]],
             {"index": [{"kind": "slice", "start": None, "stop": None, "step": None},
                        {"kind": "tensor", "input": 0}, {"kind": "tensor", "input": 1}]},
             name="adjacent-after-slice"),
        Case([_f32(3, 4, 5), [np.array([[True, False, True, True]] * 3)]],
             {"index": [{"kind": "tensor", "input": 0}]}, name="mask-2d"),
        Case([_f32(3, 4, 5), [np.array([True, False, True, True, False])]],
             {"index": [{"kind": "ellipsis"}, {"kind": "tensor", "input": 0}]},
             name="mask-last-axis"),
    ],
}

PARAMS = [pytest.param(t, c, id=f"{t}-{i}{'-' + c.name if c.name else ''}")
          for t, cs in sorted(CASES.items()) if t in conx.MAPPERS for i, c in enumerate(cs)]
PARAMS += [pytest.param(t, c, id=f"{t}-onnx-{c.name}")
           for t, cs in sorted(EXTRA_CASES.items()) for c in cs]


def build_case(op_type, case):
    """``(program, feed, fetch names)`` for one registry case."""
    op = get_op(op_type)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        values, feed = _declare(case.inputs)
        outs = apply(op.type, values, case.attrs)
    outs = (outs,) if len(op.outputs) == 1 else tuple(outs)
    skip = NOT_FETCHED.get(op_type, ())
    outs = [o for s, o in zip(op.outputs, outs) if s not in skip]
    return main, feed, [v.name for v in _flat(outs)]


def run_both(program, feed, fetch, opset_version=None):
    """The executor's and onnxruntime's results for ``program`` pruned for inference."""
    model = conx.program_to_model(program, list(feed), fetch, opset_version=opset_version)
    pruned = prune_for_inference(program, list(feed), fetch)
    want = static.Executor(core.CPUPlace()).run(pruned, feed=feed, fetch_list=fetch)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, feed)
    return want, got


def assert_same(want, got, names, what, rtol=1e-4, atol=1e-5):
    assert len(want) == len(got), what
    for n, w, g in zip(names, want, got):
        w, g = np.asarray(w), np.asarray(g)
        assert g.dtype == w.dtype, f"{what} output '{n}': onnxruntime dtype {g.dtype}, " \
                                   f"executor {w.dtype}"
        assert g.shape == w.shape, f"{what} output '{n}': onnxruntime shape {g.shape}, " \
                                   f"executor {w.shape}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what} '{n}'")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what} '{n}'")


@pytest.mark.parametrize("opset", [conx.DEFAULT_OPSET, 21])
@pytest.mark.parametrize("op_type,case", PARAMS)
def test_op_in_onnxruntime_equals_executor(op_type, case, opset):
    main, feed, fetch = build_case(op_type, case)
    reason = UNSUPPORTED_CASES.get((op_type, case.name))
    if reason is not None:
        with pytest.raises(conx.ExportError, match=op_type):
            conx.program_to_model(main, list(feed), fetch, opset_version=opset)
        return
    want, got = run_both(main, feed, fetch, opset)
    assert_same(want, got, fetch, f"{op_type} ({case.name or 'case'})",
                rtol=max(case.rtol, 1e-4), atol=max(case.atol, 1e-5))


def test_every_op_is_mapped_or_listed():
    mapped, listed = set(conx.MAPPERS), set(conx.NOT_EXPORTABLE)
    assert not mapped & listed, f"ops both mapped and NOT_EXPORTABLE: {sorted(mapped & listed)}"
    missing = [op.type for op in all_ops() if op.type not in mapped | listed]
    assert not missing, (f"ops with neither an ONNX mapper nor a NOT_EXPORTABLE entry: {missing}; "
                         "add a mapper in core/onnx/ops_*.py or a reason in "
                         "core/onnx/registry.py")
    stale = sorted((mapped | listed) - {op.type for op in all_ops()})
    assert not stale, f"ONNX tables name ops that are not registered: {stale}"
    assert all(isinstance(r, str) and r for r in conx.NOT_EXPORTABLE.values())


def test_every_mapped_op_has_an_onnxruntime_check():
    unchecked = []
    for t in sorted(conx.MAPPERS):
        cases = CASES.get(t, [])
        exportable = [c for c in cases if (t, c.name) not in UNSUPPORTED_CASES]
        if not exportable and t not in COVERED_ELSEWHERE:
            unchecked.append(t)
    assert not unchecked, f"mapped ops with no onnxruntime check: {unchecked}"
    for t in COVERED_ELSEWHERE:
        assert t in conx.MAPPERS and not CASES.get(t), t
    for t, name in UNSUPPORTED_CASES:
        assert name in [c.name for c in CASES.get(t, [])], f"no registry case {t}/{name}"


def test_listed_op_is_an_error_naming_it_and_the_line():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [-1, 3], "float32")
        noisy = x + core.layers.uniform_random([3], "float32")
    (op,) = [op for op in main.global_block().ops if op.type == "uniform_random"]
    op.origin = ["model.py", 12, "noisy = x + uniform_random([3])"]
    with pytest.raises(conx.ExportError, match=r"uniform_random.*model.py:12.*random sampling"):
        conx.program_to_model(main, ["x"], [noisy.name])

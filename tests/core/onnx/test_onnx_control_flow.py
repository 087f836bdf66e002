"""ONNX export of control flow: ``cond`` as ``If``, ``while_loop`` as ``Loop``, tensor arrays as
sequences. Each program is exported once and run in onnxruntime on inputs that take each
branch and 0, 1 and several loop trips, against the executor; plus the export's errors, the
atomic write and the batch size left symbolic."""
import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import core  # noqa: E402
import core.onnx as conx  # noqa: E402
from core import layers, static  # noqa: E402
from core.mode import static_mode_guard  # noqa: E402

from .test_onnx_ops import assert_same  # noqa: E402


def _program(build):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        fetch = build()
    return main, startup, [v.name for v in fetch]


class Exported:
    """A program exported once, runnable by the executor and by onnxruntime."""

    def __init__(self, build, tmp_path, feeds):
        self.main, startup, self.fetch = _program(build)
        self.exe = static.Executor(core.CPUPlace())
        self.scope = static.Scope()
        with static.scope_guard(self.scope):
            self.exe.run(startup)
            path = os.fspath(tmp_path / "model.onnx")
            conx.export_program(self.main, path, feed=feeds, fetch=self.fetch)
        self.model = onnx.load(path)
        self.sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])

    def op_types(self):
        types, stack = set(), [self.model.graph]
        while stack:
            graph = stack.pop()
            for node in graph.node:
                types.add(node.op_type)
                stack.extend(a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH)
        return types

    def check(self, feed):
        with static.scope_guard(self.scope):
            want = self.exe.run(self.main, feed=feed, fetch_list=self.fetch)
        got = self.sess.run(None, feed)
        assert_same(want, got, self.fetch, "control flow")
        return got


def test_cond_becomes_if_and_takes_both_branches(tmp_path):
    def build():
        x = static.data("x", [-1, 3], "float32")
        s = layers.reduce_sum(x)
        out = layers.cond(s > 0, lambda: layers.relu(x) * 2.0, lambda: layers.exp(x) - 1.0)
        return [out]

    m = Exported(build, tmp_path, ["x"])
    assert "If" in m.op_types()
    pos = np.abs(np.random.default_rng(0).standard_normal((4, 3))).astype(np.float32)
    a = m.check({"x": pos})[0]
    b = m.check({"x": -pos})[0]
    np.testing.assert_allclose(a, pos * 2.0, rtol=1e-6)
    np.testing.assert_allclose(b, np.exp(-pos) - 1.0, rtol=1e-5)
    m.check({"x": pos[:1]})  # another batch size, the same file


def test_nested_cond_with_outer_reads(tmp_path):
    def build():
        x = static.data("x", [2], "float32")
        y = static.data("y", [2], "float32")
        inner = lambda: layers.cond(layers.reduce_sum(y) > 0, lambda: x + y, lambda: x - y)  # noqa
        out = layers.cond(layers.reduce_sum(x) > 0, inner, lambda: x * y)
        return [out]

    m = Exported(build, tmp_path, ["x", "y"])
    one = np.ones(2, np.float32)
    for sx in (1, -1):
        for sy in (1, -1):
            m.check({"x": sx * one * 0.5, "y": sy * one * np.float32(1.5)})


def _counting_loop():
    n = static.data("n", [1], "int64")
    x = static.data("x", [-1, 2], "float32")
    i = layers.fill_constant([1], "int64", 0)
    acc = layers.zeros_like(x)

    def body(i, acc):
        return [i + 1, layers.tanh(acc + x * 0.5)]

    i, acc = layers.while_loop(lambda i, acc: i < n, body, [i, acc])
    return [i, acc]


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_while_becomes_loop_for_0_1_and_several_trips(tmp_path, trips):
    m = Exported(_counting_loop, tmp_path, ["n", "x"])
    assert "Loop" in m.op_types()
    x = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
    i, acc = m.check({"n": np.array([trips], np.int64), "x": x})
    assert int(i[0]) == trips
    if trips == 0:
        assert not acc.any()


def test_while_with_cond_inside_and_data_dependent_exit(tmp_path):
    def build():
        x = static.data("x", [-1], "float32")

        def body(v, k):
            v = layers.cond(layers.reduce_max(v) > 4.0, lambda: v + 1.0, lambda: v * 2.0)
            return [v, k + 1]

        v, k = layers.while_loop(lambda v, k: layers.reduce_sum(v) < 20.0, body,
                                 [x, layers.fill_constant([], "int32", 0)])
        return [v, k]

    m = Exported(build, tmp_path, ["x"])
    assert {"Loop", "If"} <= m.op_types()
    for start in ([25.0, 1.0], [0.5, 0.25], [3.0, 0.1, 0.2], [1.0]):
        m.check({"x": np.array(start, np.float32)})


def test_tensor_array_appended_in_a_loop_becomes_a_sequence(tmp_path):
    def build():
        x = static.data("x", [-1, 3], "float32")
        n = static.data("n", [], "int64")
        arr = layers.create_array("float32")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, arr, h):
            h = layers.tanh(h + 1.0)
            arr = layers.array_write(h, layers.array_length(arr), arr)
            return [i + 1, arr, h]

        i, arr, _ = layers.while_loop(lambda i, arr, h: i < n, body, [i, arr, x])
        length = layers.array_length(arr)
        first = layers.array_read(arr, layers.fill_constant([1], "int64", 0))
        stacked, _ = core.dispatch.apply("tensor_array_to_tensor", [arr],
                                         {"axis": 1, "use_stack": True})
        joined, sizes = core.dispatch.apply("tensor_array_to_tensor", [arr],
                                            {"axis": 0, "use_stack": False})
        return [length, first, stacked, joined, sizes]

    m = Exported(build, tmp_path, ["x", "n"])
    assert {"Loop", "SequenceInsert", "ConcatFromSequence"} <= m.op_types()
    x = np.random.default_rng(2).standard_normal((2, 3)).astype(np.float32)
    for n in (1, 4):
        length, _, stacked, joined, sizes = m.check({"x": x, "n": np.array(n, np.int64)})
        assert int(length[0]) == n and stacked.shape == (2, n, 3) and joined.shape == (2 * n, 3)
        assert sizes.tolist() == [2] * n
    m.check({"x": x[:1], "n": np.array(3, np.int64)})


def test_tensor_array_written_at_an_index_replaces_the_element(tmp_path):
    def build():
        x = static.data("x", [2], "float32")
        arr = layers.array_write(x, layers.fill_constant([1], "int64", 0))
        arr = layers.array_write(x * 2.0, layers.fill_constant([1], "int64", 1), arr)
        arr = layers.array_write(x * 3.0, layers.fill_constant([1], "int64", 0), arr)
        i = layers.fill_constant([1], "int64", 0)
        layers.increment(i)
        return [layers.array_read(arr, layers.fill_constant([1], "int64", 0)),
                layers.array_read(arr, i), layers.array_length(arr),
                layers.Print(x, message="x")]

    m = Exported(build, tmp_path, ["x"])
    first, second, length, _ = m.check({"x": np.array([1.0, 2.0], np.float32)})
    assert first.tolist() == [3.0, 6.0] and second.tolist() == [2.0, 4.0]
    assert int(length[0]) == 2


def test_unknown_dims_stay_symbolic(tmp_path):
    m = Exported(_counting_loop, tmp_path, ["n", "x"])
    (x_in,) = [i for i in m.model.graph.input if i.name == "x"]
    dims = x_in.type.tensor_type.shape.dim
    assert dims[0].dim_param and not dims[0].HasField("dim_value") and dims[1].dim_value == 2


def test_unmapped_op_is_an_error_before_anything_is_written(tmp_path):
    def build():
        x = static.data("x", [-1, 3], "float32")
        return [layers.cond(layers.reduce_sum(x) > 0,
                            lambda: x + layers.gaussian_random([3], dtype="float32"),
                            lambda: x)]

    main, _, fetch = _program(build)
    (op,) = [op for op in main.blocks[1].ops if op.type == "gaussian_random"]
    op.origin = ["model.py", 7, "x = x + gaussian_random([3])"]
    path = tmp_path / "model.onnx"
    with pytest.raises(conx.ExportError, match=r"op 'gaussian_random' \(at model.py:7: x = "):
        conx.export_program(main, path, feed=["x"], fetch=fetch)
    assert os.listdir(tmp_path) == []
    path.write_bytes(b"old")
    with pytest.raises(conx.ExportError):
        conx.export_program(main, path, feed=["x"], fetch=fetch)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["model.onnx"]


def test_bad_arguments_are_clear_errors(tmp_path):
    main, _, fetch = _program(_counting_loop)
    with pytest.raises(ValueError, match="fetch"):
        conx.export_program(main, tmp_path / "m.onnx")
    with pytest.raises(ValueError, match="opset_version"):
        conx.export_program(main, tmp_path / "m.onnx", fetch=fetch, opset_version=9)
    with pytest.raises(ValueError, match=r"'feed' names \['nope'\]"):
        conx.export_program(main, tmp_path / "m.onnx", feed=["nope"], fetch=fetch)
    with pytest.raises(TypeError, match="dirname_or_program"):
        conx.export_program(42, tmp_path / "m.onnx")
    assert os.listdir(tmp_path) == []


def test_missing_onnx_names_the_extra(monkeypatch, tmp_path):
    from core.onnx import _deps

    monkeypatch.setattr(_deps, "onnx", None)
    main, _, fetch = _program(_counting_loop)
    with pytest.raises(ImportError, match=r"pip install dy2static\[onnx\]"):
        conx.export_program(main, tmp_path / "m.onnx", fetch=fetch)


@pytest.mark.parametrize("opset", [18, 19, 20, 21])
def test_newer_opsets(opset):
    main, _, fetch = _program(_counting_loop)
    model = conx.program_to_model(main, ["n", "x"], fetch, opset_version=opset)
    onnx.checker.check_model(model)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.ones((2, 2), np.float32)
    i, _ = sess.run(None, {"n": np.array([3], np.int64), "x": x})
    assert int(i[0]) == 3


def test_loop_variable_that_grows_each_trip(tmp_path):
    def build():
        x = static.data("x", [1, 2], "float32")
        n = static.data("n", [1], "int64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, acc):
            return [i + 1, layers.concat([acc, acc[-1:] * 2.0], axis=0)]

        _, acc = layers.while_loop(lambda i, acc: i < n, body, [i, x])
        return [acc]

    m = Exported(build, tmp_path, ["x", "n"])
    for n in (0, 1, 3):
        (acc,) = m.check({"x": np.array([[1.0, -1.0]], np.float32), "n": np.array([n])})
        assert acc.shape == (n + 1, 2)

"""``print`` in converted code writes what eager ``print`` writes, on every call, in order --
also inside a tensor ``if`` (only when that branch runs) and a tensor loop (once per trip) --
through ``declarative`` and through ``get_program`` + ``core.Executor``. Underneath is the
``python_print`` op (``core.layers.python_print``): eager equals static, gradients pass by it,
and an ONNX export leaves it out. Cases follow PaddlePaddle's dygraph_to_static
test_print.py (a tensor, a print in both branches of an ``if``)."""
import io
import os
import sys

import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative


def f32(*values):
    return np.array(values, dtype=np.float32)


def _outputs(fn, args, capsys, converted):
    """(result, stdout, stderr) of one call, with the translator on or off."""
    capsys.readouterr()
    ProgramTranslator().enable(converted)
    try:
        result = fn(*[core.to_tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    finally:
        ProgramTranslator().enable(True)
    captured = capsys.readouterr()
    return result, captured.out, captured.err


def _program_output(fn, args, capsys):
    """stdout of the Program of ``fn`` for ``args``, built by get_program and run by Executor
    (printing while the program is built is not printing)."""
    tensors = [core.to_tensor(a) for a in args if isinstance(a, np.ndarray)]
    others = [a for a in args if not isinstance(a, np.ndarray)]
    capsys.readouterr()
    main, startup, inputs, outputs = ProgramTranslator().get_program(fn, *tensors, *others)
    assert capsys.readouterr().out == "", "building the program printed"
    exe = core.Executor(core.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={v.name: t.numpy() for v, t in zip(inputs, tensors)},
            fetch_list=outputs)
    return capsys.readouterr().out


def _check_same_text(fn, cases, capsys, program=True):
    """For every case: eager, declarative (twice: the tracing call and a cached one) and the
    Executor write the same text and (where it applies) give the same result."""
    for args in cases:
        eager, out, err = _outputs(fn, args, capsys, converted=False)
        assert out or err, "the case prints nothing eagerly"
        for _ in range(2):
            got, got_out, got_err = _outputs(fn, args, capsys, converted=True)
            assert (got_out, got_err) == (out, err)
            if eager is not None:
                np.testing.assert_allclose(got.numpy(), eager.numpy())
        if program:
            assert _program_output(fn, args, capsys) == out


# -- PaddlePaddle's test_print cases ------------------------------------------------------------

def print_variable(x):
    x_v = core.dygraph.to_variable(x)
    print(x_v)


def print_with_ifelse(x):
    x_v = core.dygraph.to_variable(x)
    if len(x_v.shape) > 1:
        print(x_v)
    else:
        print(x_v)
    return x_v + 1


def test_paddle_print_cases(capsys):
    x = np.ones(5).astype("int32")
    _check_same_text(declarative(print_variable), [(x,)], capsys, program=False)
    _check_same_text(declarative(print_with_ifelse), [(x,), (np.ones([2, 2], "int32"),)],
                     capsys)


# -- arguments, keywords and order --------------------------------------------------------------

def mixed(x, n):
    print("start")
    y = x * 2
    print("x is", x, "and y is", y, "!", sep="|", end="<\n")
    print([x, y], (y,), {"y": y, "n": n}, n)
    print()
    print("end", end="")
    print(n, flush=True)
    return y


def test_mixed_arguments_sep_end_and_order(capsys):
    _check_same_text(declarative(mixed), [(f32(2.5), 3), (f32(-1.0, 4.0), 0)], capsys)


def to_stderr(x):
    print("to stderr:", x, file=sys.stderr)
    print("to stdout:", x + 1, file=sys.stdout)
    return x


def test_file_stdout_and_stderr(capsys):
    _check_same_text(declarative(to_stderr), [(f32(1.5),)], capsys)


def test_file_object(capsys):
    def to_buffer(x, buffer):
        print("value", x, file=buffer)
        return x * 3

    eager_buffer, converted_buffer = io.StringIO(), io.StringIO()
    _outputs(declarative(to_buffer), (f32(2.0), eager_buffer), capsys, converted=False)
    static = declarative(to_buffer)
    for _ in range(2):
        _outputs(static, (f32(2.0), converted_buffer), capsys, converted=True)
    assert converted_buffer.getvalue() == eager_buffer.getvalue() * 2


def test_bad_file_is_an_error_naming_file():
    def f(x):
        print(x, file=3)
        return x

    with pytest.raises(TypeError, match="'file'"):
        declarative(f)(core.to_tensor(f32(1.0)))


# -- control flow -------------------------------------------------------------------------------

def print_in_branch(x):
    if core.layers.reduce_sum(x) > 0:
        v = x * 2
        print("positive", v)
    else:
        v = x - 1
        print("not positive:", v, sep="")
    return v


def print_in_loop(x, n):
    i = 0
    while i < n:
        x = x + 1
        print("step", i, x)
        i += 1
    print("done after", i)
    return x


def test_print_only_on_the_branch_taken(capsys):
    _check_same_text(declarative(print_in_branch), [(f32(1.0, 2.0),), (f32(-1.0, -2.0),)],
                     capsys)


def test_print_each_trip_of_a_tensor_loop(capsys):
    fn = declarative(print_in_loop)
    n3, n0 = np.array(3, np.int64), np.array(0, np.int64)
    _check_same_text(fn, [(f32(1.0), n3)], capsys)
    # the same cached program, zero trips: only the line after the loop, the counter shown as
    # the Python int it is eagerly
    _, out, _ = _outputs(fn, (f32(1.0), n0), capsys, converted=True)
    assert out == "done after 0\n"
    assert _outputs(fn, (f32(1.0), n0), capsys, converted=False)[1] == out


def test_print_of_a_python_value_runs_every_call(capsys):
    def f(x):
        print("called")
        return x + 1

    static = declarative(f)
    for _ in range(3):
        capsys.readouterr()
        static(core.to_tensor(f32(1.0)))
        assert capsys.readouterr().out == "called\n"


def test_print_shadowed_by_a_local_is_not_converted(capsys):
    def f(x):
        print = lambda *args: None  # noqa: E731
        print("hidden", x)
        return x

    _, out, _ = _outputs(declarative(f), (f32(1.0),), capsys, converted=True)
    assert out == ""


def test_print_of_a_gradient_carrying_value_and_gradients(capsys):
    def f(x):
        y = x * x
        print("y =", y)
        return core.layers.reduce_sum(y * 3)

    x = core.to_tensor(f32(1.0, -2.0), stop_gradient=False)
    loss = declarative(f)(x)
    out = capsys.readouterr().out
    assert out.startswith("y = Tensor(shape=[2], dtype=float32") and \
        "stop_gradient=False" in out
    loss.backward()
    np.testing.assert_allclose(x.gradient(), 6 * np.array([1.0, -2.0]))


# -- the python_print op ------------------------------------------------------------------------

def test_python_print_op_eager_equals_static(capsys):
    a = f32(1.0, 2.0)
    eager_x = core.to_tensor(a)
    core.layers.python_print("a", eager_x, [eager_x, 1], sep=", ", end=".\n")
    eager_text = capsys.readouterr().out
    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [2], "float32")
            core.layers.python_print("a", x, [x, 1], sep=", ", end=".\n")
        finally:
            core.disable_static()
    assert capsys.readouterr().out == ""
    assert [op.type for op in main.global_block().ops] == ["python_print"]
    exe = core.Executor(core.CPUPlace())
    for _ in range(2):  # the passes keep an op whose outputs nobody fetches
        exe.run(main, feed={"x": a}, fetch_list=[])
        assert capsys.readouterr().out == eager_text


def test_python_print_op_bad_arguments():
    with pytest.raises(TypeError, match="'sep'"):
        core.layers.python_print(1, sep=3)
    with pytest.raises(TypeError, match="'end'"):
        core.layers.python_print(1, end=b"x")


def test_python_print_op_leaves_gradients_unchanged():
    """Numeric gradient of a Program with a print equals its analytic gradient."""
    def f(x):
        y = core.layers.tanh(x) * x
        print(y)
        return core.layers.reduce_sum(y)

    a = f32(0.3, -0.7, 1.1).astype(np.float64)
    x = core.to_tensor(a, stop_gradient=False)
    declarative(f)(x).backward()
    eps = 1e-6
    numeric = [(np.sum(np.tanh(a + eps * e) * (a + eps * e)) -
                np.sum(np.tanh(a - eps * e) * (a - eps * e))) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(x.gradient(), numeric, rtol=1e-6)


def test_onnx_export_leaves_the_print_out(tmp_path, capsys):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import translator.onnx as tonnx
    from translator import InputSpec

    path = tmp_path / "print.onnx"
    tonnx.export(print_in_branch, path, input_spec=[InputSpec([None, 2], "float32", "x")])
    onnx.checker.check_model(onnx.load(os.fspath(path)))
    session = ort.InferenceSession(os.fspath(path), providers=["CPUExecutionProvider"])
    for a in (np.ones([3, 2], np.float32), -np.ones([1, 2], np.float32)):
        got = session.run(None, {"x": a})[0]
        ProgramTranslator().enable(False)
        want = print_in_branch(core.to_tensor(a)).numpy()
        ProgramTranslator().enable(True)
        np.testing.assert_allclose(got, want)

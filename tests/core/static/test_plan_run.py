"""The one way to run a compiled plan (``Plan.run``) and the one way an op picks its kernel
(``OpDef.kernel_for``): contracts, and that the executor, eager dispatch and the plan compiler
go through them."""
import numpy as np
import pytest

import core
from core import layers, static
from core.errors import OpError, op_error_of
from core.mode import static_mode_guard
from core.ops.registry import Kernel, Meta, all_ops, get_op
from core.static.codegen import compile_plan
from core.static.plan import Plan


def _program(build):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        out = build()
    return main, out


def test_plan_run_takes_values_in_ext_order_and_returns_fetches_and_writes():
    def build():
        x = static.data("x", [2, 3], "float32")
        y = static.data("y", [3], "float32")
        return layers.elementwise_mul(x, y) + 1.0

    main, out = _program(build)
    plan = compile_plan(main, ["y", "x"], [out.name], np, core.CPUPlace())
    assert isinstance(plan, Plan)
    assert "ctx" not in plan.fn.__globals__  # the context is an argument, never a global
    names = ["x", "y"]
    idx = plan.positions(names)
    assert [names[i] for i in idx] == [n for n, _ in plan.ext]
    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.array([1, 2, 3], np.float32)
    values = [x, y]
    fetched, written = plan.run([values[i] for i in idx])
    np.testing.assert_array_equal(fetched[0], x * y + 1.0)
    assert written == ()
    with pytest.raises(RuntimeError, match="'y'"):
        plan.positions(["x"])


def test_plan_run_reports_the_failing_op_and_its_inputs():
    def build():
        x = static.data("x", [-1, 3], "float32")
        w = static.data("w", [-1, 2], "float32")
        return layers.matmul(x, w)

    main, out = _program(build)
    plan = compile_plan(main, ["x", "w"], [out.name], np, core.CPUPlace())
    vals = {"x": np.ones((2, 3), np.float32), "w": np.ones((4, 2), np.float32)}
    with pytest.raises(OpError, match=r"op 'matmul'.*X='x' float32\[2, 3\]") as info:
        plan.run([vals[n] for n, _ in plan.ext])
    assert info.value.__cause__ is not None
    # the kernel's ValueError: an OpError that ``except ValueError`` catches, as eagerly
    assert isinstance(info.value, ValueError)


def test_op_errors_keep_the_kind_of_their_cause():
    # an index out of range is an IndexError in a program run, as in the same code eagerly
    def build():
        i = layers.fill_constant([1], "int64", 3)
        arr = layers.array_write(layers.fill_constant([2], "float32", 1.0),
                                 layers.fill_constant([1], "int64", 0))
        return layers.array_read(arr, i)

    main, out = _program(build)
    plan = compile_plan(main, [], [out.name], np, core.CPUPlace())
    with pytest.raises(IndexError, match="out of range") as info:
        plan.run([])
    assert isinstance(info.value, OpError) and "array_read" in str(info.value)
    # eagerly too; an error kind outside Python's value / lookup / arithmetic / type errors
    # gives a plain OpError
    with pytest.raises(IndexError, match="index 5 is out of range") as info:
        layers.gather(core.to_tensor(np.ones((2, 3), "float32")), core.to_tensor(np.array([5])))
    assert isinstance(info.value, OpError)
    assert not isinstance(op_error_of("m", OSError("x")), OSError)
    assert str(op_error_of("m", KeyError("k"))) == "m"


def test_plan_run_draws_from_the_rng_source_it_is_given():
    def build():
        return layers.uniform_random([4], "float32", min=0.0, max=1.0)

    main, out = _program(build)
    plan = compile_plan(main, [], [out.name], np, core.CPUPlace())

    def source(seed):
        gen = np.random.default_rng(seed)
        return lambda xp: gen

    a = plan.run([], rng_source=source(5))[0][0]
    b = plan.run([], rng_source=source(5))[0][0]
    c = plan.run([], rng_source=source(6))[0][0]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_kernel_for_order_fast_then_made_then_forward():
    matmul = get_op("matmul")
    attrs = matmul.full_attrs({})
    metas = [Meta((2, 3), np.dtype("float32")), Meta((3, 4), np.dtype("float32"))]
    fast = matmul.kernel_for(np, metas, attrs)
    assert fast.takes == "arrays" and fast.fn is np.matmul
    eager = matmul.kernel_for(np, None, attrs)  # eager mode: no static metas
    assert eager.takes == "attrs" and eager.fn == matmul.forward
    printer = get_op("print")
    made = printer.kernel_for(np, [Meta((2,), np.dtype("float32"))], printer.full_attrs({}))
    assert made.takes == "ctx"
    exp = get_op("exp")  # a unary math op offers its ufunc
    assert exp.kernel_for(np, [Meta((2,), np.dtype("float32"))], {}).fn is np.exp


def test_every_kernel_the_registry_chooses_is_a_kernel():
    for op in all_ops():
        k = op.kernel_for(np, None, op.full_attrs({}))
        assert isinstance(k, Kernel) and k.takes in ("arrays", "ctx", "attrs"), op.type


@pytest.mark.parametrize("takes", ["arrays", "ctx", "attrs"])
def test_kernel_call_contract_is_forward(takes):
    ctx = core.ops.registry.KernelContext(np, core.CPUPlace())
    x = np.array([1.0, -2.0], np.float32)
    if takes == "arrays":
        k = Kernel(np.negative, "arrays")
    elif takes == "ctx":
        k = Kernel(lambda c, a: c.xp.negative(a), "ctx")
    else:
        k = Kernel(lambda c, a, scale: c.xp.negative(a) * scale, "attrs")
    np.testing.assert_array_equal(k(ctx, x, scale=1.0), -x)


def test_eager_dispatch_runs_the_kernel_the_registry_chooses(monkeypatch):
    op = get_op("exp")
    calls = []
    real = type(op).kernel_for

    def spy(self, xp, metas, attrs):
        calls.append(metas)
        return real(self, xp, metas, attrs)

    monkeypatch.setattr(type(op), "kernel_for", spy)
    with core.dygraph.guard():
        got = layers.exp(core.to_tensor(np.zeros(2, np.float32))).numpy()
    np.testing.assert_array_equal(got, [1.0, 1.0])
    assert calls == [None]


def test_executor_checks_every_feed_also_when_its_plan_is_cached():
    def build():
        x = static.data("x", [-1, 3], "float32")
        return layers.scale(x, 2.0)

    main, out = _program(build)
    exe = static.Executor(core.CPUPlace())
    ok = np.ones((2, 3), np.float32)
    got, = exe.run(main, feed={"x": ok}, fetch_list=[out])
    np.testing.assert_array_equal(got, ok * 2)
    with pytest.raises(TypeError, match="feed 'x': expected dtype float32"):
        exe.run(main, feed={"x": ok.astype(np.float64)}, fetch_list=[out])
    with pytest.raises(ValueError, match=r"feed 'x': expected shape \[-1, 3\]"):
        exe.run(main, feed={"x": np.ones((2, 4), np.float32)}, fetch_list=[out])
    got, = exe.run(main, feed={"x": [[1.0, 2.0, 3.0]]}, fetch_list=[out])  # not an ndarray
    np.testing.assert_array_equal(got, [[2.0, 4.0, 6.0]])

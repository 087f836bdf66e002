"""Executor: feed/fetch validation, scopes, plan caching, run-time error reports, places."""
import numpy as np
import pytest

import core
from core import layers, static
from core.errors import OpError
from core.mode import static_mode_guard
from core.static import builder


def build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        out = fn()
    return main, startup, out


def _affine():
    x = static.data("x", [None, 3], "float32")
    w = builder.append_parameter("w_exec", [3, 2], "float32",
                                 init=("fill_constant", {"shape": [3, 2], "dtype": "float32",
                                                         "value": 0.5}))
    return x, w, layers.matmul(x, w)


def test_run_with_startup_and_scope():
    main, startup, (_x, _w, y) = build(_affine)
    scope = static.Scope()
    exe = static.Executor(core.CPUPlace())
    exe.run(startup, scope=scope)
    got, = exe.run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(got, np.full((4, 2), 1.5))
    t = scope.find_var("w_exec").get_tensor()
    np.testing.assert_allclose(np.array(t), np.full((3, 2), 0.5))
    t.set(np.ones((3, 2), np.float32), core.CPUPlace())
    got, = exe.run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=[y.name],
                   scope=scope)
    np.testing.assert_allclose(got, np.full((1, 2), 3.0))
    assert scope.find_var("nothing") is None


def test_scope_guard_and_compiled_program_and_lodtensor_results():
    main, startup, (_x, _w, y) = build(_affine)
    scope = static.Scope()
    with static.scope_guard(scope):
        assert static.global_scope() is scope
        exe = static.Executor()
        exe.run(static.CompiledProgram(startup))
        assert scope.find_var("w_exec") is not None  # startup wrote into the guarded scope
        res = exe.run(static.CompiledProgram(main), feed={"x": np.ones((2, 3), np.float32)},
                      fetch_list=[y], return_numpy=False)
    assert static.global_scope() is not scope
    assert isinstance(res[0], static.LoDTensor) and res[0].shape() == [2, 2]
    np.testing.assert_allclose(np.array(res[0]), np.full((2, 2), 1.5))


def test_startup_not_run_names_the_parameter():
    main, _, (_x, _w, y) = build(_affine)
    with pytest.raises(RuntimeError, match=r"'w_exec'.*startup program"):
        static.Executor().run(main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[y],
                              scope=static.Scope())


def _double():
    x = static.data("x", [None, 3], "float32")
    return x, x * 2.0


def test_feed_dtype_mismatch():
    main, _, (_x, y) = build(_double)
    with pytest.raises(TypeError, match=r"feed 'x': expected dtype float32.*got float64"):
        static.Executor().run(main, feed={"x": np.ones((2, 3))}, fetch_list=[y])


def test_feed_shape_mismatch():
    main, _, (_x, y) = build(_double)
    with pytest.raises(ValueError, match=r"feed 'x': expected shape \[-1, 3\].*got \[2, 4\]"):
        static.Executor().run(main, feed={"x": np.ones((2, 4), np.float32)}, fetch_list=[y])


def test_feed_unknown_name():
    main, _, (_x, y) = build(_double)
    with pytest.raises(ValueError, match=r"feed 'z' is not a variable.*'x'"):
        static.Executor().run(main, feed={"x": np.ones((1, 3), np.float32), "z": 1},
                              fetch_list=[y])


def test_missing_feed_names_the_data_variable():
    main, _, (_x, y) = build(_double)
    with pytest.raises(RuntimeError, match=r"data variable 'x'.*not fed"):
        static.Executor().run(main, fetch_list=[y])


def test_fetch_unknown_name():
    main, _, (_x, _y) = build(_double)
    with pytest.raises(ValueError, match="fetch 'nope' is not a variable"):
        static.Executor().run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=["nope"])


def test_feed_accepts_lists_and_tensors():
    main, _, (_x, y) = build(_double)
    exe = static.Executor()
    got, = exe.run(main, feed={"x": [[1, 2, 3]]}, fetch_list=[y])
    np.testing.assert_allclose(got, [[2, 4, 6]])
    with core.dygraph.guard():
        t = core.to_tensor(np.ones((1, 3), np.float32))
    got, = exe.run(main, feed={"x": t}, fetch_list=[y])
    np.testing.assert_allclose(got, [[2, 2, 2]])


def test_runtime_failure_names_op_inputs_and_origin():
    old = builder.set_origin_provider(lambda: ("user_model.py", 42, "y = x @ w"))
    try:
        def fn():
            x = static.data("x", [None, 3], "float32")
            w = static.data("w", [None, 2], "float32")
            return layers.matmul(x, w)

        main, _, y = build(fn)
    finally:
        builder.set_origin_provider(old)
    with pytest.raises(OpError) as info:
        static.Executor().run(main, feed={"x": np.ones((2, 3), np.float32),
                                          "w": np.ones((4, 2), np.float32)}, fetch_list=[y])
    msg = str(info.value)
    assert "op 'matmul'" in msg and "block 0" in msg
    assert "X='x' float32[2, 3]" in msg and "Y='w' float32[4, 2]" in msg
    assert "user_model.py:42" in msg
    assert info.value.__cause__ is not None


def test_plan_is_cached_and_recompiled_after_a_change():
    main, _, (_x, y) = build(_double)
    exe = static.Executor()
    feed = {"x": np.ones((1, 3), np.float32)}
    exe.run(main, feed=feed, fetch_list=[y])
    plans = dict(exe._plans[main])
    exe.run(main, feed=feed, fetch_list=[y])
    assert dict(exe._plans[main]) == plans
    with static.program_guard(main), static_mode_guard():
        z = y + 1.0
    got, = exe.run(main, feed=feed, fetch_list=[z])
    np.testing.assert_allclose(got, [[3, 3, 3]])
    assert exe._plans[main]["version"] == main._version


def test_temporaries_are_deleted_after_last_use():
    def fn():
        x = static.data("x", [4], "float32")
        return layers.reduce_sum(layers.exp(x) * 2.0)

    main, _, y = build(fn)
    from core.static.codegen import compile_plan

    plan = compile_plan(main, ["x"], [y.name], np, core.CPUPlace())
    assert "del " in plan.source


def test_hostile_names_never_reach_generated_source():
    name = "x'); import os  # \\n"

    def fn():
        x = static.data(name, [2], "float32")
        return x * 3.0

    main, _, y = build(fn)
    got, = static.Executor().run(main, feed={name: np.ones(2, np.float32)}, fetch_list=[y])
    np.testing.assert_allclose(got, [3, 3])
    from core.static.codegen import compile_plan

    assert "import os" not in compile_plan(main, [name], [y.name], np, core.CPUPlace()).source


def test_random_seed_makes_runs_reproducible():
    def fn():
        return layers.uniform_random([3], "float32", -1.0, 1.0)

    main, _, r = build(fn)
    main.random_seed = 7
    a, = static.Executor().run(main, fetch_list=[r])
    b, = static.Executor().run(main, fetch_list=[r])
    np.testing.assert_array_equal(a, b)
    exe = static.Executor()
    first, = exe.run(main, fetch_list=[r])
    second, = exe.run(main, fetch_list=[r])
    assert not np.array_equal(first, second)


def test_runs_in_eager_mode_too():
    main, _, (_x, y) = build(_double)
    assert core.in_dynamic_mode()
    got, = static.Executor().run(main, feed={"x": np.ones((1, 3), np.float32)}, fetch_list=[y])
    np.testing.assert_allclose(got, [[2, 2, 2]])


@pytest.mark.gpu
@pytest.mark.skipif(not core.is_compiled_with_cuda(), reason="needs cupy and a CUDA device")
def test_same_program_on_cpu_and_gpu():
    def fn():
        x = static.data("x", [2, 3], "float32")
        s = layers.reduce_sum(x)
        h = layers.cond(s > 0.0, lambda: layers.tanh(x), lambda: x * 2.0)
        i = layers.fill_constant([1], "int64", 0)
        _, h = layers.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, h * 1.5], [i, h])
        loss = layers.reduce_sum(h * h)
        return x, loss, static.gradients([loss], [x])[0]

    main, _, (_x, loss, gx) = build(fn)
    feed = {"x": np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)}
    cpu = static.Executor(core.CPUPlace()).run(main, feed=feed, fetch_list=[loss, gx])
    gpu = static.Executor(core.CUDAPlace(0)).run(main, feed=feed, fetch_list=[loss, gx])
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_feed_errors_come_before_scope_errors_and_cover_unneeded_feeds():
    main, _, (_x, _w, y) = build(_affine)
    with pytest.raises(ValueError, match=r"feed 'xx' is not a variable of the program; its data "
                                         r"variables are \['x'\]"):
        static.Executor().run(main, feed={"xx": np.ones((2, 3), np.float32)}, fetch_list=[y],
                              scope=static.Scope())

    def fn():
        x = static.data("x", [None, 3], "float32")
        lab = static.data("label", [None, 1], "int64")
        return x, lab, x * 2.0

    main, _, (_x, _lab, y) = build(fn)
    with pytest.raises(TypeError, match=r"feed 'label': expected dtype int64.*got float32"):
        static.Executor().run(main, feed={"x": np.ones((2, 3), np.float32),
                                          "label": np.ones((2, 1), np.float32)}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"feed 'label': expected shape \[-1, 1\].*got \[2\]"):
        static.Executor().run(main, feed={"x": np.ones((2, 3), np.float32),
                                          "label": np.ones(2, np.int64)}, fetch_list=[y])


def test_fetch_error_says_what_was_expected():
    def fn():
        x = static.data("x", [None, 3], "float32")
        i = layers.fill_constant([1], "int64", 0)
        _, h = layers.while_loop(lambda i, h: i < 2, lambda i, h: [i + 1, layers.exp(h)], [i, x])
        return x, h

    main, _, (_x, h) = build(fn)
    feed = {"x": np.ones((1, 3), np.float32)}
    with pytest.raises(ValueError, match=r"fetch 'nope' is not a variable of the program's "
                                         r"global block; expected a Variable"):
        static.Executor().run(main, feed=feed, fetch_list=["nope"])
    with pytest.raises(ValueError, match=rf"fetch '{h.name}x'.*did you mean \['{h.name}'"):
        static.Executor().run(main, feed=feed, fetch_list=[h.name + "x"])
    inner = next(n for n in main.block(1).vars if n.startswith("exp"))
    with pytest.raises(ValueError, match=rf"fetch '{inner}'.*local to block 1.*cond / while"):
        static.Executor().run(main, feed=feed, fetch_list=[inner])


def test_runtime_failure_inside_a_sub_block_names_that_block():
    def fn():
        x = static.data("x", [None, 3], "float32")
        w = static.data("w", [None, 2], "float32")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            return [i + 1, layers.cond(layers.reduce_sum(h) > 1e9, lambda: h,
                                       lambda: h + layers.reduce_sum(layers.matmul(x, w)))]

        return layers.while_loop(lambda i, h: i < 3, body, [i, x])[1]

    main, _, h = build(fn)
    cond_op = next(op for op in main.block(1).ops if op.type == "cond")
    false_block = cond_op.attr("false_block")
    with pytest.raises(OpError) as info:
        static.Executor().run(main, feed={"x": np.ones((2, 3), np.float32),
                                          "w": np.ones((4, 2), np.float32)}, fetch_list=[h])
    msg = str(info.value)
    assert f"op 'matmul' (block {false_block})" in msg and false_block > 1
    assert "X='x' float32[2, 3]" in msg and "Y='w' float32[4, 2]" in msg

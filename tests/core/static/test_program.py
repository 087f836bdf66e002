"""Program IR: blocks, variables, operators, the builder's input conversion, clone, str."""
import re

import numpy as np
import pytest

import core
from core import layers, static
from core.mode import static_mode_guard
from core.static import builder


def build(fn):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        out = fn()
    return main, startup, out


def test_ops_append_to_the_current_block_with_inferred_outputs():
    main, _, (x, y) = build(lambda: (lambda x: (x, layers.reduce_sum(x * 2.0, dim=[1])))(
        static.data("x", [None, 3], "float32")))
    gb = main.global_block()
    assert [op.type for op in gb.ops] == ["fill_constant", "elementwise_mul", "reduce_sum"]
    op = gb.ops[1]
    assert op.input("X") == ["x"] and op.output("Out") == op.output_arg_names
    assert op.attr("axis") == -1
    assert y.shape == [-1] and y.dtype == np.float32 and y.block is gb
    assert gb.var("x") is x and main.num_blocks == 1


def test_scalar_constants_follow_weak_promotion():
    def fn():
        i = static.data("i", [2], "int64")
        f = static.data("f", [2], "float32")
        return i + 1, i + 1.5, f * 2
    _, _, (a, b, c) = build(fn)
    assert a.dtype == np.int64 and b.dtype == np.float64 and c.dtype == np.float32


def test_ndarray_and_eager_tensor_inputs_become_constants():
    with core.dygraph.guard():
        t = core.to_tensor(np.array([1.0, 2.0], np.float32))
        p = core.Parameter(np.ones(2, np.float32), name="eager_p")

    def fn():
        x = static.data("x", [2], "float32")
        return x + np.array([10.0, 20.0], np.float32) + t + p

    main, _, y = build(fn)
    assert "assign_value" in [op.type for op in main.global_block().ops]
    param = main.global_block().var("eager_p")
    assert isinstance(param, static.program.Parameter) and param.persistable
    scope = static.Scope()
    scope.var("eager_p").get_tensor().set(np.ones(2, np.float32))
    got, = static.Executor().run(main, feed={"x": np.zeros(2, np.float32)}, fetch_list=[y],
                                 scope=scope)
    np.testing.assert_allclose(got, [12, 23])


def test_variable_of_another_program_is_rejected():
    _, _, x = build(lambda: static.data("x", [2], "float32"))
    with pytest.raises(ValueError, match="'x' of a different Program"):
        build(lambda: x * 2.0)


def test_variable_protocol_errors():
    _, _, x = build(lambda: static.data("x", [None, 3], "float32"))
    with pytest.raises(TypeError, match=r"truth value of static Variable 'x'.*declarative.*cond"):
        bool(x)
    with pytest.raises(TypeError, match=r"len\(\) of static Variable 'x'.*unknown"):
        len(x)
    _, _, y = build(lambda: static.data("y", [4, 3], "float32"))
    assert len(y) == 4


def test_block_var_keyerror_names_var_and_block():
    main, _, _ = build(lambda: static.data("x", [1], "float32"))
    with pytest.raises(KeyError, match="'nope' is not in block 0"):
        main.global_block().var("nope")


def test_sub_block_variables_resolve_through_parents():
    main = static.Program()
    gb = main.global_block()
    gb.create_var(name="outer", shape=[1], dtype="float32")
    sub = main._create_block()
    assert sub.parent_idx == 0 and main.current_block() is sub
    assert sub._find_var_recursive("outer") is gb.var("outer")
    main._rollback()
    assert main.current_block() is gb


def test_version_bumps_on_every_change():
    main = static.Program()
    v0 = main._version
    main.global_block().create_var(name="a", shape=[1], dtype="float32")
    v1 = main._version
    main.global_block().append_op("fill_constant", {}, {"Out": ["a"]},
                                  {"shape": [1], "dtype": "float32", "value": 1.0})
    assert v0 < v1 < main._version


def test_attrs_must_be_json_data():
    main = static.Program()
    with pytest.raises(TypeError, match="attribute 'bad' must be JSON data"):
        main.global_block().append_op("fill_constant", {}, {}, {"bad": object()})
    op = main.global_block().append_op("fill_constant", {}, {},
                                       {"value": np.float32(2.5), "shape": np.array([2])})
    assert op.attrs == {"value": 2.5, "shape": [2]}


def test_str_lists_blocks_vars_ops_and_origin():
    old = builder.set_origin_provider(lambda: ("model.py", 7, "y = x * 2"))
    try:
        main, _, _y = build(lambda: static.data("x", [None, 3], "float32") * 2.0)
    finally:
        builder.set_origin_provider(old)
    text = str(main)
    assert "block 0" in text and "var x : float32[-1, 3]" in text
    assert "elementwise_mul(inputs={X=['x']" in text and "# model.py:7" in text


def test_create_parameter_and_global_var_initialise_in_startup():
    def fn():
        w = builder.append_parameter("w_p", [2, 2], "float32",
                                     init=("fill_constant", {"shape": [2, 2], "dtype": "float32",
                                                             "value": 3.0}))
        g = static.create_global_var([1], 5.0, "float32", persistable=True, name="gv")
        return w, g

    _main, startup, (w, _g) = build(fn)
    assert w.persistable and w.trainable and not w.stop_gradient
    assert [op.type for op in startup.global_block().ops] == ["fill_constant", "fill_constant"]
    scope = static.Scope()
    static.Executor().run(startup, scope=scope)
    np.testing.assert_allclose(np.array(scope.find_var("w_p").get_tensor()), np.full((2, 2), 3))
    np.testing.assert_allclose(np.array(scope.find_var("gv").get_tensor()), [5.0])


def test_clone_for_test_drops_training_ops_and_sets_is_test():
    def fn():
        x = static.data("x", [None, 4], "float32")
        w = builder.append_parameter("w_c", [4, 1], "float32",
                                     init=("fill_constant", {"shape": [4, 1], "dtype": "float32",
                                                             "value": 1.0}))
        h = layers.dropout(layers.matmul(x, w), 0.5)
        loss = layers.mean(h)
        test_prog = static.default_main_program().clone(for_test=True)
        core.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return test_prog, loss

    main, _, (test_prog, _loss) = build(fn)
    full = main.clone(for_test=True)
    for prog in (test_prog, full):
        types = [op.type for op in prog.global_block().ops]
        assert not any(t.endswith("_grad") or t == "sgd" for t in types), types
        drop = next(op for op in prog.global_block().ops if op.type == "dropout")
        assert drop.attr("is_test") is True
    assert any(op.type == "sgd" for op in main.global_block().ops)
    copy = main.clone()
    assert [op.type for op in copy.global_block().ops] == \
        [op.type for op in main.global_block().ops]
    assert copy.global_block().ops[0] is not main.global_block().ops[0]


def test_name_scope_prefixes_names():
    def fn():
        x = static.data("x", [1], "float32")
        with static.name_scope("encoder"):
            return x * 2.0
    _, _, y = build(fn)
    assert y.name.startswith("encoder/")


def test_layers_data_appends_batch_dim():
    _, _, (a, b) = build(lambda: (layers.data("a", [3]), layers.data("b", [-1, 3],
                                                                      append_batch_size=True)))
    assert a.shape == [-1, 3] and b.shape == [-1, 3] and a.is_data


def test_program_block_and_operator_api():
    def fn():
        x = static.data("x", [None, 2], "float32")
        return x, layers.cond(layers.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)

    main, _, (_x, out) = build(fn)
    assert main.num_blocks == 3 and len(main.blocks) == 3
    assert main.block(0) is main.global_block() and main.current_block() is main.global_block()
    with pytest.raises(IndexError, match="3 blocks; block 5"):
        main.block(5)
    sub = main.block(1)
    assert (sub.idx, sub.parent_idx, main.global_block().parent_idx) == (1, 0, -1)
    cond_op = main.global_block().ops[-1]
    assert cond_op.type == "cond"
    assert (cond_op.attr("true_block"), cond_op.attr("false_block")) == (1, 2)
    assert cond_op.input("Cond") == [main.global_block().ops[-2].output("Out")[0]]
    assert "x" in cond_op.input_arg_names and cond_op.output_arg_names == [out.name]
    assert [op.type for op in main.block(2).ops] == ["fill_constant", "elementwise_sub"]
    names = [v.name for v in main.list_vars()]
    assert names[0] == "x" and out.name in names and len(names) == len(set(names))
    assert set(names) == {n for b in main.blocks for n in b.vars}
    with pytest.raises(KeyError, match="op 'cond' has no attribute 'nope'"):
        cond_op.attr("nope")
    with pytest.raises(KeyError, match="op 'cond' has no input slot 'X'"):
        cond_op.input("X")
    # building by hand through Block.create_var / append_op runs like built ops
    prog = static.Program()
    gb = prog.global_block()
    gb.create_var(name="a", shape=[2], dtype="float32")
    op = gb.append_op("fill_constant", {}, {"Out": ["a"]},
                      {"shape": [2], "dtype": "float32", "value": 4.0})
    assert op.block is gb and op.idx == 0 and prog.random_seed == 0
    got, = static.Executor().run(prog, fetch_list=["a"])
    np.testing.assert_allclose(got, [4.0, 4.0])


def test_default_programs_collect_ops_and_initialisers_in_static_mode():
    main, startup = static.Program(), static.Program()
    old_main, old_startup = static.default_main_program(), static.default_startup_program()
    with static.program_guard(main, startup):
        assert static.default_main_program() is main
        assert static.default_startup_program() is startup
        core.enable_static()
        try:
            x = layers.data("x", [3])
            y = core.nn.Linear(3, 2)(x)
        finally:
            core.disable_static()
    assert static.default_main_program() is old_main
    assert static.default_startup_program() is old_startup
    assert [op.type for op in main.global_block().ops] == ["matmul", "elementwise_add"]
    params = main.all_parameters()
    assert [p.shape for p in params] == [[3, 2], [2]]
    assert all(p.persistable and p.trainable for p in params)
    assert sorted(op.output_arg_names[0] for op in startup.global_block().ops) == \
        sorted(p.name for p in params)
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    got, = exe.run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[y], scope=scope)
    w, b = (np.asarray(scope.find_var(p.name).get_tensor()) for p in params)
    np.testing.assert_allclose(got, np.ones((4, 3)) @ w + b, rtol=1e-6)


def test_data_declarations_and_unique_names():
    def fn():
        a = static.data("a", [None, 3, -1], "int64")
        b = layers.data("b", [2, 3], append_batch_size=False)
        c = layers.data("c", [None, 3])  # already has an unknown dim: nothing prepended
        h1 = layers.fc(b, 4)
        h2 = layers.fc(b, 4)
        return a, b, c, h1, h2

    with core.unique_name.guard():
        main, _, (a, b, c, h1, h2) = build(fn)
    assert (a.shape, a.dtype, a.is_data, a.stop_gradient) == ([-1, 3, -1], np.int64, True, True)
    assert b.shape == [2, 3] and c.shape == [-1, 3] and b.dtype == np.float32
    assert h1.name != h2.name
    assert sorted(p.name for p in main.all_parameters()) == \
        ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    with pytest.raises(ValueError, match=r"'shape' of 'd'.*got \[2, -3\]"):
        build(lambda: static.data("d", [2, -3], "float32"))
    with pytest.raises(RuntimeError, match=r"layers.data\('e'\).*enable_static"):
        layers.data("e", [3])


def test_str_shows_attributes_outputs_and_sub_blocks():
    def fn():
        x = static.data("x", [None, 2], "float32")
        i = layers.fill_constant([1], "int64", 0)
        return layers.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, layers.scale(h, 2.5)],
                                 [i, x])

    main, _, _ = build(fn)
    text = str(main)
    assert text.startswith("program (random_seed=0, 2 block(s))")
    assert "block 1 (parent 0) {" in text
    assert "scale(inputs={X=[" in text and "scale=2.5" in text
    assert "while(inputs={" in text and "sub_block=1" in text
    assert re.search(r"var fill_constant\.tmp_\d+ : int64\[1\]", text)
    assert re.search(r"\{Out=\['fill_constant\.tmp_\d+'\]\} = fill_constant\(inputs=\{\}, "
                     r"shape=\[1\], dtype=int64, value=0\)", text)


def test_clone_for_test_switches_batch_norm_to_running_statistics():
    rng = np.random.default_rng(0)
    xv = rng.normal(2.0, 3.0, size=(8, 3)).astype(np.float32)

    def fn():
        x = static.data("x", [None, 3], "float32")
        return x, core.nn.BatchNorm(3, momentum=0.5)(x)

    main, startup, (_x, y) = build(fn)
    test_prog = main.clone(for_test=True)
    bn, = [op for op in test_prog.global_block().ops if op.type == "batch_norm"]
    assert bn.attr("is_test") is True
    assert main.global_block().ops[0].attr("is_test") is False
    scope = static.Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    train_out, = exe.run(main, feed={"x": xv}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(train_out, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-5),
                               rtol=1e-4, atol=1e-5)
    mean_name, var_name = bn.input("Mean")[0], bn.input("Variance")[0]
    mean = np.asarray(scope.find_var(mean_name).get_tensor()).copy()
    var = np.asarray(scope.find_var(var_name).get_tensor()).copy()
    np.testing.assert_allclose(mean, 0.5 * xv.mean(0), rtol=1e-5)
    test_out, = exe.run(test_prog, feed={"x": xv}, fetch_list=[y.name], scope=scope)
    np.testing.assert_allclose(test_out, (xv - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-6)
    # inference leaves the running statistics alone
    np.testing.assert_array_equal(np.asarray(scope.find_var(mean_name).get_tensor()), mean)
    np.testing.assert_array_equal(np.asarray(scope.find_var(var_name).get_tensor()), var)


def test_checkpoint_and_rollback_to_undo_a_trace():
    import core.static as st

    prog = st.Program()
    gb = prog.global_block()
    gb.create_var(name="a", shape=[1], dtype="float32")
    gb.append_op("fill_constant", {}, {"Out": ["a"]}, {"shape": [1], "dtype": "float32",
                                                      "value": 1.0})
    point = prog.checkpoint()
    version = prog._version
    sub = prog._create_block()
    sub.create_var(name="b", shape=[1], dtype="float32")
    prog._current_block_idx = 0
    gb.create_var(name="c", shape=[1], dtype="float32")
    gb.append_op("fill_constant", {}, {"Out": ["c"]}, {"shape": [1], "dtype": "float32",
                                                      "value": 2.0})
    prog._create_block()  # left current, as an exception inside a trace would
    prog.rollback_to(point)
    assert len(prog.blocks) == 1 and list(gb.vars) == ["a"] and len(gb.ops) == 1
    assert prog.current_block() is gb and prog._version > version
    with pytest.raises(ValueError, match="not a checkpoint"):
        prog.rollback_to((5, 0, 0, ()))


def test_remove_op_deletes_the_operator_and_invalidates_the_plan_cache():
    prog = static.Program()
    with static_mode_guard(), static.program_guard(prog):
        x = static.data("x", [2], "float32")
        y = layers.scale(x, 2.0)
        z = layers.scale(x, 3.0)
    exe = static.Executor()
    feed = {"x": np.ones(2, "float32")}
    assert exe.run(prog, feed=feed, fetch_list=[y])[0].tolist() == [2.0, 2.0]
    gb = prog.global_block()
    n = len(gb.ops)
    idx = next(i for i, op in enumerate(gb.ops) if z.name in op.output_arg_names)
    gb.remove_op(idx)
    assert len(gb.ops) == n - 1 and all(z.name not in op.output_arg_names for op in gb.ops)
    assert gb._remove_op == gb.remove_op  # PaddlePaddle's spelling
    assert exe.run(prog, feed=feed, fetch_list=[y])[0].tolist() == [2.0, 2.0]

"""Program IR: blocks, variables, operators, the builder's input conversion, clone, str."""
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
        w = builder.create_parameter("w_p", [2, 2], "float32",
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
        w = builder.create_parameter("w_c", [4, 1], "float32",
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

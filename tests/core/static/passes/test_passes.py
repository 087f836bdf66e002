"""The optimisation passes one by one: each rewrites what it should, leaves what it must, and
changes no result (the same program run with the passes off is the oracle, and eager mode
where it applies)."""
import re

import numpy as np
import pytest

import core
from core import layers, static
from core.mode import static_mode_guard
from core.static import passes
from core.static.codegen import compile_plan
from core.static.passes import dce, fold

OFF = static.BuildStrategy(enable_passes=False)


def _types(program, block=0):
    return [op.type for op in program.block(block).ops]


def _run(main, feed, fetch, strategy=None, startup=None, steps=1, seed=3):
    """Fetched values of ``steps`` runs from a fresh scope (startup run under ``seed``)."""
    core.seed(seed)
    exe, scope = static.Executor(core.CPUPlace()), static.Scope()
    if startup is not None:
        exe.run(startup, scope=scope)
    prog = main if strategy is None else static.CompiledProgram(main, build_strategy=strategy)
    return [exe.run(prog, feed=feed, fetch_list=fetch, scope=scope) for _ in range(steps)]


def _same(a, b, exact=False):
    for ra, rb in zip(a, b):
        for x, y in zip(ra, rb):
            if exact:
                np.testing.assert_array_equal(x, y)
            else:
                np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def _conv_net(act="relu", train=True, fetch_inner=False, batch=None, pool="max", size=3,
              stride=2):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [batch, 2, 8, 8], "float32")
        conv = core.nn.Conv2D(2, 3, 3, act=act)
        y = conv(img)
        inner = main.global_block().ops[0].output("Output")[0]
        z = layers.pool2d(y, size, pool_type=pool, pool_stride=stride)
        loss = layers.mean(z)
        if train:
            core.optimizer.SGD(0.1).minimize(loss)
    fetch = [loss, main.global_block().var(inner)] if fetch_inner else [loss]
    return main, startup, fetch


# -- the user's Program is never changed --------------------------------------------------------
def test_running_with_passes_leaves_the_program_as_built():
    main, startup, fetch = _conv_net()
    before = (_types(main), main._version, len(main.global_block().vars))
    _run(main, {"img": np.ones((2, 2, 8, 8), np.float32)}, fetch, startup=startup)
    assert (_types(main), main._version, len(main.global_block().vars)) == before
    opt, report = passes.optimize(main, ["img"], [f.name for f in fetch])
    assert "conv2d_fusion" in _types(opt) and "conv2d_fusion" not in _types(main)
    assert dict(report)["fuse_conv"] == 2  # the chain, then its ReLU moved into the pool
    main, _, fetch = _conv_net(size=2)  # windows tiling the map: one op for both
    opt, report = passes.optimize(main, ["img"], [f.name for f in fetch])
    assert _types(opt).count("conv2d_pool2d_fusion") == 1 and dict(report)["fuse_conv"] == 2


# -- conv2d + bias + relu -----------------------------------------------------------------------
@pytest.mark.parametrize("act", ["relu", None])
def test_conv_chain_and_its_gradients_become_conv2d_fusion(act):
    main, startup, fetch = _conv_net(act)
    opt, _ = passes.optimize(main, ["img"], [f.name for f in fetch])
    types = _types(opt)
    assert types.count("conv2d_fusion") == 1 and types.count("conv2d_fusion_grad") == 1
    for gone in ("conv2d", "conv2d_grad", "elementwise_add_grad", "relu", "relu_grad"):
        assert gone not in types
    fused = opt.global_block().ops[types.index("conv2d_fusion")]
    # with a ReLU, the max pool after it takes the ReLU over: relu_pool2d
    assert fused.attrs["activation"] == "identity"
    assert ("relu_pool2d" in types and "relu_pool2d_grad" in types) == bool(act)
    x = np.random.default_rng(0).normal(size=(4, 2, 8, 8)).astype(np.float32)
    params = [p.name for p in main.all_parameters()]
    on = _run(main, {"img": x}, fetch + params, startup=startup, steps=3)
    off = _run(main, {"img": x}, fetch + params, OFF, startup=startup, steps=3)
    _same(on, off)


@pytest.mark.parametrize("act", ["relu", None])
@pytest.mark.parametrize("train", [True, False])
def test_conv_and_a_tiling_max_pool_become_one_op(train, act):
    main, startup, fetch = _conv_net(act, train=train, size=2)
    opt, _ = passes.optimize(main, ["img"], [f.name for f in fetch])
    types = _types(opt)
    assert types.count("conv2d_pool2d_fusion") == 1
    assert types.count("conv2d_pool2d_fusion_grad") == (1 if train else 0)
    for gone in ("conv2d_fusion", "conv2d_fusion_grad", "pool2d", "pool2d_grad", "relu_pool2d"):
        assert gone not in types
    fused = opt.global_block().ops[types.index("conv2d_pool2d_fusion")]
    assert fused.attrs["activation"] == ("relu" if act else "identity")
    assert fused.attrs["ksize"] == [2, 2] and fused.attrs["pool_strides"] == [2, 2]
    # batches 4 and 1; the negative shift leaves some windows wholly below ReLU's kink
    for n in (4, 1):
        x = (np.random.default_rng(n).normal(size=(n, 2, 8, 8)) - 0.5).astype(np.float32)
        fetch_all = fetch + ([p.name for p in main.all_parameters()] if train else [])
        _same(_run(main, {"img": x}, fetch_all, startup=startup, steps=3),
              _run(main, {"img": x}, fetch_all, OFF, startup=startup, steps=3))


def test_conv_pool_fusion_needs_exact_tiles_one_group_and_a_private_map():
    # overlapping windows, a padded pool and a map side not divisible: only the ReLU moves
    for size, stride, pad in ((3, 2, 0), (2, 2, 1), (4, 4, 0)):
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup), static_mode_guard():
            img = static.data("img", [None, 2, 8, 8], "float32")
            y = core.nn.Conv2D(2, 3, 3, act="relu")(img)
            z = layers.pool2d(y, size, pool_stride=stride, pool_padding=pad)
        types = _types(passes.optimize(main, ["img"], [z.name])[0])
        assert "conv2d_pool2d_fusion" not in types and "relu_pool2d" in types, (size, pad)
    # grouped convolutions keep conv2d_fusion
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 2, 8, 8], "float32")
        y = core.nn.Conv2D(2, 4, 3, groups=2, act="relu")(img)
        z = layers.pool2d(y, 2, pool_stride=2)
    assert "conv2d_pool2d_fusion" not in _types(passes.optimize(main, ["img"], [z.name])[0])
    # the pre-pool map fetched: nothing fuses across it
    main, startup, fetch = _conv_net(size=2, fetch_inner=True)
    types = _types(passes.optimize(main, ["img"], [f.name for f in fetch])[0])
    assert "conv2d_pool2d_fusion" not in types


@pytest.mark.parametrize("train", [True, False])
def test_relu_moves_into_a_max_pool_only(train):
    for pool, moved in (("max", True), ("avg", False)):
        main, startup, fetch = _conv_net(train=train, pool=pool)
        opt, _ = passes.optimize(main, ["img"], [f.name for f in fetch])
        types = _types(opt)
        assert ("relu_pool2d" in types) == moved and types.count("conv2d_fusion") == 1
        fused = opt.global_block().ops[types.index("conv2d_fusion")]
        assert fused.attrs["activation"] == ("identity" if moved else "relu")
        x = np.random.default_rng(8).normal(size=(3, 2, 8, 8)).astype(np.float32)
        fetch = fetch + ([p.name for p in main.all_parameters()] if train else [])
        _same(_run(main, {"img": x}, fetch, startup=startup, steps=2),
              _run(main, {"img": x}, fetch, OFF, startup=startup, steps=2))


def test_conv_chain_matches_eager_conv2d():
    core.seed(5)
    conv = core.nn.Conv2D(2, 3, 3, act="relu")
    x = np.random.default_rng(1).normal(size=(2, 2, 8, 8)).astype(np.float32)
    want = conv(core.to_tensor(x)).numpy()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 2, 8, 8], "float32")
        out = core.layers.relu(core.layers.conv2d(img, 3, 3, bias_attr=True))
    w, b = [p.name for p in main.all_parameters()]
    scope = static.Scope()
    scope._vars[w], scope._vars[b] = conv.weight.numpy(), conv.bias.numpy()
    got, = static.Executor().run(main, feed={"img": x}, fetch_list=[out], scope=scope)
    assert "conv2d_fusion" in _types(passes.optimize(main, ["img"], [out.name])[0])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_conv_chain_is_not_fused_when_an_intermediate_is_fetched_or_read_again():
    main, startup, fetch = _conv_net(fetch_inner=True)
    opt, _ = passes.optimize(main, ["img"], [f.name for f in fetch])
    assert "conv2d_fusion" not in _types(opt)
    x = np.ones((2, 2, 8, 8), np.float32)
    _same(_run(main, {"img": x}, fetch, startup=startup),
          _run(main, {"img": x}, fetch, OFF, startup=startup))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 2, 8, 8], "float32")
        c = core.layers.conv2d(img, 3, 3, bias_attr=False)
        y = core.layers.elementwise_add(c, core.layers.create_parameter([3], "float32"),
                                        axis=1)
        z = core.layers.reduce_sum(c) + core.layers.reduce_sum(y)  # c read twice
    opt, _ = passes.optimize(main, ["img"], [z.name])
    assert "conv2d_fusion" not in _types(opt)


# -- GEMM + bias + activation -------------------------------------------------------------------
@pytest.mark.parametrize("act", ["tanh", "softmax", "relu", "sigmoid", None])
def test_fc_chain_and_its_gradients_become_fc(act):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [None, 3, 4], "float32")
        y = layers.fc(x, 5, num_flatten_dims=2, act=act)
        loss = layers.mean(y * y)
        core.optimizer.SGD(0.5).minimize(loss)
    opt, _ = passes.optimize(main, ["x"], [loss.name])
    types = _types(opt)
    assert types.count("fc") == 1 and types.count("fc_grad") == 1 and "mul" not in types
    assert opt.global_block().ops[types.index("fc")].attrs["activation_type"] == (act or "")
    xv = np.random.default_rng(2).normal(size=(2, 3, 4)).astype(np.float32)
    fetch = [loss] + [p.name for p in main.all_parameters()]
    _same(_run(main, {"x": xv}, fetch, startup=startup, steps=3),
          _run(main, {"x": xv}, fetch, OFF, startup=startup, steps=3))


def test_matmul_with_a_transpose_is_not_fused():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [2, 4], "float32")
        w = static.data("w", [3, 4], "float32")
        b = static.data("b", [3], "float32")
        y = layers.relu(layers.matmul(x, w, transpose_y=True) + b)
    opt, report = passes.optimize(main, ["x", "w", "b"], [y.name])
    assert dict(report)["fuse_fc"] == 0 and "fc" not in _types(opt)


# -- constant folding and dead code -------------------------------------------------------------
def test_constants_fold_and_dead_ops_go():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [3], "float32")
        c = layers.fill_constant([3], "float32", 2.0)
        k = layers.scale(c, scale=3.0, bias=1.0) * c  # (2 * 3 + 1) * 2 = 14, all constant
        big = layers.fill_constant([300], "float32", 1.0) * 2.0  # over MAX_ELEMENTS
        _dead = layers.exp(x)
        y = x + k + layers.reduce_sum(big)
    opt = main.clone()
    assert fold.run(opt, ["x"], [y.name]) == 2
    assert "scale" not in _types(opt) and _types(opt).count("elementwise_mul") == 1
    assert dce.run(opt, ["x"], [y.name]) >= 1 and "exp" not in _types(opt)
    xv = np.arange(3, dtype=np.float32)
    on, off = _run(main, {"x": xv}, [y]), _run(main, {"x": xv}, [y], OFF)
    _same(on, off, exact=True)
    np.testing.assert_allclose(on[0][0], xv + 14 + 600)


def test_a_fed_constant_is_not_folded():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        c = layers.fill_constant([2], "float32", 1.0)
        y = c * 3.0
    opt = main.clone()
    assert fold.run(opt, [c.name], [y.name]) == 0
    feed = {c.name: np.array([5, 6], np.float32)}  # the op still writes it, as in Paddle
    _same(_run(main, feed, [y]), _run(main, feed, [y], OFF), exact=True)


# -- memory planning ----------------------------------------------------------------------------
def _rnn(steps=5, train=False):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [steps, 2, 4], "float32")
        w = static.data("w", [4, 4], "float32")
        b = static.data("b", [4], "float32")
        x.stop_gradient = w.stop_gradient = not train
        i = layers.fill_constant([], "int64", 0)
        h0 = layers.fill_constant([2, 4], "float32", 0.0)

        def body(i, h):
            return [i + 1, layers.tanh(layers.matmul(x[i], w) + layers.matmul(h, w) + b)]

        _, h = layers.while_loop(lambda i, h: i < steps, body, [i, h0])
        loss = layers.mean(h)
        grads = static.gradients([loss], [w]) if train else []
    return main, {"x": np.random.default_rng(3).normal(size=(steps, 2, 4)).astype(np.float32),
                  "w": np.random.default_rng(4).normal(size=(4, 4)).astype(np.float32) * .5,
                  "b": np.ones(4, np.float32)}, [h, loss] + grads


def test_elementwise_chain_in_a_while_body_runs_in_place():
    main, feed, fetch = _rnn()
    _opt, report = passes.optimize(main, list(feed), [f.name for f in fetch])
    assert dict(report)["memory"] == 3  # add, add, tanh
    plan = compile_plan(main, list(feed), [f.name for f in fetch], np, core.CPUPlace())
    calls = [re.match(r"\s*\w+ = k\d+\((.*)\)$", line) for line in plan.source.splitlines()]
    args = [m.group(1).split(", ") for m in calls if m]
    assert sum(1 for a in args if len(a) >= 2 and a[-1] in a[:-1]) == 3  # ufunc(a, b, a)
    _same(_run(main, feed, fetch), _run(main, feed, fetch, OFF))


def test_no_in_place_write_into_a_value_a_gradient_reads():
    main, feed, fetch = _rnn(train=True)
    _opt, report = passes.optimize(main, list(feed), [f.name for f in fetch])
    assert dict(report)["memory"] == 0
    _same(_run(main, feed, fetch), _run(main, feed, fetch, OFF), exact=True)


def test_no_in_place_write_into_a_fetched_or_twice_read_value():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [2, 3], "float32")
        a = layers.matmul(x, x, transpose_y=True)  # fresh, [2, 2]
        b = a + a  # a read twice by one op
        c = layers.exp(b)  # b only read here: in place
        d = c * 2.0
    opt, _ = passes.optimize(main, ["x"], [d.name, c.name])
    inplace = [op.type for op in opt.global_block().ops if id(op) in opt._inplace]
    assert inplace == ["exp"]  # not 'elementwise_add' (a twice), not the mul (c fetched)
    xv = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    _same(_run(main, {"x": xv}, [d, c]), _run(main, {"x": xv}, [d, c], OFF), exact=True)


# -- the switches -------------------------------------------------------------------------------
def test_global_switch_and_environment_variable(monkeypatch):
    main, startup, fetch = _conv_net(train=False)
    names = [f.name for f in fetch]

    def compiled_types():
        exe = static.Executor(core.CPUPlace())
        scope = static.Scope()
        exe.run(startup, scope=scope)
        exe.run(main, feed={"img": np.ones((1, 2, 8, 8), np.float32)}, fetch_list=fetch,
                scope=scope)
        plan = exe._plans[main][(main._version, ("img",), tuple(names), passes.generation(),
                                 None)]
        return {op.type for op, _ in plan.line_ops.values()}

    assert "conv2d_fusion" in compiled_types()
    passes.set_enabled(False)
    try:
        assert "conv2d_fusion" not in compiled_types() and not passes.active(None)
    finally:
        passes.set_enabled(True)
    monkeypatch.setenv("DY2STATIC_PASSES", "0")
    assert "conv2d_fusion" not in compiled_types()
    monkeypatch.setenv("DY2STATIC_PASSES", "1")
    assert "conv2d_fusion" in compiled_types()


def test_build_strategy_fields():
    s = static.BuildStrategy(fuse_conv_bias_act_ops=False)
    main, _startup, fetch = _conv_net()
    opt, report = passes.optimize(main, ["img"], [f.name for f in fetch], s)
    assert "fuse_conv" not in dict(report) and "conv2d_fusion" not in _types(opt)
    with pytest.raises(TypeError, match="unknown field 'fuse_everything'"):
        static.BuildStrategy(fuse_everything=True)
    with pytest.raises(AttributeError, match="no field 'enable_magic'"):
        s.enable_magic = True
    with pytest.raises(TypeError, match="must be True or False"):
        s.enable_inplace = 1
    with pytest.raises(TypeError, match="True or False"):
        passes.set_enabled("no")


def test_memory_planning_only_strategy_runs_no_rewriting_pass():
    s = static.BuildStrategy.memory_planning_only()
    assert s.enable_passes and s.enable_inplace
    main, _startup, fetch = _conv_net()
    _opt, report = passes.optimize(main, ["img"], [f.name for f in fetch], s)
    assert set(dict(report)) <= {"memory"}, report


def test_random_ops_draw_the_same_values_after_ops_before_them_are_fused():
    main, startup = static.Program(), static.Program()
    main.random_seed = 7
    with static.program_guard(main, startup), static_mode_guard():
        img = static.data("img", [None, 2, 8, 8], "float32")
        y = core.nn.Conv2D(2, 3, 3, act="relu")(img)
        z = layers.dropout(y, 0.5)
    x = np.ones((2, 2, 8, 8), np.float32)
    assert "conv2d_fusion" in _types(passes.optimize(main, ["img"], [z.name])[0])
    _same(_run(main, {"img": x}, [z], startup=startup, steps=2),
          _run(main, {"img": x}, [z], OFF, startup=startup, steps=2))


def test_each_pass_module_states_what_it_preserves():
    for _, module in passes.PASSES:
        assert "Preserves" in module.__doc__, module.__name__


# -- elementwise chains (fuse_elewise_add_act_ops) ----------------------------------------------
ELEW = static.BuildStrategy(fuse_elewise_add_act_ops=True)


def test_elementwise_chain_in_a_while_body_becomes_one_op():
    main, feed, fetch = _rnn()
    opt, report = passes.optimize(main, list(feed), [f.name for f in fetch], ELEW)
    assert dict(report)["fuse_elementwise"] == 1
    body = [op for op in opt.blocks[1].ops if op.type == "fused_elementwise"]
    assert [s[0] for s in body[0].attrs["steps"]] == ["elementwise_add", "elementwise_add",
                                                       "tanh"]
    assert "tanh" not in _types(opt, 1)
    _same(_run(main, feed, fetch, ELEW), _run(main, feed, fetch, OFF))


def test_elementwise_chain_and_its_gradients_become_one_op_each():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [None, 4], "float32")
        w = layers.create_parameter([4], "float32")
        y = layers.sigmoid(layers.elementwise_max(x * w, x) - w)  # x read by two steps
        loss = layers.mean(y)
        core.optimizer.SGD(0.5).minimize(loss)
    opt, _ = passes.optimize(main, ["x"], [loss.name], ELEW)
    types = _types(opt)
    assert types.count("fused_elementwise") == 1 and types.count("fused_elementwise_grad") == 1
    assert not {"elementwise_mul", "elementwise_max", "sigmoid_grad"} & set(types)
    xv = np.random.default_rng(5).normal(size=(3, 4)).astype(np.float32)
    fetch = [loss, w]
    _same(_run(main, {"x": xv}, fetch, ELEW, startup=startup, steps=3),
          _run(main, {"x": xv}, fetch, OFF, startup=startup, steps=3))


def test_relu_and_maximum_write_in_place_by_keyword():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [2, 3], "float32")
        a = layers.relu(layers.matmul(x, x, transpose_y=True))
        b = layers.elementwise_max(layers.matmul(x, x, transpose_y=True), a)
    plan = compile_plan(main, ["x"], [b.name], np, core.CPUPlace())
    assert plan.source.count(", out=") == 2
    xv = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    _same(_run(main, {"x": xv}, [b]), _run(main, {"x": xv}, [b], OFF), exact=True)


def test_dead_code_elimination_drops_the_declarations_fusion_left_unused():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [None, 4], "float32")
        w = static.data("w", [4, 3], "float32")
        b = static.data("b", [3], "float32")
        y = layers.tanh(layers.matmul(x, w) + b)
    opt, _ = passes.optimize(main, ["x", "w", "b"], [y.name])
    assert sorted(opt.global_block().vars) == sorted(["x", "w", "b", y.name])
    assert len(main.global_block().vars) == 6


# -- loop-invariant GEMMs -----------------------------------------------------------------------
def test_input_projection_of_a_while_loop_is_one_gemm_before_it():
    main, feed, fetch = _rnn()
    opt, report = passes.optimize(main, list(feed), [f.name for f in fetch])
    assert dict(report)["loop_gemm"] == 1
    gb = opt.global_block()
    hoisted = [op for op in gb.ops if op.type == "matmul"]
    assert len(hoisted) == 1 and hoisted[0].inputs["X"] == ["x"]
    assert gb.ops.index(hoisted[0]) < _types(opt).index("while")
    assert hoisted[0].outputs["Out"][0] in gb.ops[_types(opt).index("while")].inputs["X"]
    assert _types(opt, 1).count("matmul") == 1  # h @ w stays in the loop
    _same(_run(main, feed, fetch), _run(main, feed, fetch, OFF))


def test_no_hoisting_when_the_loop_writes_the_operand_or_gradients_replay_it():
    main, feed, fetch = _rnn(train=True)
    assert dict(passes.optimize(main, list(feed), [f.name for f in fetch])[1])["loop_gemm"] == 0
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [3, 2, 4], "float32")
        w = static.data("w", [4, 4], "float32")
        i = layers.fill_constant([], "int64", 0)

        def body(i, m):
            return [i + 1, layers.matmul(m[i], w) + m]  # m changes in the loop

        _, out = layers.while_loop(lambda i, m: i < 2, body, [i, x])
    _opt, report = passes.optimize(main, ["x", "w"], [out.name])
    assert dict(report)["loop_gemm"] == 0
    feed = {"x": np.ones((3, 2, 4), np.float32), "w": np.eye(4, dtype=np.float32)}
    _same(_run(main, feed, [out]), _run(main, feed, [out], OFF), exact=True)


def test_unrolled_input_projections_become_one_gemm():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [4, 2, 3], "float32")
        w = static.data("w", [3, 3], "float32")
        v = static.data("v", [3, 3], "float32")
        h = layers.fill_constant([2, 3], "float32", 0.0)
        for t in range(4):  # a Python loop: unrolled, constant row indices
            h = layers.tanh(layers.matmul(x[t], w) + h)
        few = layers.matmul(x[0], v)  # one row of x times v: left alone
    opt, report = passes.optimize(main, ["x", "w", "v"], [h.name, few.name])
    assert dict(report)["loop_gemm"] == 1
    gemms = [op for op in opt.global_block().ops if op.type == "matmul"]
    assert len(gemms) == 2 and gemms[0].inputs["X"] == ["x"]  # the batched one, first
    rng = np.random.default_rng(6)
    feed = {"x": rng.normal(size=(4, 2, 3)).astype(np.float32),
            "w": rng.normal(size=(3, 3)).astype(np.float32),
            "v": rng.normal(size=(3, 3)).astype(np.float32)}
    _same(_run(main, feed, [h, few]), _run(main, feed, [h, few], OFF))


# -- cond / while sub-blocks --------------------------------------------------------------------
def test_fusion_inside_cond_branches_of_a_while_body():
    main = static.Program()
    with static.program_guard(main, static.Program()), static_mode_guard():
        x = static.data("x", [2, 4], "float32")
        w = static.data("w", [4, 4], "float32")
        b = static.data("b", [4], "float32")
        i = layers.fill_constant([], "int64", 0)

        def body(i, h):
            h2 = layers.cond(layers.reduce_sum(h) > 0.0,
                             lambda: layers.tanh(layers.matmul(h, w) + b),
                             lambda: layers.relu(layers.matmul(h, w) + b) * 0.5 - h)
            return [i + 1, h2]

        _, h = layers.while_loop(lambda i, h: i < 6, body, [i, x])
    opt, report = passes.optimize(main, ["x", "w", "b"], [h.name])
    assert dict(report)["fuse_fc"] == 2
    assert sum(_types(opt, k).count("fc") for k in range(len(opt.blocks))) == 2
    rng = np.random.default_rng(9)
    for sign in (1.0, -1.0):  # either branch first
        feed = {"x": sign * np.abs(rng.normal(size=(2, 4))).astype(np.float32),
                "w": rng.normal(size=(4, 4)).astype(np.float32) * 0.5,
                "b": rng.normal(size=(4,)).astype(np.float32)}
        _same(_run(main, feed, [h]), _run(main, feed, [h], OFF))


def test_training_through_a_cond_with_passes_on_and_off():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [None, 4], "float32")
        y = layers.fc(x, 4, act="tanh")  # fused in the global block
        z = layers.cond(layers.reduce_mean(y) > 0.0, lambda: layers.fc(y, 3, act="relu"),
                        lambda: layers.fc(y, 3, act="sigmoid"))  # left as built in branches
        loss = layers.mean(z * z)
        core.optimizer.SGD(0.2).minimize(loss)
    opt, _ = passes.optimize(main, ["x"], [loss.name])
    assert _types(opt).count("fc") == 1 and _types(opt).count("fc_grad") == 1
    assert all("fc" not in _types(opt, k) for k in range(1, len(opt.blocks)))
    xv = np.random.default_rng(10).normal(size=(5, 4)).astype(np.float32)
    fetch = [loss] + [p.name for p in main.all_parameters()]
    _same(_run(main, {"x": xv}, fetch, startup=startup, steps=4),
          _run(main, {"x": xv}, fetch, OFF, startup=startup, steps=4))


def test_the_passes_share_one_use_table_until_the_program_changes(monkeypatch):
    # the use tables are program-wide and shared: one per feed and fetch list for the whole
    # pipeline while no pass rewrites anything (a program of many nested blocks took seconds
    # to compile when every block rebuilt them, and ~10 tables per compile were a quarter
    # of a declarative function's first call)
    from core.static.passes import graph

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [2, 4], "float32")
        out = x
        for k in range(6):
            out = layers.cond(layers.reduce_sum(out) > float(k),
                              lambda v=out: layers.tanh(v), lambda v=out: layers.sigmoid(v))
    assert len(main.blocks) == 13
    built = []
    real = graph.Uses

    class Counting(real):
        def __init__(self, *a, **kw):
            built.append(1)
            super().__init__(*a, **kw)

    monkeypatch.setattr(graph, "Uses", Counting)
    report = passes.optimize(main, ["x"], [out.name])[1]
    assert sum(n for _, n in report) == 0
    assert len(built) == 2  # the passes' table, and dead-code elimination's (no feeds)
    feed = {"x": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)}
    _same(_run(main, feed, [out]), _run(main, feed, [out], OFF))


def test_a_shared_use_table_is_rebuilt_after_any_change():
    from core.static.passes import graph

    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        x = static.data("x", [2, 4], "float32")
        y = layers.tanh(x)
        z = layers.sigmoid(y)
    b = main.global_block()
    first = graph.uses_of(main, ["x"], [z.name])
    assert graph.uses_of(main, ["x"], [z.name]) is first
    assert graph.uses_of(main, [], [z.name]) is not first  # another feed list
    # an operator replaced, a list of operators assigned, a variable declared, a change
    # made in place and reported: each gives a new table that sees it
    tanh = b.ops[0]
    graph.replace_ops(b, [tanh], graph.new_op(b, "relu", dict(tanh.inputs),
                                              dict(tanh.outputs), {}, tanh), tanh)
    second = graph.uses_of(main, ["x"], [z.name])
    assert second is not first and second.writers[y.name][0].type == "relu"
    b.ops = list(b.ops[:1])
    third = graph.uses_of(main, ["x"], [z.name])
    assert third is not second and z.name not in third.writers
    b.create_var("fresh", shape=[1], dtype="float32")
    assert graph.uses_of(main, ["x"], [z.name]) is not third
    fourth = graph.uses_of(main, ["x"], [z.name])
    b.ops[0].inputs["X"] = ["fresh"]
    graph.changed(main)
    fifth = graph.uses_of(main, ["x"], [z.name])
    assert fifth is not fourth and [o.type for o in fifth.readers["fresh"]] == ["relu"]

"""declarative / StaticFunction / ProgramTranslator: caching per signature, enable(False),
get_program / get_code / get_func, input_spec, Layer methods, train()/eval(), static mode."""
import numpy as np
import pytest

import core
from translator import InputSpec, ProgramTranslator, declarative, program_translator, to_static


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def t(array, stop_gradient=True):
    return core.to_tensor(np.asarray(array, dtype=np.float32), stop_gradient=stop_gradient)


CALLS = []


@declarative
def branchy(x, scale=2.0):
    CALLS.append(1)  # Python side effect: runs once per translation only
    if x.mean() > 0:
        y = x * scale
    else:
        y = x - 1.0
    return y


def test_declarative_result_matches_eager_both_branches():
    pos, neg = t([[1.0, 2.0]]), t([[-1.0, -3.0]])
    np.testing.assert_allclose(branchy(pos).numpy(), [[2.0, 4.0]])
    np.testing.assert_allclose(branchy(neg).numpy(), [[-2.0, -4.0]])
    assert isinstance(branchy(pos), core.Tensor)


def test_cache_hits_do_not_retranslate_and_new_signatures_do(monkeypatch):
    from translator import convert

    conversions = []
    real = convert.convert_to_static

    def counting(func, *a, **k):
        conversions.append(func)
        return real(func, *a, **k)

    monkeypatch.setattr(convert, "convert_to_static", counting)

    @declarative
    def f(x, n=1):
        return x + n

    x = t(np.ones((2, 3)))
    for _ in range(3):
        f(x)
    assert f.translations == 1
    assert len(conversions) == 1
    f(t(np.zeros((2, 3))))                       # other values, same signature
    assert f.translations == 1
    f(t(np.ones((4, 3))))                        # new shape
    assert f.translations == 2
    f(core.to_tensor(np.ones((2, 3), np.float64)))  # new dtype
    assert f.translations == 3
    f(x, 5)                                      # new Python value
    assert f.translations == 4
    np.testing.assert_allclose(f(x, 5).numpy(), np.full((2, 3), 6.0))
    f(x, n=5)                                    # same call spelled with a keyword
    assert f.translations == 4
    assert len(f.program_cache) == 4


def test_python_side_effects_run_only_when_translating():
    CALLS.clear()
    x = t([[1.0]])
    branchy(x)
    branchy(x)
    assert len(CALLS) == 1


def test_enable_false_runs_the_original_function():
    CALLS.clear()
    x = t([[3.0]])
    ProgramTranslator().enable(False)
    assert not ProgramTranslator().enable_declarative
    for _ in range(3):
        np.testing.assert_allclose(branchy(x).numpy(), [[6.0]])
    assert len(CALLS) == 3
    ProgramTranslator().enable(True)
    assert ProgramTranslator().enable_declarative


def test_enable_rejects_non_bool():
    with pytest.raises(TypeError, match="bool"):
        ProgramTranslator().enable(1)


def test_program_translator_is_a_singleton():
    assert ProgramTranslator() is ProgramTranslator()
    assert ProgramTranslator.get_instance() is ProgramTranslator()
    assert to_static is declarative


def plain(x, y):
    if x.sum() > y.sum():
        return x - y
    return x + y


def test_get_output_get_program_get_code_get_func():
    pt = ProgramTranslator()
    x, y = t([[1.0, 2.0]]), t([[0.5, 0.5]])
    np.testing.assert_allclose(pt.get_output(plain, x, y).numpy(), [[0.5, 1.5]])
    main, startup, inputs, outputs = pt.get_program(plain, x, y)
    assert isinstance(main, core.static.Program)
    assert isinstance(startup, core.static.Program)
    assert [v.name for v in inputs] == ["x", "y"]
    assert len(outputs) == 1 and isinstance(outputs[0], core.static.Variable)
    types = {op.type for b in main.blocks for op in b.ops}
    assert "cond" in types
    exe = core.Executor(core.CPUPlace())
    got = exe.run(main, feed={"x": x.numpy(), "y": y.numpy()}, fetch_list=outputs)[0]
    np.testing.assert_allclose(got, [[0.5, 1.5]])
    code = pt.get_code(plain)
    assert "def plain" in code and "convert_ifelse" in code
    func = pt.get_func(plain)
    assert callable(func) and func is not plain
    np.testing.assert_allclose(func(x, y).numpy(), [[0.5, 1.5]])  # converted code runs eagerly
    pt.enable(False)
    assert pt.get_func(plain) is plain


def test_get_program_of_declarative_function_with_specs():
    @declarative(input_spec=[InputSpec([None, 4], "float32", name="img")])
    def f(img):
        return img.sum(axis=1)

    _, _, inputs, outputs = ProgramTranslator().get_program(f)
    assert inputs[0].name == "img" and inputs[0].shape == [-1, 4]
    assert outputs[0].shape == [-1]
    # tensors of any batch size fit the declared spec: one program
    f(t(np.ones((2, 4))))
    f(t(np.ones((5, 4))))
    assert f.translations == 1
    np.testing.assert_allclose(f(t(np.ones((3, 4)))).numpy(), [4.0, 4.0, 4.0])
    with pytest.raises(ValueError, match="does not fit the declared input_spec"):
        f(t(np.ones((2, 3))))


def test_input_spec_validation():
    assert InputSpec([None, 3]).shape == (-1, 3)
    assert InputSpec((2,), "int64").dtype == np.dtype("int64")
    with pytest.raises(ValueError, match="dimension"):
        InputSpec([2, -3])
    with pytest.raises(TypeError, match="unsupported dtype"):
        InputSpec([2], "complex64")
    with pytest.raises(TypeError, match="InputSpec"):
        declarative(lambda x: x, input_spec=[[2, 3]])
    spec = InputSpec.from_tensor(t(np.ones((2, 5))), name="a")
    assert spec == InputSpec([2, 5], "float32", "a")
    assert spec.batch(None).shape == (-1, 2, 5) and spec.unbatch().shape == (5,)


def test_nested_inputs_and_outputs_keep_their_structure():
    @declarative
    def f(pair, table):
        a, b = pair
        return {"sum": a + b, "items": [table["k"] * 2, 7]}

    out = f((t([1.0]), t([2.0])), {"k": t([4.0])})
    assert set(out) == {"sum", "items"}
    np.testing.assert_allclose(out["sum"].numpy(), [3.0])
    np.testing.assert_allclose(out["items"][0].numpy(), [8.0])
    assert out["items"][1] == 7
    concrete = next(iter(f.program_cache.values()))
    assert [v.name for v in concrete.inputs] == ["pair_0", "pair_1", "k"]  # dict entries: the key


class Net(core.nn.Layer):
    def __init__(self, p=0.5):
        super().__init__()
        self.fc = core.nn.Linear(6, 6)
        self.drop = core.nn.Dropout(p)

    @declarative
    def forward(self, x):
        return self.drop(self.fc(x))


def test_layer_forward_is_bound_per_instance():
    core.seed(3)
    a, b = Net(), Net()
    x = t(np.ones((2, 6)))
    a.eval()
    b.eval()
    out_a, out_b = a(x), b(x)
    assert a.forward is a.forward and a.forward is not b.forward
    assert a.forward.instance is a and b.forward.dygraph_function is Net.forward.dygraph_function
    ProgramTranslator().enable(False)
    np.testing.assert_allclose(out_a.numpy(), a(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(out_b.numpy(), b(x).numpy(), rtol=1e-6)
    assert not np.allclose(out_a.numpy(), out_b.numpy())


def test_train_and_eval_switch_dropout():
    core.seed(5)
    net = Net(p=0.5)
    x = t(np.ones((8, 6)))
    net.eval()
    e1, e2 = net(x).numpy(), net(x).numpy()
    np.testing.assert_allclose(e1, e2)  # no dropout at inference
    net.train()
    tr = net(x).numpy()
    assert net.forward.translations == 2
    with core.no_grad():
        ref = net.fc(x).numpy()
    dropped = (tr == 0) & (ref != 0)
    assert dropped.any()  # some units dropped
    kept = ~dropped
    # Paddle's default downgrade_in_infer: kept units unscaled in training, scaled by 1-p in eval
    np.testing.assert_allclose(tr[kept], ref[kept], rtol=1e-5)
    np.testing.assert_allclose(e1, ref * 0.5, rtol=1e-5)
    net.eval()
    np.testing.assert_allclose(net(x).numpy(), e1)
    assert net.forward.translations == 2


def test_static_mode_call_appends_to_the_current_program():
    @declarative
    def f(x):
        if x.mean() > 0:
            return x + 1
        return x - 1

    main, startup = core.static.Program(), core.static.Program()
    with core.static.program_guard(main, startup):
        core.enable_static()
        try:
            x = core.static.data("x", [2], "float32")
            y = f(x)
        finally:
            core.disable_static()
    assert f.translations == 0
    assert "cond" in {op.type for op in main.global_block().ops}
    exe = core.Executor(core.CPUPlace())
    got = exe.run(main, feed={"x": np.array([-1.0, -2.0], np.float32)}, fetch_list=[y])[0]
    np.testing.assert_allclose(got, [-2.0, -3.0])


def test_declarative_on_a_layer_instance_and_bound_method():
    core.seed(1)
    lin = core.nn.Linear(3, 2)
    x = t(np.ones((1, 3)))
    ref = lin(x).numpy()
    same = declarative(lin)
    assert same is lin and isinstance(lin.forward, program_translator.StaticFunction)
    np.testing.assert_allclose(lin(x).numpy(), ref, rtol=1e-6)
    lin2 = core.nn.Linear(3, 2)
    fwd = declarative(lin2.forward)
    assert fwd.instance is lin2
    np.testing.assert_allclose(fwd(x).numpy(), lin2(x).numpy(), rtol=1e-6)


def test_function_using_a_global_layer_finds_its_parameters():
    x = t(np.ones((2, 3)))
    got = uses_global(x)
    np.testing.assert_allclose(got.numpy(), GLOBAL_LAYER(x).numpy(), rtol=1e-6)
    concrete = next(iter(uses_global.program_cache.values()))
    assert {n for n, _ in concrete.parameters} == {p.name for p in GLOBAL_LAYER.parameters()}


GLOBAL_LAYER = core.nn.Linear(3, 4)


@declarative
def uses_global(x):
    return GLOBAL_LAYER(x)


def test_binding_errors_name_the_function():
    with pytest.raises(TypeError, match="branchy"):
        branchy(t([1.0]), 2.0, 3.0)


def test_collector_paused_only_while_translating():
    import gc

    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x * 2

    def bad(x):
        seen.append(gc.isenabled())
        raise ValueError("boom")

    x = core.to_tensor(np.ones([2], "float32"))
    assert gc.isenabled()
    declarative(f)(x)
    assert seen == [False] and gc.isenabled()
    with pytest.raises(ValueError):
        declarative(bad, full_graph=True)(x)
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        declarative(f)(core.to_tensor(np.ones([3], "float32")))
        assert not gc.isenabled()  # the user's setting stays
    finally:
        gc.enable()

"""cond / while_loop / case / switch_case / tensor arrays / increment / Print / Assert, in both
modes, with gradients through control flow checked against central differences."""
import collections

import numpy as np
import pytest

import core
from core import layers, static
from core.mode import static_mode_guard


def build(fn):
    """Run ``fn()`` while building a fresh static Program; returns (main, startup, result)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), static_mode_guard():
        out = fn()
    return main, startup, out


def run(main, feed, fetch):
    return static.Executor(core.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        a, b = x.copy(), x.copy()
        a[idx] += eps
        b[idx] -= eps
        g[idx] = (f(a) - f(b)) / (2 * eps)
    return g


# -- cond ------------------------------------------------------------------------------------------
def _cond_prog():
    x = static.data("x", [None, 3], "float64")
    s = layers.reduce_sum(x)
    out = layers.cond(s > 0.0, lambda: (x * 2.0, s), lambda: (x - 1.0, s * 0.0))
    return x, out


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond_takes_the_branch_the_data_selects(sign):
    main, _, (_x, (a, b)) = build(_cond_prog)
    xv = sign * np.ones((2, 3))
    got_a, got_b = run(main, {"x": xv}, [a, b])
    want = xv * 2 if sign > 0 else xv - 1
    np.testing.assert_allclose(got_a, want)
    np.testing.assert_allclose(got_b, xv.sum() if sign > 0 else 0.0)
    assert any(op.type == "cond" for op in main.global_block().ops)


def test_cond_eager_calls_the_chosen_function():
    x = core.to_tensor(np.array([1.0, -2.0]))
    out = layers.cond(layers.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: x - 1.0)
    np.testing.assert_allclose(out.numpy(), [0.0, -3.0])


def test_cond_nested_structure_and_python_values():
    def fn():
        x = static.data("x", [2], "float32")
        return layers.cond(layers.reduce_sum(x) > 0.0,
                           lambda: {"a": x, "b": [x * 2.0, 3]},
                           lambda: {"a": -x, "b": [x, 3]})

    main, _, out = build(fn)
    assert out["b"][1] == 3
    a, b0 = run(main, {"x": np.array([1, 2], np.float32)}, [out["a"], out["b"][0]])
    np.testing.assert_allclose(a, [1, 2])
    np.testing.assert_allclose(b0, [2, 4])


def test_cond_keeps_a_namedtuple():
    pair = collections.namedtuple("Pair", "h c")

    def fn():
        x = static.data("x", [2], "float32")
        return layers.cond(layers.reduce_sum(x) > 0.0, lambda: pair(x, 1), lambda: pair(-x, 1))

    main, _, out = build(fn)
    assert isinstance(out, pair) and out.c == 1
    h, = run(main, {"x": np.array([1, 2], np.float32)}, [out.h])
    np.testing.assert_allclose(h, [1, 2])


def test_cond_structure_mismatch_names_the_position():
    def fn():
        x = static.data("x", [2], "float32")
        return layers.cond(layers.reduce_sum(x) > 0.0, lambda: (x, x), lambda: (x,))

    with pytest.raises(ValueError, match=r"same structure.*output"):
        build(fn)


def test_cond_dtype_mismatch_is_an_error():
    def fn():
        x = static.data("x", [2], "float32")
        return layers.cond(layers.reduce_sum(x) > 0.0, lambda: x, lambda: layers.cast(x, "int64"))

    with pytest.raises(TypeError, match=r"float32 in true_fn.*int64 in false_fn"):
        build(fn)


def test_cond_outputs_with_different_shapes_get_unknown_dims():
    def fn():
        x = static.data("x", [4], "float32")
        return layers.cond(layers.reduce_sum(x) > 0.0, lambda: x,
                           lambda: layers.slice(x, axes=[0], starts=[0], ends=[2]))

    main, _, out = build(fn)
    assert out.shape == [-1]
    got, = run(main, {"x": -np.ones(4, np.float32)}, [out])
    assert got.shape == (2,)


def test_cond_pred_must_be_a_bool_scalar():
    def fn():
        x = static.data("x", [3], "float32")
        return layers.cond(x > 0.0, lambda: x, lambda: x)

    with pytest.raises(ValueError, match="exactly one element"):
        build(fn)


def test_nested_cond():
    def fn():
        x = static.data("x", [1], "float64")

        def inner_true():
            return layers.cond(layers.reduce_sum(x) > 10.0, lambda: x * 100.0, lambda: x * 10.0)

        return x, layers.cond(layers.reduce_sum(x) > 0.0, inner_true, lambda: -x)

    main, _, (_x, out) = build(fn)
    for v, want in ((20.0, 2000.0), (2.0, 20.0), (-3.0, 3.0)):
        got, = run(main, {"x": np.array([v])}, [out])
        np.testing.assert_allclose(got, [want])


def test_gradient_flows_only_through_the_taken_branch():
    def fn():
        x = static.data("x", [3], "float64")
        w = static.data("w", [3], "float64")
        out = layers.cond(layers.reduce_sum(x) > 0.0, lambda: x * w * w, lambda: x + w)
        loss = layers.reduce_sum(out * out)
        return x, w, loss, static.gradients([loss], [x, w])

    main, _, (_x, _w, _loss, (gx, gw)) = build(fn)
    wv = np.array([0.5, -1.0, 2.0])

    def f(xv, wv_=wv):
        o = xv * wv_ * wv_ if xv.sum() > 0 else xv + wv_
        return float((o * o).sum())

    for xv in (np.array([1.0, 2.0, 0.5]), np.array([-1.0, 0.2, -0.3])):
        got_gx, got_gw = run(main, {"x": xv, "w": wv}, [gx, gw])
        np.testing.assert_allclose(got_gx, numeric_grad(f, xv), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got_gw, numeric_grad(lambda a, xv=xv: f(xv, a), wv), rtol=1e-6,
                                   atol=1e-8)


# -- while_loop ------------------------------------------------------------------------------------
def test_while_trip_count_depends_on_input():
    def fn():
        n = static.data("n", [1], "int64")
        i = layers.fill_constant([1], "int64", 0)
        acc = layers.fill_constant([1], "float32", 1.0)
        return n, layers.while_loop(lambda i, a: i < n, lambda i, a: [i + 1, a * 2.0], [i, acc])

    main, _, (_n, (i, acc)) = build(fn)
    for nv in (0, 1, 5):
        got_i, got_acc = run(main, {"n": np.array([nv])}, [i, acc])
        assert got_i.tolist() == [nv]
        np.testing.assert_allclose(got_acc, [2.0 ** nv])


def test_while_eager_loops_in_python():
    i, a = layers.while_loop(lambda i, a: i < 4, lambda i, a: [i + 1, a + i],
                             [core.to_tensor(np.array(0)), core.to_tensor(np.array(0))])
    assert int(i) == 4 and int(a) == 6


def test_while_with_data_dependent_cond_inside():
    def fn():
        x = static.data("x", [4], "float64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            h2 = layers.cond(layers.reduce_sum(h) > 10.0, lambda: h * 0.5, lambda: h + 3.0)
            return [i + 1, h2]

        return x, layers.while_loop(lambda i, h: i < 6, body, [i, x])

    main, _, (_x, (_i, h)) = build(fn)
    xv = np.array([1.0, 2.0, 0.0, -1.0])
    ref = xv.copy()
    for _ in range(6):
        ref = ref * 0.5 if ref.sum() > 10 else ref + 3.0
    got, = run(main, {"x": xv}, [h])
    np.testing.assert_allclose(got, ref)


def test_nested_while_loops():
    def fn():
        n = static.data("n", [1], "int64")
        i = layers.fill_constant([1], "int64", 0)
        total = layers.fill_constant([1], "int64", 0)

        def outer(i, total):
            j = layers.fill_constant([1], "int64", 0)
            _, t = layers.while_loop(lambda j, t: j < i, lambda j, t: [j + 1, t + 1], [j, total])
            return [i + 1, t]

        return n, layers.while_loop(lambda i, t: i < n, outer, [i, total])

    main, _, (_n, (_i, total)) = build(fn)
    got, = run(main, {"n": np.array([5])}, [total])
    assert got.tolist() == [0 + 1 + 2 + 3 + 4]


def test_while_shape_change_relaxes_dims():
    def fn():
        x = static.data("x", [1, 2], "float32")
        i = layers.fill_constant([1], "int64", 0)
        return layers.while_loop(lambda i, x: i < 3,
                                 lambda i, x: [i + 1, layers.concat([x, x], axis=0)], [i, x])

    main, _, (_i, out) = build(fn)
    assert out.shape == [-1, 2]
    got, = run(main, {"x": np.ones((1, 2), np.float32)}, [out])
    assert got.shape == (8, 2)


def test_while_body_dtype_change_is_an_error():
    def fn():
        i = layers.fill_constant([1], "int64", 0)
        return layers.while_loop(lambda i: i < 3, lambda i: [layers.cast(i, "int32")], [i])

    with pytest.raises(TypeError, match=r"int32 for loop variable.*int64"):
        build(fn)


def test_while_body_structure_mismatch():
    def fn():
        i = layers.fill_constant([1], "int64", 0)
        return layers.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1], [i, i])

    with pytest.raises(ValueError, match="structure of loop_vars"):
        build(fn)


def test_gradient_through_while_matches_numeric():
    def fn():
        x = static.data("x", [2, 3], "float64")
        w = static.data("w", [3, 3], "float64")
        n = static.data("n", [1], "int64")
        i = layers.fill_constant([1], "int64", 0)
        _, h = layers.while_loop(lambda i, h: i < n,
                                 lambda i, h: [i + 1, layers.tanh(layers.matmul(h, w) + x)],
                                 [i, x])
        loss = layers.reduce_sum(h * h)
        return x, w, n, loss, static.gradients([loss], [x, w])

    main, _, (_x, _w, _n, loss, (gx, gw)) = build(fn)
    rng = np.random.default_rng(0)
    xv, wv = rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.5

    def f(xv_, wv_, steps):
        h = xv_
        for _ in range(steps):
            h = np.tanh(h @ wv_ + xv_)
        return float((h * h).sum())

    for steps in (0, 1, 4):
        feed = {"x": xv, "w": wv, "n": np.array([steps])}
        got_loss, got_gx, got_gw = run(main, feed, [loss, gx, gw])
        np.testing.assert_allclose(got_loss, f(xv, wv, steps))
        np.testing.assert_allclose(got_gx, numeric_grad(lambda a, steps=steps: f(a, wv, steps), xv),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got_gw, numeric_grad(lambda a, steps=steps: f(xv, a, steps), wv),
                                   rtol=1e-6, atol=1e-8)


def test_gradient_through_cond_inside_while():
    def fn():
        x = static.data("x", [3], "float64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            h2 = layers.cond(layers.reduce_sum(h) > 1.0, lambda: h * h * 0.5, lambda: h * 3.0)
            return [i + 1, h2]

        _, h = layers.while_loop(lambda i, h: i < 4, body, [i, x])
        loss = layers.reduce_sum(h)
        return x, static.gradients([loss], [x])[0]

    main, _, (_x, gx) = build(fn)

    def f(xv):
        h = xv
        for _ in range(4):
            h = h * h * 0.5 if h.sum() > 1.0 else h * 3.0
        return float(h.sum())

    xv = np.array([0.1, 0.2, 0.05])
    got, = run(main, {"x": xv}, [gx])
    np.testing.assert_allclose(got, numeric_grad(f, xv), rtol=1e-6, atol=1e-8)


# -- tensor arrays ---------------------------------------------------------------------------------
def test_tensor_array_written_in_loop_and_read_after():
    def fn():
        x = static.data("x", [2], "float64")
        arr = layers.create_array("float64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h):
            h = h * 2.0
            layers.array_write(h, i, arr)
            return [i + 1, h]

        layers.while_loop(lambda i, h: i < 3, body, [i, x])
        n = layers.array_length(arr)
        last = layers.array_read(arr, layers.fill_constant([1], "int64", 2))
        return x, arr, n, last

    main, _, (_x, _arr, n, last) = build(fn)
    got_n, got_last = run(main, {"x": np.array([1.0, -1.0])}, [n, last])
    assert got_n.tolist() == [3]
    np.testing.assert_allclose(got_last, [8.0, -8.0])


def test_tensor_array_as_loop_var_with_gradient():
    def fn():
        x = static.data("x", [2], "float64")
        arr = layers.create_array("float64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i, h, a):
            h = h * x + 1.0
            return [i + 1, h, layers.array_write(h, i, a)]

        _, _, arr = layers.while_loop(lambda i, h, a: i < 3, body, [i, x, arr])
        from core.dispatch import apply

        stacked, _ = apply("tensor_array_to_tensor", [arr], {"axis": 0, "use_stack": True})
        loss = layers.reduce_sum(stacked * stacked)
        return x, loss, static.gradients([loss], [x])[0]

    main, _, (_x, loss, gx) = build(fn)

    def f(xv):
        h, total = xv, 0.0
        for _ in range(3):
            h = h * xv + 1.0
            total += float((h * h).sum())
        return total

    xv = np.array([0.3, -0.7])
    got_loss, got_gx = run(main, {"x": xv}, [loss, gx])
    np.testing.assert_allclose(got_loss, f(xv))
    np.testing.assert_allclose(got_gx, numeric_grad(f, xv), rtol=1e-6, atol=1e-8)


def test_tensor_array_eager_is_a_list():
    arr = layers.create_array("float32")
    layers.array_write(core.to_tensor(np.ones(2, np.float32)), 0, arr)
    layers.array_write(core.to_tensor(np.zeros(2, np.float32)), 1, arr)
    assert int(layers.array_length(arr)) == 2
    np.testing.assert_allclose(layers.array_read(arr, 1).numpy(), [0, 0])


def test_read_past_the_end_names_the_length():
    def fn():
        arr = layers.create_array("float32")
        layers.array_write(layers.fill_constant([1], "float32", 1.0), 0, arr)
        return layers.array_read(arr, layers.fill_constant([1], "int64", 4))

    main, _, out = build(fn)
    with pytest.raises(core.errors.OpError, match=r"index 4 is out of range.*length 1"):
        run(main, {}, [out])


# -- case / switch_case / increment ----------------------------------------------------------------
def test_case_and_switch_case_static_and_eager():
    def fn():
        k = static.data("k", [1], "int64")
        sw = layers.switch_case(k, {0: lambda: layers.fill_constant([1], "float32", 10.0),
                                    1: lambda: layers.fill_constant([1], "float32", 11.0),
                                    3: lambda: layers.fill_constant([1], "float32", 13.0)})
        cs = layers.case([(k < 1, lambda: layers.fill_constant([1], "float32", 0.0)),
                          (k < 2, lambda: layers.fill_constant([1], "float32", 1.0))],
                         default=lambda: layers.fill_constant([1], "float32", 2.0))
        return k, sw, cs

    main, _, (_k, sw, cs) = build(fn)
    for kv, want_sw, want_cs in ((0, 10, 0), (1, 11, 1), (3, 13, 2), (7, 13, 2)):
        got_sw, got_cs = run(main, {"k": np.array([kv])}, [sw, cs])
        assert got_sw.tolist() == [want_sw] and got_cs.tolist() == [want_cs]
    eager = layers.switch_case(core.to_tensor(np.array([1])), [lambda: 5, lambda: 6])
    assert eager == 6


def test_increment_in_place_both_modes():
    t = core.to_tensor(np.array([1], np.int64))
    out = layers.increment(t, 2)
    assert out is t and t.numpy().tolist() == [3]

    def fn():
        i = layers.fill_constant([1], "int64", 5)
        j = layers.increment(i, 1.0)
        return i, j

    main, _, (i, j) = build(fn)
    assert i is j
    assert run(main, {}, [i])[0].tolist() == [6]


# -- Print / Assert --------------------------------------------------------------------------------
def test_print_inside_loop_prints_each_iteration(capsys):
    def fn():
        i = layers.fill_constant([1], "int64", 0)

        def body(i):
            layers.Print(i, message="step")
            return [i + 1]

        return layers.while_loop(lambda i: i < 3, body, [i])

    main, _, (i,) = build(fn)
    run(main, {}, [i])
    text = capsys.readouterr().out
    assert text.count("step") == 3 and "data: [2]" in text


def test_print_eager_prints_at_once(capsys):
    t = core.to_tensor(np.array([1.5, 2.5], np.float32))
    assert layers.Print(t, message="hello") is t
    assert "hello" in capsys.readouterr().out


def test_assert_static_raises_with_values():
    def fn():
        x = static.data("x", [2], "float32")
        layers.Assert(layers.reduce_sum(x) > 0.0, data=[x])
        return x * 1.0

    main, _, out = build(fn)
    run(main, {"x": np.ones(2, np.float32)}, [out])
    with pytest.raises(AssertionError, match=r"(?s)Assert failed.*data: \[-1.0 -1.0\]"):
        run(main, {"x": -np.ones(2, np.float32)}, [out])


def test_assert_eager_raises_at_once():
    with pytest.raises(AssertionError, match="Assert failed"):
        layers.Assert(core.to_tensor(np.array([False])))


# -- one function, both modes ----------------------------------------------------------------------
def both_modes(fn, feed):
    """``fn(*inputs)`` eagerly on tensors and as a static Program run by the Executor; returns
    (eager results, static results) as lists of arrays."""
    flat_eager = [np.asarray(getattr(v, "numpy", lambda v=v: v)())
                  for v in fn(*[core.to_tensor(a) for a in feed.values()])]

    def build_fn():
        return fn(*[static.data(k, list(a.shape), a.dtype) for k, a in feed.items()])

    main, _, outs = build(build_fn)
    return flat_eager, run(main, feed, list(outs))


def _nested(x, k):
    s = layers.reduce_sum(x)

    def big():
        return {"y": layers.cond(s > 10.0, lambda: x * 0.5, lambda: x), "n": (s, x + 1.0)}

    out = layers.cond(s > 0.0, big, lambda: {"y": -x, "n": (s * 0.0, x - 1.0)})
    i = layers.fill_constant([1], "int64", 0)
    arr = layers.create_array("float64")

    def body(i, acc):
        acc = acc + layers.cast(i, "float64")
        layers.array_write(acc, i, arr)
        return [layers.increment(i, 1.0, in_place=False), acc]

    i, acc = layers.while_loop(lambda i, acc: i < k, body,  # trip count from the data
                               [i, layers.reshape(s, [1])])
    picked = layers.switch_case(k, {1: lambda: acc * 10.0, 2: lambda: acc * 20.0},
                                default=lambda: acc)
    ranked = layers.case([(k < 2, lambda: x * 0.0), (k < 4, lambda: x * 3.0)],
                         default=lambda: x)
    return [out["y"], out["n"][0], out["n"][1], i, acc, layers.array_length(arr),
            layers.array_read(arr, layers.fill_constant([1], "int64", 0)), picked, ranked]


@pytest.mark.parametrize("xv,kv", [([1.0, 2.0], 1), ([8.0, 9.0], 2), ([-1.0, -2.0], 3),
                                   ([3.0, 0.5], 5)])
def test_eager_and_static_agree_on_nested_control_flow(xv, kv):
    eager, got = both_modes(_nested, {"x": np.array(xv), "k": np.array([kv], np.int64)})
    assert len(eager) == len(got) == 9
    for e, g in zip(eager, got):
        np.testing.assert_allclose(np.asarray(g).reshape(-1), np.asarray(e).reshape(-1))
    s = float(np.sum(xv))
    assert int(got[3].reshape(-1)[0]) == kv and int(got[5].reshape(-1)[0]) == kv
    np.testing.assert_allclose(got[4], [s + sum(range(kv))])


def test_gradient_through_case_and_switch_case_matches_numeric():
    def fn():
        x = static.data("x", [3], "float64")
        k = static.data("k", [1], "int64")
        a = layers.switch_case(k, {0: lambda: x * x, 1: lambda: layers.exp(x)},
                               default=lambda: x * 5.0)
        b = layers.case([(layers.reduce_sum(x) > 1.0, lambda: a * x)], default=lambda: a - x)
        loss = layers.reduce_sum(b)
        return x, static.gradients([loss], [x])[0]

    main, _, (_x, gx) = build(fn)

    def f(xv, kv):
        a = xv * xv if kv == 0 else np.exp(xv) if kv == 1 else xv * 5.0
        return float((a * xv if xv.sum() > 1.0 else a - xv).sum())

    for xv in (np.array([0.5, 1.0, 0.25]), np.array([-0.5, 0.1, 0.2])):
        for kv in (0, 1, 2):
            got, = run(main, {"x": xv, "k": np.array([kv])}, [gx])
            np.testing.assert_allclose(got, numeric_grad(lambda a, kv=kv: f(a, kv), xv),
                                       rtol=1e-6, atol=1e-8)


def test_print_inside_a_branch_inside_a_loop_prints_only_when_taken(capsys):
    def fn():
        i = layers.fill_constant([1], "int64", 0)

        def body(i):
            layers.cond(i % 2 == 0, lambda: layers.Print(i, message="even"),
                        lambda: layers.Print(i * 10, message="odd"))
            return [i + 1]

        return layers.while_loop(lambda i: i < 4, body, [i])

    main, _, (i,) = build(fn)
    assert run(main, {}, [i])[0].tolist() == [4]
    text = capsys.readouterr().out
    assert text.count("even") == 2 and text.count("odd") == 2
    assert "data: [2]" in text and "data: [30]" in text and "data: [3]" not in text
    static.Executor().run(main, fetch_list=[i])
    assert capsys.readouterr().out.count("even") == 2  # each run prints again


def test_assert_message_names_the_condition_and_values_in_both_modes():
    def check(x):
        ok = layers.reduce_sum(x) > 0.0
        layers.Assert(ok, data=[x], name="x must sum to a positive number")
        return ok

    with pytest.raises(AssertionError) as info:
        check(core.to_tensor(np.array([-1.5, 0.5])))
    eager_msg = str(info.value)
    assert "Assert failed" in eager_msg and "x must sum to a positive number" in eager_msg
    assert "data: [-1.5 0.5]" in eager_msg

    def fn():
        x = static.data("x", [2], "float64")
        n = static.data("n", [1], "int64")
        i = layers.fill_constant([1], "int64", 0)

        def body(i):  # the Assert runs on every iteration; the third one fails
            layers.Assert(i < 2, data=[i, x], name="at most two steps")
            return [i + 1]

        i = layers.while_loop(lambda i: i < n, body, [i])[0]
        return x, n, check(x), i

    main, _, (_x, _n, ok, i) = build(fn)
    got_ok, got_i = run(main, {"x": np.array([1.0, 2.0]), "n": np.array([2])}, [ok, i])
    assert bool(got_ok) and got_i.tolist() == [2]
    with pytest.raises(AssertionError) as info:
        run(main, {"x": np.array([1.0, 2.0]), "n": np.array([3])}, [ok])
    loop_msg = str(info.value)
    assert "op 'assert' (block 1)" in loop_msg and "at most two steps" in loop_msg
    assert "data: [2]" in loop_msg and "Variable: x" in loop_msg
    with pytest.raises(AssertionError) as info:
        run(main, {"x": np.array([-1.5, 0.5]), "n": np.array([0])}, [ok])
    msg = str(info.value)
    assert "x must sum to a positive number" in msg and "data: [-1.5 0.5]" in msg
    assert f"condition '{ok.name}' is False" in msg

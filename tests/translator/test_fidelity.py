"""Conversion fidelity: patterns whose converted code once gave other results than eager.
Each runs eagerly (translator off), through ``declarative`` and as a Program on
``core.Executor``, on inputs that take every path and several trip counts including zero, in
a plain declarative function and in a ``Layer.forward``."""
import numpy as np
import pytest

import core
from translator import ProgramTranslator, declarative

from .three_way import check_three_ways, run_declarative, run_eager


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def f32(*values):
    return np.asarray(values, dtype=np.float32)


def i64(value):
    return np.asarray(value, dtype=np.int64)


class Wrap(core.nn.Layer):
    """A Layer whose declarative forward calls ``fn`` (with a Linear in front when
    ``linear``), so the same pattern is checked in ``Layer.forward``."""

    def __init__(self, fn, linear=False):
        super().__init__()
        self.fn = fn
        self.fc = core.nn.Linear(2, 2) if linear else None

    @declarative
    def forward(self, x, *rest):
        if self.fc is not None:
            x = self.fc(x)
        return self.fn(x, *rest)


def both_forms(fn, *cases, linear=False):
    check_three_ways(declarative(fn), *cases)
    core.seed(3)
    check_three_ways(Wrap(fn, linear), *cases)


# -- a Python list appended to in a tensor loop, then iterated -------------------------------------
def iterate_appended_list(x, n):
    outs = []
    i = 0
    while i < n:
        outs.append(x * (i + 1))
        i += 1
    s = x * 0
    for t in outs:
        s = s + t
    c = x * 0
    for k, t in enumerate(outs):
        c = c + t * k
    z = x * 0
    for t, u in zip(outs, outs):
        z = z + t * u
    return s, c, z, len(outs)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_iterating_a_list_appended_in_a_tensor_loop(n):
    both_forms(iterate_appended_list, (f32(1.0, 2.0), i64(n)), linear=True)


def list_of_tensors_with_tensor_loop_var(x, n):
    xs = [x, x * 2.0, x * 3.0]
    s = x * 0
    i = 0
    while i < n:
        for v in xs:
            s = s + v * i
        i += 1
    return s, i


@pytest.mark.parametrize("n", [0, 1, 3])
def test_python_list_of_tensors_in_a_tensor_loop(n):
    both_forms(list_of_tensors_with_tensor_loop_var, (f32(1.0, -2.0), i64(n)))


def zip_list_with_tensor(x):
    ws = [1.0, 2.0, -1.0]
    s = x[0] * 0
    for w, row in zip(ws, x):
        s = s + row * w
    ts = [x[0], x[1] * 2.0]
    for k, (t, row) in enumerate(zip(ts, x)):
        s = s + t * row * k
    return s


def test_zip_of_a_python_list_with_a_tensor():
    both_forms(zip_list_with_tensor, (np.arange(6, dtype=np.float32).reshape(3, 2),),
               (np.ones((1, 2), np.float32),))


def zip_list_of_strings_with_tensor(x):
    s = x[0] * 0
    for _name, row in zip(["a", "b"], x):
        s = s + row
    return s


def test_zip_of_a_list_without_tensors_with_a_static_tensor_raises_clearly():
    with pytest.raises(TypeError, match="must hold Tensors or numbers"):
        declarative(zip_list_of_strings_with_tensor)(core.to_tensor(np.ones((2, 2), np.float32)))


# -- tensor arrays built with create_array / array_write -------------------------------------------
def index_tensor_array(x, n):
    arr = core.layers.create_array("float32")
    i = core.layers.fill_constant([1], "int64", 0)
    core.layers.array_write(x, i, array=arr)
    core.layers.array_write(x * 2.0, i + 1, array=arr)
    j = 0
    while j < n:
        core.layers.array_write(x * 3.0, i + 2, array=arr)
        j += 1
    return arr[1], arr[0], arr[-1], arr[i + 1]


@pytest.mark.parametrize("n", [0, 2])
def test_indexing_a_tensor_array_gives_the_element(n):
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    both_forms(index_tensor_array, (x, i64(n)))


def test_a_tensor_array_rejects_a_slice_clearly():
    def slice_array(x):
        arr = core.layers.create_array("float32")
        core.layers.array_write(x, 0, array=arr)
        return arr[0:1]

    with pytest.raises(TypeError, match="one int or int Tensor index"):
        declarative(slice_array)(core.to_tensor(f32(1.0)))


# -- random ops draw what eager draws under the same seed ------------------------------------------
class DropoutNet(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(4, 4)

    @declarative
    def forward(self, x):
        h = core.layers.dropout(self.fc(x), 0.5)
        if h.sum() > 0:
            h = core.layers.dropout(h, 0.3) * 2.0
        return h


def plain_dropout(x):
    return core.layers.dropout(x, 0.5)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_dropout_in_layer_forward_draws_the_eager_mask(sign):
    core.seed(11)
    model = DropoutNet()
    x = np.ones((3, 4), np.float32) * sign
    core.seed(5)
    expected = run_eager(model, (x,))
    core.seed(5)
    got = run_declarative(model, (x,))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    # the gradient flows through the same masks (the backward replays the cond branch)
    core.seed(5)
    ProgramTranslator().enable(False)
    model.clear_gradients()
    model(core.to_tensor(x)).sum().backward()
    eager_grad = model.fc.weight.gradient().copy()
    ProgramTranslator().enable(True)
    core.seed(5)
    model.clear_gradients()
    model(core.to_tensor(x)).sum().backward()
    np.testing.assert_allclose(model.fc.weight.gradient(), eager_grad, rtol=1e-6)
    # a second call draws fresh masks, as eager does
    core.seed(5)
    run_eager(model, (x,))
    second = run_eager(model, (x,))
    core.seed(5)
    run_declarative(model, (x,))
    np.testing.assert_array_equal(run_declarative(model, (x,)).numpy(), second.numpy())


def test_dropout_in_a_plain_declarative_function_draws_the_eager_mask():
    x = np.ones((4, 5), np.float32)
    core.seed(7)
    expected = run_eager(declarative(plain_dropout), (x,))
    core.seed(7)
    np.testing.assert_array_equal(run_declarative(declarative(plain_dropout), (x,)).numpy(),
                                  expected.numpy())


# -- and / or with a Python value on the right -----------------------------------------------------
def or_python_value(x):
    a = (x.sum() > 0) or 3
    b = (x.sum() > 0) and 2.5
    return a, b, x * a


def or_python_value_scaled(x):
    return or_python_value(x)[2]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_and_or_with_a_python_number_on_the_right(sign):
    # eagerly `or` gives the bool tensor or the number: converted, their common dtype
    x = f32(1.0, 2.0) * sign
    both_forms(or_python_value_scaled, (x,))
    a, b, _ = run_declarative(declarative(or_python_value), (x,))
    ea, eb, _ = run_eager(declarative(or_python_value), (x,))
    assert a.numpy().item() == int(ea) and b.numpy().item() == float(eb)


# -- range / enumerate / comprehensions ------------------------------------------------------------
def range_of_float_tensor(x):
    s = x
    for _ in range(x.sum()):
        s = s + 1.0
    return s


def test_range_of_a_float_tensor_raises_as_eagerly():
    assert isinstance(run_eager(declarative(range_of_float_tensor), (f32(1.0, 2.0),)), TypeError)
    with pytest.raises(TypeError, match="float32 tensor cannot be used as an index"):
        declarative(range_of_float_tensor)(core.to_tensor(f32(1.0, 2.0)))


def comprehensions(x):
    rows = [v * i for i, v in enumerate(x)]
    d = {k: x * k for k in range(3)}
    z = {i: v for i, v in zip(range(2), x)}
    return rows[-1], d[2], z[1]


def test_enumerate_zip_of_a_tensor_in_comprehensions_and_dict_comprehensions():
    both_forms(comprehensions, (f32(1.0, 2.0, 3.0),), (f32(-1.0, 4.0),))


# -- predicates ------------------------------------------------------------------------------------
def non_bool_predicate(x):
    if core.layers.mean(x):
        x = x + 1.0
    else:
        x = x - 1.0
    k = 0
    while k - 2:
        x = x * 2.0
        k += 1
    return x


def test_a_non_bool_tensor_predicate_is_true_when_nonzero():
    both_forms(non_bool_predicate, (f32(1.0, 2.0),), (f32(1.0, -1.0),), (f32(0.0, 0.0),))


def multi_element_predicate(x, y):
    if y.sum() > 0:
        if x > 0:
            return x
    return x * 2.0


def test_a_multi_element_predicate_raises_only_when_that_if_runs():
    static = declarative(multi_element_predicate)
    x = core.to_tensor(f32(1.0, 2.0))
    np.testing.assert_array_equal(static(x, core.to_tensor(f32(-1.0))).numpy(), [2.0, 4.0])
    with pytest.raises(AssertionError, match="needs exactly one element, got shape"):
        static(x, core.to_tensor(f32(1.0)))
    with pytest.raises(ValueError, match="exactly one element"):
        ProgramTranslator().enable(False)
        static(x, core.to_tensor(f32(1.0)))


# -- Python values from branches -------------------------------------------------------------------
def python_values_from_branches(x):
    if x.sum() > 0:
        k = 1
        s = [x.shape[0], 1]
        d = {"a": x, "n": 2}
    else:
        k = 2
        s = [3, 4]
        d = {"a": x * 2.0, "n": 5}
    print(k)
    return x * k, s, d["a"] * d["n"]


def test_python_values_assigned_in_branches_become_tensors():
    both_forms(python_values_from_branches, (f32(1.0, 2.0),), (f32(-1.0, -2.0),))


# -- control flow found by the fuzzer --------------------------------------------------------------
def return_in_a_loop_nested_in_a_loop(x, n):
    i = 0
    while i < 2:
        i += 1
        x = x + 1.0
        for _ in range(n):
            return x, i
    x = x * 0.0
    return x, i


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_return_inside_an_inner_loop_leaves_the_outer_loop(n):
    both_forms(return_in_a_loop_nested_in_a_loop, (f32(0.5, -1.0), i64(n)))


def while_in_a_tensor_if_rebinding_an_outer_name(x, n):
    y = x + 1.0
    if x.sum() > 0:
        i = 0
        while i < n:
            i += 1
            y = y * 0.5 + 1.0
    return y


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_while_in_a_tensor_if_carries_an_outer_name(n):
    both_forms(while_in_a_tensor_if_rebinding_an_outer_name, (f32(1.0, 2.0), i64(n)),
               (f32(-1.0, -2.0), i64(n)))


def name_only_in_a_loop_body(x, n, k):
    i = 0
    while i < n:
        i += 1
        if k > 0:
            t = x * 2.0
            x = t + 1.0
    return x


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("k", [0, 1])
def test_a_loop_temporary_left_unbound_on_a_python_path(n, k):
    both_forms(name_only_in_a_loop_body, (f32(1.0, 2.0), i64(n), k))


# -- names bound on some paths only ----------------------------------------------------------------
def bound_in_one_branch_dead(x):
    if x.sum() > 0:
        y = x * 2.0
        x = y + 1.0
    return x


def bound_in_one_branch_that_returns(x):
    if x.sum() > 0:
        y = x * 2.0
        return y
    return x


def bound_in_one_branch_and_read(x):
    if x.sum() > 0:
        y = x * 2.0
    if x.mean() > 0:
        x = x + y  # bound whenever this runs
    return x


def bound_in_one_branch_read_after(x):
    if x.sum() > 0:
        y = x * 2.0
    return y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_name_bound_in_one_branch(sign):
    x = f32(1.0, 2.0) * sign
    for fn in (bound_in_one_branch_dead, bound_in_one_branch_that_returns,
               bound_in_one_branch_and_read, bound_in_one_branch_read_after):
        both_forms(fn, (x,))


def test_reading_an_unbound_name_names_the_assigning_and_reading_lines():
    static = declarative(bound_in_one_branch_read_after)
    static(core.to_tensor(f32(1.0)))  # the path that binds it: no error
    with pytest.raises(AssertionError) as info:
        static(core.to_tensor(f32(-1.0)))
    first = bound_in_one_branch_read_after.__code__.co_firstlineno
    assert f"local variable 'y' is read ({__file__}:{first + 3})" in str(info.value)
    assert f"assigned at {__file__}:{first + 2}" in str(info.value)


def first_bound_in_a_tensor_loop(x, n):
    i = 0
    while i < n:
        scores = x * i
        i += 1
    return scores


def bound_in_an_earlier_iteration(x, n):
    for i in range(n):
        if i == 2:
            break
        t = x * i
    return t


@pytest.mark.parametrize("n", [0, 1, 3])
def test_names_first_bound_in_loops(n):
    both_forms(first_bound_in_a_tensor_loop, (f32(1.0, 2.0), i64(n)))
    both_forms(bound_in_an_earlier_iteration, (f32(1.0, 2.0), i64(n)))
    both_forms(bound_in_an_earlier_iteration, (f32(1.0, 2.0), n))  # a Python loop


def read_in_a_branch_the_run_may_skip(x, k):
    if k > 0:
        t = x * 3.0
    if x.sum() > 0:
        x = x + t  # t is unbound when k == 0: fails only if this branch runs
    return x


@pytest.mark.parametrize("k", [0, 1])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_unbound_python_path_name_read_in_a_tensor_branch(k, sign):
    both_forms(read_in_a_branch_the_run_may_skip, (f32(1.0, 2.0) * sign, k))


# -- get_program, save_inference_model -------------------------------------------------------------
class _Inner(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x)


class LazySublayer(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.first = core.nn.Linear(3, 3)
        self.lazy = None

    @declarative
    def forward(self, x):
        if self.lazy is None:
            self.lazy = _Inner()  # created inside a nested call, while translating
        return self.lazy(self.first(x))


def test_get_program_startup_initialises_every_parameter_sublayers_made_while_translating():
    core.seed(2)
    model = LazySublayer()
    x = np.ones((2, 3), np.float32)
    main, startup, inputs, outputs = ProgramTranslator().get_program(model.forward,
                                                                     core.to_tensor(x))
    assert isinstance(model.lazy.fc.weight, core.Tensor)  # an eager Parameter
    read = {n for op in main.global_block().ops for names in op.inputs.values() for n in names
            if main.global_block().vars.get(n) is not None and
            main.global_block().vars[n].persistable}
    initialised = {n for op in startup.global_block().ops for names in op.outputs.values()
                   for n in names}
    assert read and read <= initialised
    exe, scope = core.Executor(core.CPUPlace()), core.static.Scope()
    exe.run(startup, scope=scope)
    got = exe.run(main, feed={inputs[0].name: x}, fetch_list=outputs, scope=scope)[0]
    np.testing.assert_allclose(got, run_eager(model, (x,)).numpy(), rtol=1e-6)
    check_three_ways(model, (x,))


def test_save_inference_model_after_enable_false_saves_that_call(tmp_path):
    def double(x):
        return x * 2.0

    def triple(x):
        return x * 3.0

    x = core.to_tensor(np.ones((2, 3), np.float32))
    declarative(double)(x)
    ProgramTranslator().enable(False)
    declarative(triple)(x)
    ProgramTranslator().save_inference_model(str(tmp_path / "m"))
    ProgramTranslator().enable(True)
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path / "m"), exe)
    out = exe.run(program, feed={feeds[0]: np.ones((2, 3), np.float32)}, fetch_list=fetches)
    np.testing.assert_allclose(out[0], np.full((2, 3), 3.0))
    with pytest.raises(ValueError, match="pass input_spec with None"):
        exe.run(program, feed={feeds[0]: np.ones((5, 3), np.float32)}, fetch_list=fetches)


# -- attributes and items assigned in tensor loops and branches ------------------------------------
class _Box:
    pass


def attributes_of_a_local_object(x, n):
    box = _Box()
    box.v = x
    box.d = {"k": x * 0.0}
    i = 0
    while i < n:
        box.v = box.v + 1.0
        box.d["k"] = box.d["k"] + box.v
        i += 1
    if x.sum() > 0:
        box.w = x * 2.0
    else:
        box.w = x * 3.0
    return box.v, box.d["k"], box.w


class AttributeState(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.d = {}

    @declarative
    def forward(self, x, n):
        self.v = x
        self.d["k"] = x * 0.0
        for _ in range(n):
            self.v = self.v + 1.0
            self.d["k"] = self.d["k"] + self.v
        if x.sum() > 0:
            self.w = x * 2.0
            self.d["k"] = self.d["k"] * 2.0
        else:
            self.w = x * 3.0
        return self.v, self.d["k"], self.w


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_attributes_and_items_assigned_in_tensor_loops_and_branches(n, sign):
    x = f32(1.0, 2.0) * sign
    both_forms(attributes_of_a_local_object, (x, i64(n)))
    check_three_ways(AttributeState(), (x, i64(n)))


# -- dtypes across branches ------------------------------------------------------------------------
def int32_or_int64(x):
    if x.sum() > 0:
        r = core.layers.cast(x, "int32")
    else:
        r = core.layers.cast(x, "int64")
    return r


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_int32_and_int64_branches_promote_as_numpy_does(sign):
    x = f32(1.0, 2.0) * sign
    expected = run_eager(declarative(int32_or_int64), (x,)).numpy()
    for static in (declarative(int32_or_int64), Wrap(int32_or_int64)):
        got = run_declarative(static, (x,)).numpy()
        assert got.dtype == np.int64  # what the two branches' dtypes promote to
        np.testing.assert_array_equal(got, expected)


# -- paths that return different structures --------------------------------------------------------
def tuple_or_tensor(x):
    if x.sum() > 0:
        return x, x * 2.0
    return x


def tensor_or_none(x):
    if x.sum() > 0:
        return x + 1.0
    return None


def three_structures(x):
    if x.sum() > 0:
        return x, x * 2.0
    if x.mean() < -1.0:
        return None
    y = x * 3.0
    return [y, {"a": y - 1.0}], 7


@pytest.mark.parametrize("values", [(1.0, 2.0), (-1.0, 0.5), (-3.0, -1.0)])
def test_each_path_returns_its_own_structure(values):
    x = f32(*values)
    for fn in (tuple_or_tensor, tensor_or_none, three_structures):
        both_forms(fn, (x,))


def test_a_value_with_different_structures_per_path_cannot_be_used():
    def use(x):
        r = tuple_or_tensor(x)
        return r.shape

    with pytest.raises(AttributeError, match="different structures on different paths"):
        declarative(use)(core.to_tensor(f32(1.0)))


def return_in_a_loop_of_another_structure(x, n):
    if x.sum() > 5.0:
        return None
    for i in range(n):
        if x.mean() > 0:
            return x, x * i
    return x, x


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("values", [(1.0,), (-1.0,), (7.0,)])
def test_a_loop_returning_after_a_path_that_returned_none(n, values):
    both_forms(return_in_a_loop_of_another_structure, (f32(*values), i64(n)))


def print_a_branch_value(x):
    if x.sum() > 0:
        v = x * 2.0
        print(v)
    else:
        v = x - 1.0
    print(v)
    return v


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_print_of_a_value_made_in_a_branch(sign, capsys):
    x = f32(1.0, 2.0) * sign
    both_forms(print_a_branch_value, (x,))
    out = capsys.readouterr().out
    expected = "2. 4." if sign > 0 else "-2. -3."
    assert expected in out.replace(",", "") or expected.replace(". ", ".0 ") in out


def and_or_none(x):
    a = (x.sum() > 0) and None
    if a:
        x = x - 0.5
    if (x.mean() > 0) or None:
        x = x + 1.0
    if (x.mean() > 0) and None:
        x = x * 100.0
    return x


def returns_or_none(x):
    return (x.sum() > 0) or None


def test_combining_such_values_is_a_clear_error():
    def combine(x):
        a = (x.sum() > 0) and None
        return a or x

    with pytest.raises(TypeError, match="one of 2 things chosen at run time"):
        declarative(combine)(core.to_tensor(f32(1.0)))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_and_or_with_none_on_the_right(sign):
    x = f32(1.0, 2.0) * sign
    both_forms(and_or_none, (x,))
    both_forms(returns_or_none, (x,))


def list_made_in_a_tensor_loop_body(x, n):
    i = 0
    s = x * 0.0
    while i < n:
        i += 1
        if s.sum() > 100.0:
            continue
        parts = [x * 0.5, x * i]
        s = s + parts[0] + parts[1] + len(parts)
    return s


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_list_first_made_in_a_tensor_loop_body(n):
    both_forms(list_made_in_a_tensor_loop_body, (f32(1.0, -2.0), i64(n)))


@pytest.mark.parametrize("copyable", [True, False])
def test_a_run_log_replays_the_draws_of_each_random_op(copyable, monkeypatch):
    import core.random as random_state
    from core.ops.registry import KernelContext

    real = np.random.default_rng(3)

    class Uncopyable:  # a generator copy.deepcopy cannot copy (replayed from a drawn seed)
        def __deepcopy__(self, memo):
            raise TypeError("cannot copy")

        def __getattr__(self, attr):
            return getattr(real, attr)

    if not copyable:
        monkeypatch.setattr(random_state, "default_generator", lambda xp=np: Uncopyable())
    ctx, log = KernelContext(np, core.CPUPlace()), {}
    ctx.begin_run(log)
    first = [ctx.op_ctx(("b0", k)).rng().random(4) for k in (0, 1, 0)]
    ctx.begin_run(log)  # the backward half of the same run
    again = [ctx.op_ctx(("b0", k)).rng().random(4) for k in (0, 1, 0)]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[2])  # the op's second run draws anew

"""Python semantics inside ``declarative`` functions (API.md, translator section), checked
the way users meet them: each function runs eagerly and through ``declarative`` on inputs
that take different branches / trip counts of *one* cached Program, and that Program also
runs on its own through ``core.Executor``; outputs must equal eager ones.
"""
import numpy as np
import pytest

import core
from translator import InputSpec, ProgramTranslator, declarative

from .transformers import test_loop, test_return


@pytest.fixture(autouse=True)
def _enabled():
    ProgramTranslator().enable(True)
    yield
    ProgramTranslator().enable(True)


def f32(*values):
    return np.asarray(values, dtype=np.float32)


def tensor(array, stop_gradient=True):
    return core.to_tensor(np.asarray(array), stop_gradient=stop_gradient)


def _leaves(value):
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_leaves(v))
        return out
    return [value]


def _array(value):
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _is_number(value):
    return isinstance(value, (bool, int, float))


def assert_same(expected, got):
    """``got`` has ``expected``'s nesting and Python values; tensors are equal in value,
    shape and dtype. A Python number that a static loop carried may come back as a 0-d
    tensor of the same value (as in PaddlePaddle)."""
    if isinstance(expected, (list, tuple)):
        assert type(got) is type(expected) and len(got) == len(expected), (got, expected)
        for e, g in zip(expected, got):
            assert_same(e, g)
    elif _is_number(expected) and hasattr(got, "numpy"):
        assert _array(got).shape == () and _array(got).item() == expected, (got, expected)
    elif hasattr(expected, "numpy"):
        assert hasattr(got, "numpy"), (got, expected)
        ea, ga = _array(expected), _array(got)
        assert (ga.dtype, ga.shape) == (ea.dtype, ea.shape), (ga, ea)
        np.testing.assert_allclose(ga, ea, rtol=1e-5, atol=1e-6)
    else:
        assert type(got) is type(expected) and got == expected, (got, expected)


def op_types(program):
    return {op.type for block in program.blocks for op in block.ops}


def _as_args(args):
    return [tensor(a) if isinstance(a, np.ndarray) else a for a in args]


def run_with_executor(fn, static, cases):
    """Run each case's Program (``static``'s cached one) with ``core.Executor``; the fetched
    values equal what ``fn`` gives eagerly where the Program's outputs are Variables."""
    exe = core.Executor(core.CPUPlace())
    for args in cases:
        concrete = static.get_concrete_program(*_as_args(args))
        exe.run(concrete.startup_program)
        is_var = [isinstance(v, core.static.Variable) for v in _leaves(concrete.outputs)]
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        feed = {v.name: a for v, a in zip(concrete.inputs, arrays)}
        results = exe.run(concrete.main_program, feed=feed, fetch_list=concrete.output_vars)
        expected = _leaves(fn(*_as_args(args)))
        assert len(expected) == len(is_var)
        expected = [e for e, v in zip(expected, is_var) if v]
        for r, e in zip(results, expected):
            assert r.shape == _array(e).shape
            np.testing.assert_allclose(r, _array(e), rtol=1e-5, atol=1e-6)


def check(fn, *cases, ops=(), executor=True):
    """Run ``fn`` on every case (a tuple of arguments; ndarrays become tensors) eagerly and
    through one ``declarative`` wrapper, compare; the cases share one Program when their
    signatures agree. With ``ops``, the Program holds those op types, and (``executor``)
    running it with ``core.Executor`` on each case gives the eager outputs too."""
    static = declarative(fn)
    for args in cases:
        expected = fn(*_as_args(args))
        got = static(*_as_args(args))
        assert_same(expected, got)
    if ops:
        concrete = static.get_concrete_program(*_as_args(cases[0]))
        main = concrete.main_program
        missing = set(ops) - op_types(main)
        assert not missing, f"{missing} not in {sorted(op_types(main))}"
        if executor:
            run_with_executor(fn, static, cases)
    return static


# -- if / elif / else ---------------------------------------------------------------------------
def piecewise(x):
    m = x.mean()
    if m > 1.0:
        y = x - 1.0
    elif m < -1.0:
        y = x + 1.0
    else:
        y = x * 0.5
    return y


def nested_if_with_python_flag(x, use_bias):
    y = x * 2.0
    if use_bias:
        if y.sum() > 0:
            y = y + 1.0
        else:
            y = y - 1.0
            if y.min() < -10.0:
                y = y * 0.0
    return y


def if_modifies_several(x):
    a = x
    b = x * 0.0
    if x.sum() > 0:
        a = a * 3.0
        b = b + 1.0
        c = a + b
    else:
        c = a - b
    return a, b, c


def test_if_elif_else():
    check(piecewise, (f32(2.0, 3.0),), (f32(-2.0, -3.0),), (f32(0.5, -0.5),), ops={"cond"})


def test_nested_if_under_python_flag():
    check(nested_if_with_python_flag, (f32(1.0, 2.0), True), (f32(-1.0, -2.0), True),
          (f32(-9.0, -2.0), True), ops={"cond"})
    check(nested_if_with_python_flag, (f32(1.0, 2.0), False), (f32(-1.0, -2.0), False))
    main = ProgramTranslator().get_program(declarative(nested_if_with_python_flag),
                                           tensor(f32(1.0)), False)[0]
    assert "cond" not in op_types(main)


def test_if_modifies_several_names():
    check(if_modifies_several, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), ops={"cond"})


# -- while --------------------------------------------------------------------------------------
def halve_until_small(x):
    steps = 0
    while x.abs().max() > 1.0:
        x = x / 2.0
        steps += 1
    return x, steps


def while_python_and_tensor(x, max_steps):
    i = 0
    while i < max_steps and x.sum() < 10.0:
        x = x + 1.0
        i += 1
    return x, i


def while_tensor_or_python(x):
    i = 0
    while x.sum() < 0 or i < 2:
        x = x + 1.0
        i = i + 1
    return x, i


def nested_while(x):
    total = x * 0.0
    i = 0
    while i < x.shape[0]:
        j = 0
        while j < 3 and x[i] > j:
            total = total + x
            j += 1
        i += 1
    return total


def test_while_on_tensor_condition():
    check(halve_until_small, (f32(3.0, 9.0),), (f32(0.5, 0.25),), (f32(100.0, 1.0),),
          ops={"while"})


def test_while_python_and_tensor_condition():
    check(while_python_and_tensor, (f32(1.0, 2.0), 5), (f32(4.0, 4.0), 5), (f32(-9.0, 2.0), 5),
          ops={"while"})
    check(while_python_and_tensor, (f32(1.0, 2.0), 0))


def test_while_tensor_or_python_condition():
    check(while_tensor_or_python, (f32(1.0, 2.0),), (f32(-5.0, 2.0),), ops={"while"})


def test_nested_while_with_tensor_inner_condition():
    check(nested_while, (f32(1.0, 3.0, 0.0),), (f32(5.0, -1.0, 2.0),), ops={"while"})


# -- for ----------------------------------------------------------------------------------------
def cumulative_over_range_tensor(x, n):
    acc = x * 0.0
    for i in range(n):
        acc = acc + x * i
    return acc


def for_over_rows(x):
    total = x[0] * 0.0
    count = 0
    for row in x:
        if row.sum() > 0:
            total = total + row
            count += 1
    return total, count


def for_over_list(xs, scale):
    out = []
    for x in xs:
        if x.mean() > 0:
            x = x * scale
        out.append(x)
    return out


def for_enumerate_rows(x):
    acc = x[0] * 0.0
    for i, row in enumerate(x):
        acc = acc + row * i
    return acc


def for_enumerate_list(xs):
    acc = xs[0] * 0.0
    for i, x in enumerate(xs, 1):
        acc = acc + x * i
    return acc


def for_zip_lists(xs, weights):
    acc = xs[0] * 0.0
    for x, w in zip(xs, weights):
        acc = acc + x * w
    return acc


def for_zip_tensors(x, y):
    acc = x[0] * 0.0
    for a, b in zip(x, y):
        acc = acc + a * b
    return acc


def for_range_start_stop_step(x, n):
    acc = x * 0.0
    for i in range(1, n, 2):
        acc = acc + i
    return acc


def test_for_over_range_of_a_tensor():
    check(cumulative_over_range_tensor, (f32(1.0, 2.0), np.array(3)),
          (f32(1.0, 2.0), np.array(0)), (f32(1.0, 2.0), np.array(6)), ops={"while"})


def test_for_over_tensor_rows():
    check(for_over_rows, (np.array([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]], np.float32),),
          (np.array([[-1.0, -2.0], [-3.0, 1.0], [0.5, -1.5]], np.float32),),
          ops={"while", "cond"})


def test_for_over_python_list_of_tensors():
    xs = [tensor(f32(1.0, 2.0)), tensor(f32(-1.0, -2.0)), tensor(f32(3.0, -1.0))]
    expected = for_over_list(xs, 2.0)
    got = declarative(for_over_list)(xs, 2.0)
    assert_same(expected, got)


def test_enumerate_rows_of_a_tensor():
    check(for_enumerate_rows, (np.arange(12, dtype=np.float32).reshape(4, 3),), ops={"while"})


def test_enumerate_and_zip_of_lists():
    xs = [tensor(f32(1.0, 2.0)), tensor(f32(3.0, 4.0))]
    assert_same(for_enumerate_list(xs), declarative(for_enumerate_list)(xs))
    assert_same(for_zip_lists(xs, [0.5, -2.0]), declarative(for_zip_lists)(xs, [0.5, -2.0]))


def test_zip_of_tensors():
    check(for_zip_tensors, (np.ones((3, 2), np.float32), np.arange(8, dtype=np.float32)
                            .reshape(4, 2)), ops={"while"})


def test_range_with_start_stop_step_tensor_bound():
    check(for_range_start_stop_step, (f32(1.0), np.array(6)), (f32(1.0), np.array(1)),
          (f32(1.0), np.array(9)), ops={"while"})


# -- break / continue / return ------------------------------------------------------------------
def first_index_above(x, limit):
    found = -1
    for i in range(x.shape[0]):
        if x[i] > limit:
            found = i
            break
    return found


def early_return_in_for_over_range_tensor(x, n):
    for i in range(n):
        x = x * 2.0
        if x.sum() > 100.0:
            return x, i
    return x - 1.0, n


def break_out_of_nested_loop(x):
    total = x[0, 0] * 0.0
    for i in range(x.shape[0]):
        stop = False
        for j in range(x.shape[1]):
            if x[i, j] < 0:
                stop = True
                break
            total = total + x[i, j]
        if stop:
            break
    return total


def sum_skipping_negatives(x):
    total = x[0] * 0.0
    for v in x:
        if v < 0:
            continue
        total = total + v
    return total


def while_with_break_and_continue(x):
    i = 0
    acc = x * 0.0
    while i < 10:
        i += 1
        if x.sum() * i > 20.0:
            break
        if i % 2 == 0:
            continue
        acc = acc + x * i
    return acc, i


def for_else(x):
    for i in range(3):
        if x.sum() > 5.0 * i:
            x = x + 1.0
    else:
        x = x * 10.0
    return x


def return_in_both_branches(x):
    if x.mean() > 0:
        return x * 2.0
    else:
        return x * -1.0


def return_in_while_true(x):
    while True:
        x = x * 2.0
        if x.max() > 10.0:
            return x


def test_break_in_for_over_range_of_unknown_length():
    check(first_index_above, (f32(1.0, 5.0, 9.0), 4.0), (f32(1.0, 2.0, 3.0), 4.0),
          (f32(9.0, 5.0, 9.0), 4.0), ops={"while"})


def test_early_return_inside_for_over_range_of_a_tensor():
    check(early_return_in_for_over_range_tensor, (f32(1.0, 2.0), np.array(10)),
          (f32(1.0, 2.0), np.array(3)), (f32(1.0, 2.0), np.array(0)), ops={"while"})


def test_break_out_of_nested_loops_on_tensor_condition():
    check(break_out_of_nested_loop, (np.array([[1.0, 2.0], [3.0, -1.0], [5.0, 6.0]], np.float32),),
          (np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32),),
          (np.array([[-1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32),), ops={"while"})


def test_continue_in_for_over_tensor():
    check(sum_skipping_negatives, (f32(1.0, -2.0, 3.0),), (f32(-1.0, -2.0, -3.0),),
          ops={"while"})


def test_while_with_break_and_continue():
    check(while_with_break_and_continue, (f32(1.0, 2.0),), (f32(0.1, 0.1),),
          (f32(30.0, 1.0),), ops={"while"})


def test_for_else():
    check(for_else, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), ops={"cond"})


def test_return_in_both_branches():
    check(return_in_both_branches, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), ops={"cond"})


def test_return_inside_while_true():
    check(return_in_while_true, (f32(1.0, 2.0),), (f32(30.0, 2.0),), ops={"while"})


def returns_pair_or_single(x):
    if x.mean() > 0:
        return x * 2.0, x
    return x - 1.0, x * 0.0


def state_tuple_in_loop(x, n):
    state = (x, x * 0.0)
    for _ in range(n):
        h, c = state
        c = c + h
        h = core.layers.tanh(c)
        state = (h, c)
    return state


def test_tuples_cross_cond_and_while():
    check(returns_pair_or_single, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), ops={"cond"})
    check(state_tuple_in_loop, (f32(0.5, -0.5), np.array(3)), (f32(0.5, -0.5), np.array(0)),
          ops={"while"})


def returns_none_on_python_path(x, training):
    if not training:
        return None
    if x.sum() > 0:
        return x, x * 2.0
    return x * 0.0, x


def returns_none_under_tensor_condition(x):
    if x.sum() > 0:
        return x


def test_different_numbers_of_values_on_python_paths():
    check(returns_none_on_python_path, (f32(1.0, 2.0), False), (f32(-1.0, 2.0), False))
    check(returns_none_on_python_path, (f32(1.0, 2.0), True), (f32(-1.0, -2.0), True),
          ops={"cond"})


def test_none_on_a_tensor_path_is_what_that_path_returns():
    check(returns_none_under_tensor_condition, (f32(1.0),), (f32(-1.0),), ops={"cond"},
          executor=False)


# -- and / or / not, chained comparisons, conditional expressions -------------------------------
def in_unit_interval(x):
    if 0 < x.mean() < 1:
        y = x * 10.0
    else:
        y = x
    return y


def python_and_tensor_condition(x, enabled):
    if enabled and x.sum() > 0:
        x = x + 1.0
    if not enabled or x.max() > 5.0:
        x = x * -1.0
    return x


def tensor_or_tensor(x):
    if x.min() > 2.0 or x.max() < -2.0:
        x = x * 0.0
    if not x.sum() > 0:
        x = x - 1.0
    return x


def short_circuit_protects_division(x, d):
    if d.sum() != 0 and (x / d).sum() > 1.0:
        return x / d
    return x


def clipped(x):
    y = x * 2.0 if x.mean() > 0 else x * -3.0
    z = 1.0 if x.sum() > 2.0 else 0.0
    return y + z


def test_chained_comparison_on_a_tensor():
    check(in_unit_interval, (f32(0.5, 0.7),), (f32(1.5, 0.7),), (f32(-0.5, 0.2),), ops={"cond"})


def test_and_or_not_mixing_python_and_tensor_conditions():
    for enabled in (True, False):
        static = check(python_and_tensor_condition, (f32(1.0, 2.0), enabled),
                       (f32(-1.0, -2.0), enabled), (f32(3.0, 4.0), enabled))
        main = static.get_concrete_program(tensor(f32(1.0, 2.0)), enabled).main_program
        assert ("cond" in op_types(main)) == enabled  # a Python False decides alone


def test_or_of_tensor_conditions_and_not():
    check(tensor_or_tensor, (f32(3.0, 4.0),), (f32(-3.0, -4.0),), (f32(-1.0, 0.5),),
          ops={"cond"})


def test_and_short_circuits_on_a_tensor():
    check(short_circuit_protects_division, (f32(4.0, 2.0), f32(1.0, 1.0)),
          (f32(4.0, 2.0), f32(0.0, 0.0)), (f32(0.1, 0.1), f32(1.0, 1.0)), ops={"cond"})


def test_conditional_expressions_on_a_tensor():
    check(clipped, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), (f32(0.5, 0.5),), ops={"cond"})


# -- print, assert, len, casts, shape ------------------------------------------------------------
def print_in_tensor_loop(x):
    i = 0
    while x.sum() < 10.0:
        print(x)
        x = x * 2.0
        i += 1
    print("steps:", i)
    return x


def assert_on_tensor(x):
    assert x.min() >= 0, "x must be non-negative"
    return core.layers.sqrt(x)


def len_of_tensor(x):
    total = x[0] * 0.0
    for i in range(len(x)):
        total = total + x[i]
    return total, len(x)


def int_as_range_bound(x, n):
    acc = x * 0.0
    for _ in range(int(n)):
        acc = acc + x
    return acc


def casts(x):
    k = int(x.sum())
    f = float(x.max())
    b = bool(x.min() > 0)
    return k, f, b


def test_print_of_a_tensor_inside_a_tensor_loop(capsys):
    check(print_in_tensor_loop, (f32(1.0, 2.0),), (f32(8.0, 4.0),),
          ops={"while", "python_print"}, executor=False)
    assert "steps:" in capsys.readouterr().out


def test_assert_on_a_tensor_passes_and_fails():
    static = check(assert_on_tensor, (f32(1.0, 4.0),), (f32(0.0, 9.0),), ops={"assert"})
    with pytest.raises(Exception, match=r"x\.min\(\) >= 0|assert"):
        static(tensor(f32(-1.0, 4.0)))


def test_len_of_a_tensor():
    check(len_of_tensor, (f32(1.0, 2.0, 3.0),))


def test_int_of_a_tensor_as_a_range_bound():
    check(int_as_range_bound, (f32(1.0, 2.0), f32(3.0)), (f32(1.0, 2.0), f32(0.0)),
          ops={"while", "cast"})


def test_int_float_bool_casts_of_tensors():
    static = declarative(casts)
    for value in (f32(1.5, 2.5), f32(-1.0, 0.5)):
        k, f, b = static(tensor(value))
        ek, ef, eb = casts(tensor(value))
        assert int(k) == ek and float(f) == pytest.approx(ef) and bool(b) == eb
        assert _array(k).dtype == np.int64 and _array(b).dtype == np.bool_


def normalise_rows(x):
    batch = x.shape[0]
    mean = x.sum(0) / batch
    y = core.layers.reshape(x - mean, [-1, x.shape[1] * x.shape[2]])
    if y.shape[1] > 4:
        y = y[:, :4]
    return y * float(len(x)), x.shape[0] * 2


def flatten_batch(x):
    return core.layers.reshape(x, [x.shape[0], -1])


def test_shape_with_unknown_batch_dim():
    static = declarative(normalise_rows, input_spec=[InputSpec([None, 2, 3])])
    for n in (1, 5):
        x = np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3)
        assert_same(normalise_rows(tensor(x)), static(tensor(x)))
    assert static.translations == 1
    assert "shape" in op_types(static.concrete_program.main_program)


def test_reshape_with_an_unknown_dim_from_x_shape():
    static = declarative(flatten_batch, input_spec=[InputSpec([None, 2, 3])])
    for batch in (2, 5):  # one Program, the batch size read at run time
        x = np.arange(batch * 6, dtype=np.float32).reshape(batch, 2, 3)
        assert_same(flatten_batch(tensor(x)), static(tensor(x)))
    main = static.get_concrete_program(tensor(x)).main_program
    assert "reshape_tensor" in [op.type for op in main.global_block().ops]


# -- list.append in loops ------------------------------------------------------------------------
def collect_rows_until(x, limit):
    outs = []
    i = 0
    while i < x.shape[0] and x[i].sum() < limit:
        outs.append(x[i] * 2.0)
        i += 1
    outs.append(x[0])
    return core.layers.stack(outs), len(outs)


def collect_in_for_over_tensor(x):
    steps = []
    h = x[0] * 0.0
    for row in x:
        h = core.layers.tanh(h + row)
        steps.append(h)
    return core.layers.stack(steps, axis=0), steps[-1]


def test_list_append_in_a_tensor_loop_then_stack():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    check(collect_rows_until, (x, 20.0), (x, 5.0), (x, 100.0), ops={"while"})


def test_list_append_in_for_over_tensor():
    check(collect_in_for_over_tensor, (np.arange(6, dtype=np.float32).reshape(3, 2) / 6,),
          ops={"while"})


# -- calls: nested functions, Layers, other modules, closures, defaults, keywords, *args ----------
def _scale_if_positive(x, factor=2.0):
    if x.mean() > 0:
        return x * factor
    return x


def _accumulate(x, *extras, scale=1.0):
    for e in extras:
        x = x + e * scale
    return x


def calls_helpers(x, y):
    a = _scale_if_positive(x)
    b = _scale_if_positive(y, factor=-1.0)
    c = _accumulate(a, b, x, scale=0.5)
    return test_return.tensor_early(c), test_loop.for_tensor(core.layers.stack([a, b]))


class Gate(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(3, 3)

    def forward(self, x, steps=2):
        h = self.fc(x)
        for _ in range(steps):
            if h.mean() > 0:
                h = core.layers.relu(h) - 0.5
            else:
                h = core.layers.tanh(h) + 0.25
        return h


class Model(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.out = core.nn.Linear(3, 1)

    @declarative
    def forward(self, x):
        h = self.gate(x, steps=3)
        while h.abs().sum() > 1.0:
            h = h * 0.5
        return self.out(h)


def make_closure(offset):
    def shifted(x):
        if x.sum() > offset:
            return x - offset
        return x + offset
    return shifted


def test_nested_user_functions_defaults_keywords_and_star_args():
    check(calls_helpers, (f32(1.0, 2.0), f32(3.0, -1.0)), (f32(-1.0, -2.0), f32(3.0, 1.0)),
          ops={"cond", "while"})


def test_helpers_from_another_module_are_converted():
    static = check(calls_helpers, (f32(1.0, 2.0), f32(3.0, -1.0)))
    assert "convert_call" in ProgramTranslator().get_code(static)


def test_layer_with_control_flow_called_from_a_declarative_forward():
    core.seed(1)
    model = Model()
    for value in (np.ones((2, 3), np.float32), -np.ones((2, 3), np.float32) * 4):
        got = model(tensor(value))
        ProgramTranslator().enable(False)
        expected = model(tensor(value))
        ProgramTranslator().enable(True)
        assert_same(expected, got)
    main = model.forward.program_cache[next(iter(model.forward.program_cache))].main_program
    assert {"cond", "while"} <= op_types(main)


def test_closures_see_their_cells():
    check(make_closure(1.5), (f32(1.0, 2.0),), (f32(0.1, 0.2),), ops={"cond"})
    check(make_closure(-3.0), (f32(1.0, 2.0),), (f32(-5.0, 0.2),), ops={"cond"})


def test_keyword_and_default_arguments_of_the_declarative_function():
    static = declarative(_scale_if_positive)
    x = tensor(f32(1.0, 2.0))
    assert_same(_scale_if_positive(x), static(x))
    assert_same(_scale_if_positive(x, factor=3.0), static(x, factor=3.0))
    assert_same(_scale_if_positive(x, 3.0), static(factor=3.0, x=x))
    static_args = declarative(_accumulate)
    assert_same(_accumulate(x, x, x, scale=2.0), static_args(x, x, x, scale=2.0))
    assert_same(_accumulate(x), static_args(x))


# -- lists mutated under a Tensor condition --------------------------------------------------------
def append_under_tensor_condition(x):
    outs = [x]
    if x.sum() > 0:
        outs.append(x * 2.0)
    else:
        outs.append(x * -2.0)
    return core.layers.stack(outs)


def test_list_append_in_both_branches_of_a_tensor_if():
    check(append_under_tensor_condition, (f32(1.0, 2.0),), (f32(-1.0, -2.0),), ops={"cond"})


# -- gradients through converted control flow -----------------------------------------------------
def gated_recurrence(x, w, n):
    h = x * 0.0
    outs = []
    for _i in range(n):
        h = core.layers.tanh(h * w + x)
        if h.mean() > 0.2:
            h = h * 0.5
        outs.append(h)
    return core.layers.stack(outs).sum(), h


def early_exit_loss(x, w):
    for _i in range(4):
        x = x * w
        if x.abs().max() > 3.0:
            return (x * x).sum()
    return x.sum()


def _gradients(fn, arrays, *python_args):
    results = []
    for enabled in (False, True):
        ProgramTranslator().enable(enabled)
        leaves = [tensor(a, stop_gradient=False) for a in arrays]
        out = declarative(fn)(*leaves, *python_args)
        loss = out[0] if isinstance(out, tuple) else out
        loss.backward()
        results.append((float(loss), [t.gradient() for t in leaves]))
    ProgramTranslator().enable(True)
    return results


@pytest.mark.parametrize("scale", [0.1, 1.0])
def test_gradients_through_for_if_and_list_stack(scale):
    x, w = f32(0.3, -0.2, 0.5) * scale, f32(0.9, 1.1, -0.7)
    (le, ge), (ls, gs) = _gradients(gated_recurrence, [x, w], np.array(3))
    assert ls == pytest.approx(le, rel=1e-5)
    for a, b in zip(gs, ge):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_gradients_through_an_early_return_in_a_loop(scale):
    (le, ge), (ls, gs) = _gradients(early_exit_loss, [f32(1.0, -1.0) * scale, f32(1.5, 1.2)])
    assert ls == pytest.approx(le, rel=1e-5)
    for a, b in zip(gs, ge):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


# -- errors point to the user's file and line ------------------------------------------------------
def _notes(exc):
    return "\n".join(getattr(exc, "__notes__", [])) + "\n" + str(exc)


def _points_to(exc, text):
    """Whether ``exc``'s message or notes name this file and the line holding ``text``."""
    with open(__file__) as f:
        line = next(i for i, src in enumerate(f, 1) if text in src)
    notes = _notes(exc)
    return f'"{__file__}", line {line}' in notes or f"{__file__}:{line}" in notes


def shape_mismatch_in_loop(x, w):
    i = 0
    while x.sum() < 100.0:
        x = core.layers.matmul(x, w)  # w is [3, 2]: fails on the second trip
        i += 1
    return x


def failing_tensor_assert(x):
    y = x * 2.0
    assert y.min() > 0, "y must be positive"
    return y


def python_error_in_branch(x, table):
    if x.sum() > 0:
        y = x * table["scale"]
    else:
        y = x
    return y


def test_op_error_inside_a_converted_loop_names_the_users_line():
    with pytest.raises(Exception) as info:
        declarative(shape_mismatch_in_loop)(tensor(np.ones((2, 3), np.float32)),
                                            tensor(np.ones((3, 2), np.float32)))
    assert _points_to(info.value, "x = core.layers.matmul(x, w)  # w is"), _notes(info.value)


def test_failing_assert_on_a_tensor_names_the_users_line():
    static = declarative(failing_tensor_assert)
    static(tensor(f32(1.0, 2.0)))
    with pytest.raises(Exception) as info:
        static(tensor(f32(-1.0, 2.0)))
    assert _points_to(info.value, 'assert y.min() > 0, "y must be positive"'), _notes(info.value)
    assert "y must be positive" in str(info.value)


def test_python_error_in_converted_code_keeps_type_and_names_the_users_line():
    with pytest.raises(KeyError) as info:
        declarative(python_error_in_branch)(tensor(f32(1.0)), {"shift": 1.0})
    assert _points_to(info.value, 'y = x * table["scale"]'), _notes(info.value)


def test_static_error_in_a_branch_names_the_users_line():
    def bad_branch(x, w):
        if x.sum() > 0:
            y = core.layers.matmul(x, w)  # [2, 3] @ [2, 3] cannot be built
        else:
            y = x
        return y

    with pytest.raises(Exception) as info:
        declarative(bad_branch)(tensor(np.ones((2, 3), np.float32)),
                                tensor(np.ones((2, 3), np.float32)))
    assert _points_to(info.value, "y = core.layers.matmul(x, w)  # [2, 3] @ [2, 3]")


# -- regressions of translator fixes ---------------------------------------------------------------
def test_range_and_enumerate_indices_are_weak_like_python_ints():
    def f(x, n):
        acc = x * 0.0
        for i in range(n):
            acc = acc + x * i
        for j, row in enumerate(x):
            acc = acc + row * j
        return acc

    out = declarative(f)(tensor(f32(1.0, 2.0)), tensor(np.array(3)))
    assert _array(out).dtype == np.float32


def test_len_and_unknown_dims_are_weak_zero_d_numbers():
    def f(x):
        items = []
        while len(items) < x.shape[0]:
            items.append(x[0])
        return x / x.shape[0], x * len(x), len(items)

    static = declarative(f, input_spec=[InputSpec([None, 2])])
    a, b, n = static(tensor(np.ones((3, 2), np.float32)))
    assert _array(a).dtype == np.float32 and _array(b).dtype == np.float32
    assert _array(n).shape == () and int(n) == 3


def test_pending_return_is_initialised_only_when_every_path_returns():
    from translator.convert import get_code

    assert "PendingReturn('__return_value_0')" in get_code(early_return_in_for_over_range_tensor)
    assert "PendingReturn('__return_value_0')" in get_code(return_in_while_true)
    assert "PendingReturn" not in get_code(returns_none_under_tensor_condition)


def test_loop_variable_changing_structure_is_a_clear_error():
    def f(x):
        state = (x, x)
        while x.sum() < 10.0:
            x = x * 2.0
            state = (x, x, x)
        return state

    with pytest.raises(TypeError, match=r"'state' is a tuple of 2 before a loop .*tuple of 3"):
        declarative(f)(tensor(f32(1.0)))


def two_or_three(x):
    if x.sum() > 0:
        return x, x
    return x, x, x


def test_branches_returning_different_structures_return_the_path_taken():
    check(two_or_three, (f32(1.0),), (f32(-1.0),), ops={"cond"}, executor=False)


def test_dicts_and_namedtuples_cross_a_tensor_if():
    import collections

    Pair = collections.namedtuple("Pair", "a b")

    def f(x):
        if x.sum() > 0:
            out = {"y": x * 2.0, "p": Pair(x, 1.0)}
        else:
            out = {"y": x, "p": Pair(x * 0.0, 2.0)}
        return out["y"], out["p"].a, out["p"].b

    check(f, (f32(1.0),), (f32(-1.0),), ops={"cond"})

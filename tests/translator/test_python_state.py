"""Python state across tensor control flow: containers (nests of lists, tuples and dicts with
tensor leaves), names deleted or bound on one path, and outside state (attributes, globals,
nonlocals) written by converted code. Every function runs eagerly, through ``declarative`` and
as a Program run by ``core.Executor``, on inputs that take every path and trip count."""
import numpy as np

import core
from translator import declarative

from .three_way import check_three_ways, run_declarative, run_eager


def f32(*values):
    return np.array(values, dtype=np.float32)


def i64(value):
    return np.array(value, dtype=np.int64)


# -- names bound or deleted on one path ----------------------------------------------------------
@declarative
def dict_made_in_loop(x, n):
    i = 0
    while i < n:
        cache = {"v": x + 1, "w": [x * 2]}
        i += 1
    return cache["w"][0] + cache["v"]


def test_dict_made_only_in_a_loop_is_unbound_after_zero_trips():
    check_three_ways(dict_made_in_loop, (f32(1.0), i64(0)), (f32(1.0), i64(1)),
                     (f32(1.0), i64(3)))
    assert isinstance(run_eager(dict_made_in_loop, (f32(1.0), i64(0))), UnboundLocalError)


@declarative
def delete_in_branch(x):
    i = x + 1
    if x > 0:
        del i
    return i


@declarative
def delete_in_both_python_and_tensor_paths(x, flag):
    i, j = x + 1, x * 2
    if flag:
        del j
    if x > 0:
        del i
        i = x * 3
    return i + (0 if flag else j)


def test_del_unbinds_a_name_on_the_path_taken():
    check_three_ways(delete_in_branch, (f32(-1.0),), (f32(1.0),))
    assert isinstance(run_eager(delete_in_branch, (f32(1.0),)), UnboundLocalError)
    check_three_ways(delete_in_both_python_and_tensor_paths, (f32(-1.0), True),
                     (f32(1.0), True), (f32(-2.0), False), (f32(2.0), False))


def test_del_error_names_the_variable():
    err = run_declarative(delete_in_branch, (f32(1.0),))
    assert isinstance(err, Exception) and "'i'" in str(err)


# -- lists and dicts through a tensor loop ---------------------------------------------------------
@declarative
def per_layer_states(x, n):
    hs = [x, x * 2, x * 3]
    for _ in range(n):
        hs = [h + 1 for h in hs]
        if hs[0] > 5:
            break
    return hs[0] + hs[1] * hs[2], len(hs)


@declarative
def attention_caches(x, n):
    caches = [{"k": x, "v": (x * 2, [x * 4])}, {"k": x * 3, "v": (x * 5, [x])}]
    i = 0
    while i < n:
        caches = [{"k": c["k"] + 1, "v": (c["v"][0] * 2, [c["v"][1][0] - 1])} for c in caches]
        i += 1
    return caches


def test_fixed_length_lists_and_nests_cross_a_tensor_loop():
    for n in (0, 1, 2, 10):
        check_three_ways(per_layer_states, (f32(1.0), i64(n)))
        check_three_ways(attention_caches, (f32(1.0, 2.0), i64(n)))


@declarative
def appended(x, n):
    out = []
    for _ in range(n):
        x = x + 1
        out.append(x)
    return out


@declarative
def appended_then_used(x, n):
    a = []
    i = 0
    while i < n:
        a.append(x * i)
        i += 1
    a[1] = x * 100
    a[-1] = a[-1] + 7
    rev = a[::-1]
    return rev, a[1:], a[-2:0:-1], a[::2], core.layers.concat(a[::-1], axis=0), len(a)


def test_list_appended_in_a_tensor_loop_is_a_list_afterwards():
    for n in (0, 1, 3):
        result = run_declarative(appended, (f32(1.0, 2.0), i64(n)))
        assert isinstance(result, list) and len(result) == n
        check_three_ways(appended, (f32(1.0, 2.0), i64(n)))
    for n in (2, 3, 6):
        check_three_ways(appended_then_used, (f32(1.0), i64(n)))


def test_item_assignment_out_of_range_fails_at_run_time():
    err = run_declarative(appended_then_used, (f32(1.0), i64(1)))
    assert isinstance(err, Exception) and "out of range" in str(err)


@declarative
def dict_key_in_branch(x):
    d = {"a": x}
    if x > 0:
        d["b"] = x * 2
    if x < -5:
        d["c"] = {"deep": x}
    return d, [d]


def test_dict_key_set_on_one_path_exists_only_when_it_ran():
    for value in (1.0, -1.0, -10.0):
        check_three_ways(dict_key_in_branch, (f32(value),))
    assert list(run_declarative(dict_key_in_branch, (f32(-1.0),))[0]) == ["a"]
    assert list(run_declarative(dict_key_in_branch, (f32(-10.0),))[0]) == ["a", "c"]


# -- outside state: attributes, globals, nonlocals -----------------------------------------------
SCALE = 0.0
HISTORY = None


@declarative
def scale_by_global(x, n):
    global SCALE, HISTORY
    if x > 0:
        SCALE = 1.0
    else:
        SCALE = 2.0
    i = 0
    while i < n:
        HISTORY = x * i
        i += 1
    return x * SCALE


def test_globals_written_under_tensor_conditions_hold_each_calls_values():
    global HISTORY
    for value, n in ((3.0, 0), (-3.0, 2), (3.0, 4), (-1.0, 1)):
        got = []
        for run in (run_eager, run_declarative):
            HISTORY = core.to_tensor(f32(-7.0))
            out = run(scale_by_global, (f32(value), i64(n)))
            got.append((out.numpy(), SCALE, HISTORY))
        (e_out, e_scale, e_hist), (c_out, c_scale, c_hist) = got
        np.testing.assert_array_equal(e_out, c_out)
        assert type(c_scale) is float and c_scale == e_scale
        assert isinstance(c_hist, core.Tensor)
        np.testing.assert_array_equal(e_hist.numpy(), c_hist.numpy())


class ModeNet(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.steps = 0

    @declarative
    def forward(self, x):
        if x > 0:
            self.mode = 1.0
            self.sign = True
        else:
            self.mode = 2.0
            self.sign = False
        self.last = x * 3
        self.pair = (x + 1, "tag")
        return x


def test_layer_attributes_set_in_forward_are_python_values_and_tensors():
    for value in (1.0, -1.0, 2.0):
        nets = ModeNet(), ModeNet()
        run_eager(nets[0], (f32(value),))
        run_declarative(nets[1], (f32(value),))
        e, c = nets
        assert (type(c.mode), c.mode, type(c.sign), c.sign) == \
            (type(e.mode), e.mode, type(e.sign), e.sign)
        assert isinstance(c.last, core.Tensor) and isinstance(c.pair[0], core.Tensor)
        np.testing.assert_array_equal(c.last.numpy(), e.last.numpy())
        np.testing.assert_array_equal(c.pair[0].numpy(), e.pair[0].numpy())
        assert c.pair[1] == "tag"


def test_a_layer_reused_across_calls_gets_every_calls_values():
    net = ModeNet()
    for value in (1.0, -1.0, 1.0):
        run_declarative(net, (f32(value),))
        assert net.mode == (1.0 if value > 0 else 2.0)
        np.testing.assert_array_equal(net.last.numpy(), f32(value) * 3)


@declarative
def dict_made_after_an_early_return(x):
    if x.mean() < 0.0:
        return x
    cache = {"a": x}
    if x.sum() > 1.0:
        cache["b"] = x * 2.0
    return x, cache


def test_dict_made_in_the_code_after_an_early_return_and_filled_under_a_condition():
    # the code after the return runs under the return's condition; the dict is made there,
    # so the item the inner if sets is carried with the dict, not as an item of a dict from
    # before (there is none)
    check_three_ways(dict_made_after_an_early_return, (f32(-1.0, 0.5),), (f32(1.0, 2.0),))


def test_dict_key_set_on_one_path_in_the_code_after_an_early_return():
    # the entry keeps its own bound flag through the return's guard (a cond whose paths
    # return different structures): left out where its path did not run
    check_three_ways(dict_made_after_an_early_return, (f32(0.25, 0.5),), (f32(1.0, 2.0),),
                     (f32(-1.0, 0.5),))


@declarative
def dict_entry_through_a_later_if(x):
    cache = {"a": x}
    if x.sum() > 1.0:
        cache["b"] = x * 2.0
    if x.mean() > 100.0:
        x = x + 1
        cache = cache
    return x, cache


@declarative
def dict_entry_read_after_the_guard(x):
    if x.mean() < 0.0:
        return x
    cache = {"a": x}
    if x.sum() > 1.0:
        cache["b"] = x * 2.0
    y = cache["a"] + 1
    if "b" in cache:
        y = y + cache["b"]
    return y


@declarative
def two_entries_after_an_early_return(x):
    if x.mean() < 0.0:
        return x
    cache = {"a": x}
    if x.sum() > 1.0:
        cache["b"] = x * 2.0
    if x.max() > 1.5:
        cache["c"] = x * 3.0
    return x, cache


def test_two_one_path_entries_after_an_early_return():
    # two flagged leaves the other path's placeholders hold without flags
    for values in ((0.25, 0.5), (0.25, 2.0), (1.0, 0.5), (1.0, 2.0), (-1.0, 0.5)):
        check_three_ways(two_entries_after_an_early_return, (f32(*values),))


def test_dict_entry_flags_survive_later_conds():
    # a container both branches leave as it was keeps its entries' flags (it raised); the
    # guard's cond carries the entry's flag, and reading the entry that is there needs none
    for values in ((0.25, 0.5), (1.0, 2.0), (200.0, 300.0)):
        check_three_ways(dict_entry_through_a_later_if, (f32(*values),))
    for values in ((0.25, 0.5), (1.0, 2.0), (-1.0, 0.5)):
        check_three_ways(dict_entry_read_after_the_guard, (f32(*values),))


class CacheNet(core.nn.Layer):
    """Writes items of containers it holds (PaddlePaddle's NetWithControlFlowIf keeps its
    constants in ``self.constant_vars``): a key set always, one set on one path only, a list
    item replaced and a list appended to."""

    def __init__(self):
        super().__init__()
        self.consts = {}
        self.slots = [None, "keep"]
        self.log = []

    @declarative
    def forward(self, x):
        self.consts["bias"] = x + 1
        if x.sum() > 0:
            self.consts["w"] = x * 2
        self.slots[0] = x - 1
        self.log.append(x * 5)
        return x


def test_items_of_containers_a_layer_holds_are_each_calls_values():
    for values in ((1.0, -1.0), (-1.0, 1.0)):
        nets = CacheNet(), CacheNet()
        for value in values:
            e = run_eager(nets[0], (f32(value),))
            c = run_declarative(nets[1], (f32(value),))
            np.testing.assert_array_equal(c.numpy(), e.numpy())
            eager, conv = nets
            assert list(conv.consts) == list(eager.consts)
            for key in eager.consts:
                assert isinstance(conv.consts[key], core.Tensor)
                np.testing.assert_array_equal(conv.consts[key].numpy(), eager.consts[key].numpy())
            assert isinstance(conv.slots[0], core.Tensor) and conv.slots[1] == "keep"
            np.testing.assert_array_equal(conv.slots[0].numpy(), eager.slots[0].numpy())
            # NOTE: an append is replayed as the trace made it (one item), not once per call
            assert all(isinstance(v, core.Tensor) for v in conv.log)
            np.testing.assert_array_equal(conv.log[-1].numpy(), eager.log[-1].numpy())
    net = CacheNet()
    run_declarative(net, (f32(1.0, 2.0),))
    run_declarative(net, (f32(1.0, 2.0, 3.0),))  # a second signature, traced from Tensors
    np.testing.assert_array_equal(net.consts["w"].numpy(), f32(2.0, 4.0, 6.0))


def make_counter():
    count = 0

    def step(x, n):
        nonlocal count
        if x > 0:
            count += 1
        else:
            count += 10
        for _ in range(n):
            count += 100
        return x

    return step, lambda: count


def test_nonlocal_written_under_tensor_conditions():
    for value, n in ((1.0, 0), (-1.0, 2)):
        eager_step, eager_count = make_counter()
        run_eager(eager_step, (f32(value), i64(n)))
        step, count = make_counter()
        run_declarative(declarative(step), (f32(value), i64(n)))
        assert count() == eager_count() and isinstance(count(), int)


# -- ranks, zipped Python lists, arange of a tensor ------------------------------------------------
@declarative
def rank_changes_in_branch(b, x):
    if b.sum() > 0:
        b = b + x
    return b


def test_a_rank_that_differs_between_branches_is_the_taken_paths():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for value in (1.0, -1.0):
        check_three_ways(rank_changes_in_branch, (f32(value), x))


@declarative
def computes_with_a_rank_that_differs(b, x):
    if b.sum() > 0:
        b = b + x
    return b * 2.0


def test_computing_with_a_value_of_two_ranks_names_the_problem():
    err = run_declarative(computes_with_a_rank_that_differs,
                          (f32(1.0), np.ones((2, 3), np.float32)))
    assert isinstance(err, TypeError) and "rank" in str(err) and "[2, 3]" in str(err)


@declarative
def zip_tensor_and_list(t, weights):
    total = core.layers.fill_constant([1], "int32", 0)
    for a, b in zip(t, weights):
        total = total + a * b
    scaled = core.layers.fill_constant([1], "float32", 0.0)
    for _, w in zip(t, [0.5, 1.5, 2.5][:len(weights)]):
        scaled = scaled + w
    return total, scaled


def test_zip_of_a_tensor_and_a_python_list_keeps_python_numbers_weak():
    for n in (0, 1, 3):
        check_three_ways(zip_tensor_and_list, (np.arange(1, n + 1, dtype=np.int32),
                                               [4, 5, 6][:n]))


@declarative
def sum_arange(x, n):
    for i in core.arange(n):
        x = x + i
    for j in core.arange(1, n, 2):
        x = x * j
    return x, core.arange(n, dtype="float32")


def test_for_over_arange_of_a_tensor():
    for n in (0, 1, 4, 7):
        check_three_ways(sum_arange, (np.array([10], np.int64), i64(n)))


def test_arange_of_a_tensor_with_more_than_one_element_names_the_argument():
    err = run_declarative(sum_arange, (np.array([10], np.int64), np.array([2, 3], np.int64)))
    assert isinstance(err, Exception) and "'end'" in str(err)


@declarative
def number_changes_type_in_loop(x, n):
    if x.sum() > 0:
        g = 2
    else:
        g = 3
    for _ in range(n):
        if x.sum() > 0:
            g = 1.5
        else:
            g = 0.5
    return x * g


def test_a_number_a_cond_chose_may_change_type_in_a_loop():
    # eager: g is an int before the loop and a float after any trip
    for value in (1.0, -1.0):
        for n in (0, 2):
            check_three_ways(number_changes_type_in_loop, (f32(value, 2.0), i64(n)))


@declarative
def entry_tests(x):
    d = {"a": x}
    if x.sum() > 0:
        d["b"] = x * 2
    if "b" in d:
        y = d["b"] + 1
    else:
        y = x - 1
    return y, d.get("b", x * 0), d.get("b", 5.0), "b" not in d, "a" in d, d.get("b"), d


def test_membership_and_get_of_a_dict_entry_set_on_one_path():
    for value in (1.0, -1.0):
        check_three_ways(entry_tests, (f32(value, 3.0),))


class Counter(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.steps = 0
        self.phase = "cold"

    @declarative
    def forward(self, x):
        self.steps = self.steps + 1
        self.phase = "warm" if self.steps > 2 else "cold"
        self.kind = "counter"
        return x * self.steps


def test_python_state_written_by_converted_code_counts_as_eagerly():
    eager, converted = Counter(), Counter()
    for _ in range(4):
        e = run_eager(eager, (f32(1.0),))
        c = run_declarative(converted, (f32(1.0),))
        np.testing.assert_array_equal(e.numpy(), c.numpy())
        assert (converted.steps, converted.phase, converted.kind) == \
            (eager.steps, eager.phase, eager.kind)


class Tagger(core.nn.Layer):
    @declarative
    def forward(self, x):
        self.kind = "tagger"
        return x + 1


def test_python_state_that_does_not_change_keeps_one_program():
    net = Tagger()
    for _ in range(5):
        run_declarative(net, (f32(1.0),))
    # the first trace started without the attribute, the second from "tagger", which holds
    assert net.kind == "tagger" and net.forward.translations == 2
    net = Tagger()
    net.kind = "tagger"
    for _ in range(5):
        run_declarative(net, (f32(1.0),))
    assert net.forward.translations == 1


def test_a_function_traced_again_for_its_state_is_warned_once(caplog):
    net = Counter()
    with caplog.at_level("WARNING", logger="translator"):
        for _ in range(12):
            run_declarative(net, (f32(1.0),))
    warned = [r for r in caplog.records if "translated again" in r.getMessage()]
    assert len(warned) == 1 and "Counter.steps" in warned[0].getMessage()
    assert net.steps == 12


@declarative
def bound_on_both_paths(x, n):
    if x.sum() > 0:
        y = x * 2.0
    else:
        y = x - 1.0
    i = core.layers.zeros_like(n)
    while i < n:
        y = core.layers.tanh(y) + 0.1
        i = i + 1
    return y


@declarative
def bound_on_one_path(x):
    if x.sum() > 0:
        y = x * 2.0
    return y


def _op_types(fn, *args):
    program = fn.get_concrete_program(*[core.to_tensor(a) for a in args]).main_program
    return [op.type for block in program.blocks for op in block.ops]


def test_a_name_every_path_binds_gets_no_run_time_check():
    assert "assert" not in _op_types(bound_on_both_paths, f32(1.0), i64([3]))
    check_three_ways(bound_on_both_paths, (f32(1.0), i64([3])), (f32(-1.0), i64([0])))
    assert "assert" in _op_types(bound_on_one_path, f32(1.0))
    check_three_ways(bound_on_one_path, (f32(1.0),), (f32(-1.0),))


class MakesALayer(core.nn.Layer):
    @declarative
    def forward(self, x):
        helper = core.nn.Dropout(0.5)  # a Layer of the call's own: not outside state
        helper.eval()
        return helper(x) + 1


def test_layers_created_by_the_traced_function_are_not_outside_state():
    net = MakesALayer()
    for _ in range(3):
        check_three_ways(net, (f32(1.0, 2.0),))
    assert net.forward.translations == 1


class MarksPositive(core.nn.Layer):
    @declarative
    def forward(self, x):
        if x.sum() > 0:
            self.positive = x * 2
        return x


def test_an_attribute_set_on_one_path_is_set_only_when_that_path_ran():
    net = MarksPositive()
    run_declarative(net, (f32(-1.0),))
    assert "positive" not in net.__dict__
    run_declarative(net, (f32(2.0),))
    np.testing.assert_array_equal(net.positive.numpy(), f32(4.0))
    run_declarative(net, (f32(-3.0),))  # keeps the value the last positive call left
    np.testing.assert_array_equal(net.positive.numpy(), f32(4.0))


@declarative
def list_filled_per_path_then_assigned(x, k):
    a = []
    if x.sum() > 0:
        a.append(x)
    else:
        a.append(core.layers.reshape(x, [1, 2]))
    a[k] = x * 3.0
    return a[0]


def test_item_assigned_in_a_list_the_paths_filled_differently():
    # one of two lists chosen at run time until the item assignment makes them alike;
    # an index out of range raises as eagerly
    check_three_ways(list_filled_per_path_then_assigned, (f32(1.0, 2.0), 0),
                     (f32(-1.0, -2.0), 0), (f32(1.0, 2.0), 5), (f32(-1.0, -2.0), -1))


G_DEAD = 0.0


def dead_branch(x, k):
    # CPython compiles the body away (``... and 0`` is never true): no global is written,
    # whatever the tensor's value
    global G_DEAD
    if (x.sum() > 1.0) and (k == 0 and 0):
        G_DEAD = 2
        x = x + 1.0
    if (x.sum() > 1.0) and (x.mean() < 5.0 and 0.0):  # the inner and's truth is known too
        G_DEAD = 3
    if (x.sum() > 1.0) or 3:
        y = x * 2.0
    else:
        y = x
    return x, y


def test_and_falsy_number_is_false_on_every_path():
    global G_DEAD
    for values, k in (((1.0, 2.0), 2), ((1.0, 2.0), 0), ((0.0, 0.0), 0)):
        G_DEAD = 0.0
        want = run_eager(dead_branch, (f32(*values), k))
        got = run_declarative(declarative(dead_branch), (f32(*values), k))
        for a, b in zip(want, got):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert G_DEAD == 0.0 and type(G_DEAD) is float


@declarative
def none_or_tensor_on_the_paths(x):
    if x.sum() > 0:
        c = None
    else:
        c = x * 2.0
    return x + 1.0, c


def test_a_name_none_on_one_path_a_tensor_on_the_other():
    # unbound before the if, None or a Tensor after it: one of two values chosen at run
    # time, returned as the path gives it
    check_three_ways(none_or_tensor_on_the_paths, (f32(1.0, 2.0),), (f32(-1.0, -2.0),),
                     program=False)

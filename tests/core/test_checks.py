"""core.checks, the one argument-checking module: each check accepts valid input (returning
it in canonical form) and raises its documented error naming the API, the argument, what was
expected and what was given; and the fluid functions, the 2.0 functions and the built-in
layers give the same error for the same bad argument."""
import re
import traceback

import numpy as np
import pytest

import core
from core import checks, lr
from core import layers as L
from core.layers.activation import apply_act
from core.nn import functional as F


def t(a):
    return core.to_tensor(np.asarray(a))


def raises(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as e:
        fn(*args, **kwargs)
    return str(e.value)


# ---------------------------------------------------------------------------- each check


def test_api_name_opens_the_message():
    assert raises(TypeError, checks.check_type, "a", "n", int, "fc") \
        == "fc(): argument 'n' must be int, got str ('a')"
    assert raises(TypeError, checks.check_type, "a", "n", int, "conv2d()").startswith(
        "conv2d(): argument 'n'")
    assert raises(TypeError, checks.check_type, "a", "n", int, "Linear (linear_3)").startswith(
        "Linear (linear_3): argument 'n'")


def test_is_variable_like_and_check_variable():
    x = t(np.ones((2, 3), np.float32))
    assert checks.is_variable_like(x) and not checks.is_variable_like(np.ones(2))
    assert checks.check_variable(x, "x", "f") is x
    assert checks.check_variable(x, "x", "f", checks.FLOATS) is x
    assert raises(TypeError, checks.check_variable, [1.0], "x", "f") \
        == "f(): argument 'x' must be a Tensor or Variable, got list"
    msg = raises(TypeError, checks.check_variable, t(np.ones((2, 3), np.int64)), "x", "f",
                 checks.FLOATS)
    assert msg == ("f(): argument 'x' has dtype int64 (shape [2, 3]); expected one of "
                   "['float16', 'float32', 'float64']")


def test_check_dtype():
    assert checks.check_dtype("int32", "ids", ("int32", "int64"), "f") == np.dtype(np.int32)
    assert raises(TypeError, checks.check_dtype, np.float32, "ids", ("int64",), "f") \
        == "f(): argument 'ids' has dtype float32; expected one of ['int64']"


def test_check_float_input():
    x = t(np.ones((2, 3), np.float64))
    assert checks.check_float_input(x, "Linear") is x
    msg = raises(TypeError, checks.check_float_input, t(np.ones((2, 3), np.int64)), "Linear")
    assert msg == ("Linear(): argument 'input' must be a floating-point tensor, got dtype int64 "
                   "(shape [2, 3]); cast it first, e.g. x.astype('float32')")


def test_check_type_and_bool():
    assert checks.check_type(3, "n", (int, float), "f") == 3
    assert raises(TypeError, checks.check_type, None, "n", (int, float), "f") \
        == "f(): argument 'n' must be int or float, got NoneType (None)"
    assert checks.check_bool(np.bool_(True), "keep_dim", "f") is True
    assert raises(TypeError, checks.check_bool, 1, "keep_dim", "f") \
        == "f(): argument 'keep_dim' must be a bool, got int (1)"


def test_check_number():
    assert checks.check_number(2, "scale", "f") == 2
    got = checks.check_number(np.float32(0.5), "scale", "f")
    assert got == 0.5 and type(got) is float
    for bad, given in ((True, "bool (True)"), ("1", "str ('1')"), (None, "NoneType (None)")):
        assert raises(TypeError, checks.check_number, bad, "scale", "f") \
            == f"f(): argument 'scale' must be a number, got {given}"


def test_check_probability():
    assert checks.check_probability(0, "p", "f") == 0.0
    assert checks.check_probability(np.float32(1.0), "p", "f") == 1.0
    for bad in (1.5, -0.1, "a", True, float("nan")):
        assert raises(ValueError, checks.check_probability, bad, "p", "f") \
            == f"f(): argument 'p' must be a number in [0, 1], got {bad!r}"


def test_is_int_and_check_int():
    assert checks.is_int(3) and checks.is_int(np.int64(3))
    assert not checks.is_int(True) and not checks.is_int(3.0)
    assert checks.check_int(np.int32(4), "size", "f", minimum=1) == 4
    got = checks.check_int(4.0, "size", "f")
    assert got == 4 and type(got) is int
    assert raises(TypeError, checks.check_int, 4.0, "size", "f", integral_float=False) \
        == "f(): argument 'size' must be an int, got float (4.0)"
    assert raises(TypeError, checks.check_int, 2.5, "size", "f") \
        == "f(): argument 'size' must be an int, got float (2.5)"
    assert raises(TypeError, checks.check_int, True, "size", "f") \
        == "f(): argument 'size' must be an int, got bool (True)"
    assert raises(ValueError, checks.check_int, 0, "size", "f", minimum=1) \
        == "f(): argument 'size' must be >= 1, got 0"


def test_check_int_with_tensor_accepts_a_1_element_eager_int_tensor():
    assert checks.check_int(t(np.array([3], np.int64)), "beam_size", "f", tensor=True) == 3
    assert raises(TypeError, checks.check_int, t(np.array([3], np.int64)), "n", "f") \
        == "f(): argument 'n' must be an int, got an int64 tensor of shape [1]"
    assert raises(TypeError, checks.check_int, t(np.array([1.0], np.float32)), "n", "f",
                  tensor=True) == ("f(): argument 'n' must be an int or a 1-element int tensor "
                                   "(in eager mode), got a float32 tensor of shape [1]")
    assert raises(TypeError, checks.check_int, t(np.array([1, 2])), "n", "f", tensor=True) \
        .endswith("got an int64 tensor of shape [2]")
    assert raises(ValueError, checks.check_int, t(np.array(0)), "n", "f", minimum=1,
                  tensor=True) == "f(): argument 'n' must be >= 1, got 0"


def test_check_int_with_tensor_names_a_static_variable(static_mode):
    with core.static.program_guard(core.static.Program(), core.static.Program()):
        n = core.static.data("n", [1], "int64")
        msg = raises(TypeError, checks.check_int, n, "n", "f", tensor=True)
    assert msg == ("f(): argument 'n' must be an int or a 1-element int tensor (in eager mode), "
                   "got an int64 static Variable (its value exists only when the Executor runs) "
                   "of shape [1]")


def test_check_positive():
    assert checks.check_positive(0.5, "clip_norm", "f") == 0.5
    assert checks.check_positive(np.int64(2), "clip_norm", "f") == 2
    for bad in (0, -1.0, float("nan")):
        assert raises(ValueError, checks.check_positive, bad, "clip_norm", "f") \
            == f"f(): argument 'clip_norm' must be a number > 0, got {bad!r}"
    assert raises(TypeError, checks.check_positive, True, "clip_norm", "f") \
        == "f(): argument 'clip_norm' must be a number, got bool (True)"


def test_check_pair():
    assert checks.check_pair(3, "stride", "f") == [3, 3]
    assert checks.check_pair((1, np.int64(2)), "stride", "f", minimum=1) == [1, 2]
    assert checks.check_pair(np.array([2, 3]), "stride", "f") == [2, 3]
    assert checks.check_pair([2.0, 3], "stride", "f") == [2, 3]
    assert raises(TypeError, checks.check_pair, [2.0, 3], "stride", "f", integral_float=False) \
        == "f(): argument 'stride' must be an int or a pair of ints, got list ([2.0, 3])"
    assert raises(ValueError, checks.check_pair, (1, 2, 3), "stride", "f") \
        == "f(): argument 'stride' must be an int or a pair of ints, got (1, 2, 3)"
    assert raises(TypeError, checks.check_pair, "a", "stride", "f") \
        == "f(): argument 'stride' must be an int or a pair of ints, got str ('a')"
    assert raises(ValueError, checks.check_pair, [1, 0], "stride", "f", minimum=1) \
        == "f(): argument 'stride' must be >= 1 (each entry), got [1, 0]"


def test_check_choice():
    assert checks.check_choice("max", "pool_type", ("max", "avg"), "f") == "max"
    assert raises(ValueError, checks.check_choice, "mean", "pool_type", ("max", "avg"), "f") \
        == "f(): argument 'pool_type' must be 'max' or 'avg', got 'mean'"
    msg = raises(ValueError, checks.check_choice, "avg", "reduction", ("mean", "sum", "none"), "f")
    assert msg == "f(): argument 'reduction' must be one of ['mean', 'sum', 'none'], got 'avg'"


def test_check_axis():
    assert checks.check_axis(-1, 3, "axis", "f") == 2
    assert checks.check_axis(0, 0, "axis", "f") == 0
    assert raises(ValueError, checks.check_axis, 3, 3, "axis", "f") \
        == "f(): argument 'axis'=3 is out of range for a tensor of rank 3"
    assert raises(ValueError, checks.check_axis, -4, 3, "axis", "f") \
        == "f(): argument 'axis'=-4 is out of range for a tensor of rank 3"


def test_check_index():
    assert checks.check_index(-1, 10, "padding_idx", "f") == 9
    assert checks.check_index(np.int64(3), 10, "padding_idx", "f") == 3
    assert raises(ValueError, checks.check_index, 10, 10, "padding_idx", "f", "rows") \
        == "f(): argument 'padding_idx' must be in [-10, 10) for 10 rows, got 10"
    assert raises(TypeError, checks.check_index, "0", 10, "padding_idx", "f") \
        == "f(): argument 'padding_idx' must be an int, got str ('0')"


def test_check_act_and_apply_act():
    x = t(np.array([-1.0, 2.0], np.float32))
    assert apply_act(x, None, "f") is x
    np.testing.assert_array_equal(apply_act(x, "relu", "f").numpy(), [0.0, 2.0])
    np.testing.assert_array_equal(apply_act(x, "abs", "f").numpy(), [1.0, 2.0])
    assert checks.check_act("tanh", "f") == "tanh"
    assert raises(TypeError, checks.check_act, 1, "f") \
        == "f(): argument 'act' must be None or an activation name such as 'relu', got int (1)"
    msg = raises(ValueError, apply_act, x, "nope", "f")
    assert msg.startswith("f(): argument 'act' must be None or the name of an activation op, "
                          "one of ['relu', ")
    assert msg.endswith("got 'nope'")


# ------------------------------------------------------------ one style in both families

_STYLE = re.compile(r"^(?P<api>\w+)\(\): argument '(?P<arg>\w+)' must be .+, got .+$")


def _style(message):
    """``(api, arg, the rest with the API and argument names taken out)``."""
    m = _STYLE.match(message)
    assert m, f"not in the one error style: {message}"
    rest = message.replace(f"{m['api']}()", "API()", 1).replace(f"'{m['arg']}'", "'ARG'", 1)
    return m["api"], m["arg"], rest


_X = np.ones((1, 3, 5, 5), np.float32)
_W = np.ones((4, 3, 3, 3), np.float32)


@pytest.mark.parametrize("stride,exc", [(0, ValueError), ("a", TypeError), ((1, 2, 3), ValueError),
                                        ([1, 0], ValueError)])
def test_conv2d_fluid_and_2_0_give_the_same_error(stride, exc):
    fluid = raises(exc, L.conv2d, t(_X), 4, 3, stride=stride)
    two = raises(exc, F.conv2d, t(_X), t(_W), stride=stride)
    assert fluid == two
    assert _style(fluid)[:2] == ("conv2d", "stride")
    layer = raises(exc, core.nn.Conv2D, 3, 4, 3, stride=stride)
    assert layer == fluid.replace("conv2d()", "Conv2D()")


def test_dropout_fluid_and_2_0_give_the_same_style_of_error():
    x = t(np.ones((2, 3), np.float32))
    fluid = _style(raises(ValueError, L.dropout, x, 1.5))
    two = _style(raises(ValueError, F.dropout, x, 1.5))
    layer = _style(raises(ValueError, core.nn.Dropout, 1.5))
    assert (fluid[:2], two[:2]) == (("dropout", "dropout_prob"), ("dropout", "p"))
    assert fluid[2] == two[2] == layer[2] == "API(): argument 'ARG' must be a number in [0, 1], " \
        "got 1.5"


def test_fc_and_linear_give_the_same_error_for_a_bad_act():
    x = t(np.ones((2, 3), np.float32))
    fluid = _style(raises(ValueError, L.fc, x, 4, act="nope"))
    layer = _style(raises(ValueError, core.nn.Linear(3, 4, act="nope"), x))
    assert fluid[:2] == ("fc", "act") and layer[:2] == ("Linear", "act")
    assert fluid[2] == layer[2]
    assert raises(ValueError, L.fc, x, 0) == "fc(): argument 'size' must be >= 1, got 0"
    assert raises(ValueError, core.nn.Linear, 3, 0) \
        == "Linear(): argument 'output_dim' must be >= 1, got 0"


def test_embedding_padding_idx_fluid_and_layer_give_the_same_error():
    ids = t(np.zeros((2, 1), np.int64))
    fluid = raises(ValueError, L.embedding, ids, [10, 4], padding_idx=-11)
    layer = raises(ValueError, core.nn.Embedding, [10, 4], padding_idx=-11)
    assert fluid == ("embedding(): argument 'padding_idx' must be in [-10, 10) for 10 "
                     "vocabulary entries, got -11")
    assert layer == fluid.replace("embedding()", "Embedding()")


def test_pool_type_and_reduction_choices_read_alike():
    x = t(_X)
    fluid = _style(raises(ValueError, L.pool2d, x, 2, pool_type="mean"))
    layer = _style(raises(ValueError, core.nn.Pool2D, 2, pool_type="mean"))
    assert fluid[2] == layer[2] == "API(): argument 'ARG' must be 'max' or 'avg', got 'mean'"
    two = _style(raises(ValueError, F.mse_loss, x, x, reduction="avg"))
    assert two[2] == "API(): argument 'ARG' must be one of ['mean', 'sum', 'none'], got 'avg'"


def test_static_mode_raises_at_the_users_call(static_mode):
    main = core.static.Program()
    with core.static.program_guard(main, core.static.Program()):
        x = core.static.data("x", [-1, 3, 5, 5], "float32")
        with pytest.raises(ValueError) as e:
            L.conv2d(x, 4, 3, stride=0)  # the line the error must point at
    frames = traceback.extract_tb(e.value.__traceback__)
    assert frames[0].filename == __file__
    assert frames[0].line == "L.conv2d(x, 4, 3, stride=0)  # the line the error must point at"
    assert frames[-1].filename.endswith("checks.py")
    assert len(main.global_block().ops) == 0


# ------------------------------------------------- checks folded in from private copies


def test_lr_schedule_step_counts_are_ints_not_truncated_floats():
    assert lr.StepDecay(0.1, 2.0).step_size == 2
    assert raises(TypeError, lr.StepDecay, 0.1, 2.5) \
        == "StepDecay(): argument 'step_size' must be an int, got float (2.5)"
    assert raises(ValueError, lr.CosineAnnealingDecay, 0.1, 0) \
        == "CosineAnnealingDecay(): argument 'T_max' must be >= 1, got 0"
    assert raises(ValueError, lr.ExponentialDecay, 0.1, 0.0) \
        == "ExponentialDecay(): argument 'gamma' must be a number > 0, got 0.0"


def test_beam_search_reads_an_eager_int_tensor_beam_size():
    s = t(np.zeros((5, 4), np.float32))
    p = t(np.zeros((5, 1), np.int64))
    assert raises(ValueError, L.beam_search, p, p, None, s, t(np.array([0])), 0) \
        == "beam_search(): argument 'beam_size' must be >= 1, got 0"
    assert raises(TypeError, L.beam_search, p, p, None, s, 2.0, 0).startswith(
        "beam_search(): argument 'beam_size' must be an int or a 1-element int tensor")


def test_samplers_and_readers_name_the_argument():
    assert raises(ValueError, core.io.BatchSampler, list(range(4)), batch_size=0) \
        == "BatchSampler(): argument 'batch_size' must be >= 1, got 0"
    assert raises(ValueError, core.io.DistributedBatchSampler, list(range(4)), 2,
                  num_replicas=2, rank=2) \
        == ("DistributedBatchSampler(): argument 'rank' must be in [0, 2) for num_replicas=2, "
            "got 2")
    assert raises(TypeError, core.batch, lambda: iter([1]), "2") \
        == "batch(): argument 'batch_size' must be an int, got str ('2')"
    assert raises(ValueError, core.nn.ClipGradByNorm, -1.0) \
        == "GradientClipByNorm(): argument 'clip_norm' must be a number > 0, got -1.0"


def test_control_flow_errors_name_the_argument():
    assert _style(raises(TypeError, L.case, None))[:2] == ("case", "pred_fn_pairs")
    assert _style(raises(TypeError, L.switch_case, t(np.array(0)), 3))[:2] \
        == ("switch_case", "branch_fns")
    assert raises(TypeError, L.switch_case, t(np.array(0)), [(0.5, lambda: 1)]).startswith(
        "switch_case(): argument 'branch_fns' must hold (int, callable) branches, got (0.5, ")
    assert raises(ValueError, L.switch_case, t(np.array(0)), [(1, lambda: 1), (1, lambda: 2)]) \
        == ("switch_case(): argument 'branch_fns' must not repeat a branch index, got duplicate "
            "indices in [1, 1]")
    assert _style(raises(TypeError, L.while_loop, lambda i: i < 3, lambda i: i + 1, 3))[:2] \
        == ("while_loop", "loop_vars")
    assert raises(TypeError, L.while_loop, None, lambda i: i, [1]) \
        == "while_loop(): arguments 'cond' and 'body' must be callable, got NoneType and function"


def test_static_control_flow_errors_name_the_argument(static_mode):
    with core.static.program_guard(core.static.Program(), core.static.Program()):
        x = core.static.data("x", [1], "float32")
        msg = raises(TypeError, L.cond, x, lambda: x, lambda: x)
        assert msg.startswith("cond(): argument 'pred' ('x') must have dtype bool, got float32")
        msg = raises(TypeError, L.Assert, x)
        assert msg == "Assert(): argument 'cond' ('x') must be a bool tensor, got dtype float32"
        msg = raises(TypeError, L.while_loop, lambda v: v, lambda v: v, [x])
        assert msg.startswith("while_loop(): the value returned by argument 'cond' ('x') must "
                              "have dtype bool, got float32")


# ------------------------------------------- bad input raises instead of a wrong result

_LOGITS = np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def test_embedding_padding_idx_is_range_checked_in_all_three_spellings():
    ids, w = t(np.array([0, 1])), t(np.ones((10, 4), np.float32))
    two = raises(ValueError, F.embedding, ids, w, padding_idx=-11)
    fluid = raises(ValueError, L.embedding, t(np.zeros((2, 1), np.int64)), [10, 4],
                   padding_idx=-11)
    assert two == fluid
    assert raises(ValueError, F.embedding, ids, w, padding_idx=10) \
        == "embedding(): argument 'padding_idx' must be in [-10, 10) for 10 vocabulary entries, " \
        "got 10"
    out = F.embedding(ids, w, padding_idx=-10).numpy()  # -10 is row 0: zeros
    np.testing.assert_array_equal(out, [[0, 0, 0, 0], [1, 1, 1, 1]])


@pytest.mark.parametrize("fn,api", [(F.softmax_with_cross_entropy, "softmax_with_cross_entropy"),
                                    (F.cross_entropy, "cross_entropy")])
@pytest.mark.parametrize("axis", [2, -3])
def test_loss_axis_out_of_range_raises_instead_of_wrapping(fn, api, axis):
    label = t(np.array([[1], [2], [0]], np.int64))
    assert raises(ValueError, fn, t(_LOGITS), label, axis=axis) \
        == f"{api}(): argument 'axis'={axis} is out of range for a tensor of rank 2"


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_axis_out_of_range_is_the_shared_error(fn):
    api = fn.__name__
    assert raises(ValueError, fn, t(_LOGITS), axis=2) \
        == f"{api}(): argument 'axis'=2 is out of range for a tensor of rank 2"
    np.testing.assert_allclose(fn(t(_LOGITS), axis=-2).numpy(), fn(t(_LOGITS), axis=0).numpy())


def test_2_0_losses_check_the_label_as_the_fluid_ones_do():
    logits = t(_LOGITS)
    two = raises(ValueError, F.softmax_with_cross_entropy, logits, t(np.zeros((2, 1), np.int64)))
    fluid = raises(ValueError, L.softmax_with_cross_entropy, logits,
                   t(np.zeros((2, 1), np.int64)))
    assert two == fluid == ("softmax_with_cross_entropy(): argument 'label' must have shape "
                            "[3, 1] (hard labels for 'logits' of shape [3, 4]), got [2, 1]")
    assert raises(TypeError, F.cross_entropy, logits, t(np.zeros((3, 1), np.float32))) \
        == ("cross_entropy(): argument 'label' has dtype float32 (shape [3, 1]); expected one "
            "of ['int64', 'int32']")
    # ignore_index=1.5 used to become 1 and silently drop the rows labelled 1
    assert raises(TypeError, F.cross_entropy, logits, t(np.array([1, 2, 0])), ignore_index=1.5) \
        == "cross_entropy(): argument 'ignore_index' must be an int, got float (1.5)"
    assert raises(TypeError, L.softmax_with_cross_entropy, logits, t(np.zeros((3, 1), np.int64)),
                  ignore_index=True) \
        == "softmax_with_cross_entropy(): argument 'ignore_index' must be an int, got bool (True)"


def test_2_0_functions_reject_values_they_used_to_truncate_or_ignore():
    x = t(_LOGITS)
    assert raises(TypeError, F.one_hot, t(np.array([0, 1])), 2.5) \
        == "one_hot(): argument 'num_classes' must be an int, got float (2.5)"
    assert raises(ValueError, F.dropout, x, True) \
        == "dropout(): argument 'p' must be a number in [0, 1], got True"
    assert raises(ValueError, L.label_smooth, x, epsilon=True) \
        == "label_smooth(): argument 'epsilon' must be a number in [0, 1], got True"
    assert raises(ValueError, F.layer_norm, x, [5]) \
        == ("layer_norm(): argument 'normalized_shape' must be the trailing dims of 'x' (shape "
            "[3, 4]), got [5]")
    assert raises(ValueError, F.softplus, x, beta=0).startswith(
        "softplus(): argument 'beta' must be a nonzero number")
    assert raises(TypeError, F.elu, x, "a") == "elu(): argument 'alpha' must be a number, got " \
        "str ('a')"
    img = t(np.ones((2, 3, 4, 4), np.float32))
    stats = [t(np.zeros(3, np.float32)), t(np.ones(3, np.float32))] * 2
    assert raises(ValueError, F.batch_norm, img, *stats, data_format="NWHC").startswith(
        "batch_norm(): argument 'data_format' must be one of ['NCHW', ")
    assert raises(ValueError, F.conv2d, t(_X), t(_W), data_format="NWHC") \
        == "conv2d(): argument 'data_format' must be 'NCHW' or 'NHWC', got 'NWHC'"


def test_elementwise_axis_must_line_up_the_lower_rank_operand():
    x, y = t(_LOGITS), t(np.ones(4, np.float32))
    # axis=5 used to give a [1, 1, 1, 1, 3, 4] result in eager mode
    assert raises(ValueError, L.elementwise_add, x, y, axis=5) \
        == ("elementwise_add(): argument 'axis' must be -1 or in [0, 1] (where the dims [4] "
            "start in [3, 4]; x [3, 4], y [4]), got axis=5")
    assert raises(TypeError, L.elementwise_mul, x, t(np.ones(3, np.float32)), axis=True) \
        == "elementwise_mul(): argument 'axis' must be an int, got bool (True)"
    np.testing.assert_allclose(L.elementwise_add(x, t(np.ones(3, np.float32)), axis=0).numpy(),
                               _LOGITS + 1)
    assert raises(TypeError, L.mul, x, t(np.ones((4, 2), np.float32)), x_num_col_dims=True) \
        == "mul(): argument 'x_num_col_dims' must be an int, got bool (True)"


def test_fluid_functions_reject_values_that_gave_nan_or_were_truncated():
    x = t(_LOGITS)
    img = t(np.ones((2, 3, 2, 2), np.float32))
    assert raises(ValueError, L.batch_norm, img, epsilon=-1.0) \
        == "batch_norm(): argument 'epsilon' must be a number >= 0, got -1.0"
    assert raises(ValueError, L.layer_norm, x, epsilon=-1.0) \
        == "layer_norm(): argument 'epsilon' must be a number >= 0, got -1.0"
    assert raises(ValueError, core.nn.LayerNorm, 4, epsilon=float("nan")) \
        == "LayerNorm(): argument 'epsilon' must be a number >= 0, got nan"
    assert raises(ValueError, F.layer_norm, x, 4, epsilon=-1e-5) \
        == "layer_norm(): argument 'epsilon' must be a number >= 0, got -1e-05"
    assert raises(ValueError, L.clip, x, float("nan"), 1.0) \
        == "clip(): argument 'min' must be a number <= 'max' (1.0), got nan"
    assert raises(TypeError, L.sequence_mask, t(np.array([1, 2])), maxlen=2.5) \
        == "sequence_mask(): argument 'maxlen' must be an int, got float (2.5)"
    assert raises(ValueError, L.relu6, x, 0) \
        == "relu6(): argument 'threshold' must be a number > 0, got 0"
    assert raises(TypeError, L.pad, x, [0, 0, 1, 1], pad_value="0") \
        == "pad(): argument 'pad_value' must be a number, got str ('0')"


def test_check_number_minimum():
    assert checks.check_number(np.float32(0.0), "epsilon", "f", minimum=0) == 0.0
    assert raises(ValueError, checks.check_number, -1, "epsilon", "f", minimum=0) \
        == "f(): argument 'epsilon' must be a number >= 0, got -1"

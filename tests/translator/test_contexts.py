"""Contexts and modes keep their eager meaning in converted code: ``with core.no_grad():`` and
``@no_grad`` stop gradients, fluid ``dropout`` / ``batch_norm`` with ``is_test=None`` follow the
Layer's ``train()`` / ``eval()`` (also in the saved inference model), and the calls
``to_tensor`` of lists, ``sequence_mask(maxlen=tensor)`` and ``concat(x=...)`` work converted.
Each runs eagerly, through ``declarative`` and as a Program run by ``core.Executor``."""
import numpy as np
import pytest

import core
from core import layers
from core.static import backward
from translator import ProgramTranslator, declarative

from .three_way import check_three_ways


def _grads(net, x_value, converted):
    """(x's gradient, each parameter's gradient or None) after ``net(x).backward()``."""
    x = core.to_tensor(x_value, stop_gradient=False)
    ProgramTranslator().enable(converted)
    try:
        net(x).backward()
    finally:
        ProgramTranslator().enable(True)
    out = (x.gradient(), [p.gradient() for p in net.parameters()])
    net.clear_gradients()
    return out


def _same_grads(eager, converted, none_as_zeros=False):
    (ex, eps), (cx, cps) = eager, converted
    np.testing.assert_allclose(cx, ex, rtol=1e-5, atol=1e-6)
    for e, c in zip(eps, cps):
        if none_as_zeros and (e is None) != (c is None):
            # a parameter used only on the branch not taken: eager has no gradient, the
            # Program's cond gradient gives zeros
            e = np.zeros_like(c) if e is None else e
            c = np.zeros_like(e) if c is None else c
        assert (e is None) == (c is None), f"eager gradient {e}, converted {c}"
        if e is not None:
            np.testing.assert_allclose(c, e, rtol=1e-5, atol=1e-6)


# -- no_grad ----------------------------------------------------------------------------------

class FrozenTmp(core.nn.Layer):
    """fluid's no_grad example: tmp = l1.weight * 2 built under no_grad; y = l0(x) + tmp."""

    def __init__(self):
        super().__init__()
        self.l0 = core.nn.Linear(2, 2)
        self.l1 = core.nn.Linear(2, 2)

    def forward(self, x):
        with core.dygraph.no_grad():
            tmp = self.l1.weight * 2
        y = self.l0(x) + tmp
        return layers.reduce_mean(self.l1(y))


class FrozenMethod(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.backbone = core.nn.Linear(3, 3)
        self.head = core.nn.Linear(3, 1)

    @core.dygraph.no_grad
    def features(self, x):
        return layers.relu(self.backbone(x))

    def forward(self, x):
        return layers.reduce_sum(self.head(self.features(x)) + x)


class FrozenBranch(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = core.nn.Linear(3, 3)

    def forward(self, x):
        if layers.reduce_sum(x) > 0:
            with core.no_grad():
                y = self.lin(x)
        else:
            y = self.lin(x) * 2
        return layers.reduce_sum(y * x)


@pytest.mark.parametrize("cls", [FrozenTmp, FrozenMethod])
def test_no_grad_gradients_equal_eager(cls):
    net = declarative(cls())
    x = np.array([[2, 3], [4, 5]] if cls is FrozenTmp else [[1, -2, 3], [0.5, 1, -1]],
                 np.float32)
    eager = _grads(net, x, False)
    _same_grads(eager, _grads(net, x, True))
    # the frozen parameters got no gradient eagerly
    names = [n for n, _ in net.named_parameters()]
    frozen = {"l1.weight"} if cls is FrozenTmp else {"backbone.weight", "backbone.bias"}
    for name, g in zip(names, eager[1]):
        if name in frozen and cls is FrozenMethod:
            assert g is None, name


def test_no_grad_inside_a_tensor_if_on_both_paths():
    net = declarative(FrozenBranch())
    for sign in (1.0, -1.0):
        x = sign * np.arange(1, 7, dtype=np.float32).reshape(2, 3)
        _same_grads(_grads(net, x, False), _grads(net, x, True), none_as_zeros=True)


def test_no_grad_program_has_no_gradient_ops_for_frozen_ops():
    net = FrozenMethod()
    x = core.to_tensor(np.ones([2, 3], np.float32))
    main, _, _, outs = ProgramTranslator().get_program(declarative(net).forward, x)
    frozen = [op for op in main.global_block().ops if op.type == "relu"]
    assert frozen and all(main.global_block().var(n).stop_gradient
                          for op in frozen for n in op.outputs["Out"])
    with core.static.program_guard(main):
        grads = dict((p.name, g) for p, g in backward.append_backward(outs[0]))
    assert net.head.weight.name in grads
    assert net.backbone.weight.name not in grads and net.backbone.bias.name not in grads


def test_program_built_under_an_outer_no_grad_still_trains():
    # the first call (evaluation under no_grad) builds and caches the Program; a later call
    # that wants gradients must get them from the same cached Program
    net = declarative(FrozenTmp())
    x = np.array([[2, 3], [4, 5]], np.float32)
    with core.no_grad():
        out = net(core.to_tensor(x, stop_gradient=False))
    assert out.stop_gradient
    _same_grads(_grads(net, x, False), _grads(net, x, True))


def test_no_grad_results_three_ways():
    check_three_ways(declarative(FrozenBranch()), (np.ones([2, 3], np.float32),),
                     (-np.ones([2, 3], np.float32),))


# -- train / eval -----------------------------------------------------------------------------

class FluidDropout(core.nn.Layer):
    """A PaddlePaddle 1.8 model's head: fluid dropout with is_test left to the mode."""

    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(8, 4)

    @declarative
    def forward(self, x):
        h = layers.dropout(x, dropout_prob=0.5)
        return self.fc(h)


class FluidBatchNorm(core.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = core.nn.Linear(4, 4)

    @declarative
    def forward(self, x):
        return layers.batch_norm(self.fc(x), is_test=None, name="bn_contexts")


def _x(shape, seed=0):
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def test_dropout_eval_three_ways_and_saved_model(tmp_path):
    net = FluidDropout().eval()
    x = _x([4, 8])
    check_three_ways(net, (x,))
    expected = net.fc(core.to_tensor(x * 0.5)).numpy()
    np.testing.assert_allclose(net(core.to_tensor(x)).numpy(), expected, rtol=1e-5)
    ProgramTranslator().save_inference_model(str(tmp_path))
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path), exe)
    loaded = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0]
    np.testing.assert_allclose(loaded, expected, rtol=1e-5)


def test_dropout_train_masks_agree_under_seed_and_switch_back():
    net = FluidDropout()
    x = core.to_tensor(_x([4, 8]))
    outs = []
    for converted in (False, True):
        core.seed(11)
        ProgramTranslator().enable(converted)
        try:
            outs.append(net(x).numpy())
        finally:
            ProgramTranslator().enable(True)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5)
    eval_out = net.eval()(x).numpy()
    assert not np.allclose(eval_out, outs[0])
    net.train()
    core.seed(11)
    np.testing.assert_allclose(net(x).numpy(), outs[0], rtol=1e-5)
    info = ProgramTranslator().cache_info(net.forward)
    assert len(info) == 2  # one Program per mode


def test_saved_model_of_a_training_layer_runs_as_inference(tmp_path):
    # save_inference_model keeps the eval behaviour even when the last call was in train mode
    net = FluidDropout()
    x = _x([4, 8], seed=3)
    net(core.to_tensor(x))
    ProgramTranslator().save_inference_model(str(tmp_path))
    exe = core.Executor(core.CPUPlace())
    program, feeds, fetches = core.io.load_inference_model(str(tmp_path), exe)
    loaded = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)[0]
    expected = net.fc(core.to_tensor(x * 0.5)).numpy()
    np.testing.assert_allclose(loaded, expected, rtol=1e-5)


def test_batch_norm_is_test_none_traced_in_the_layers_mode():
    # the Program of each mode holds batch_norm with is_test = not training
    net = FluidBatchNorm()
    x = core.to_tensor(_x([6, 4], seed=1))
    for training in (True, False):
        (net.train() if training else net.eval())
        main, _, _, _ = ProgramTranslator().get_program(net.forward, x)
        (op,) = [op for op in main.global_block().ops if op.type == "batch_norm"]
        assert op.attrs["is_test"] is (not training)


# -- calls that work eagerly ------------------------------------------------------------------

@declarative
def scale_by_list(x):
    y = x + core.to_tensor([1, 2], dtype="int64")
    t0, t1 = x[0] * 2, x[1] * 3
    return y, core.to_tensor([t0, t1]), core.to_tensor([[0.5, 1.5]]) * 2


@declarative
def stack_rows(h):
    rows = [h[0], h[1] + 1.0]
    return core.to_tensor(rows), core.to_tensor([h[0][0], 3])


def test_to_tensor_of_lists_three_ways():
    check_three_ways(scale_by_list, (np.array([3, 4], np.int64),),
                     (np.array([-1, 7], np.int64),))
    check_three_ways(stack_rows, (np.arange(6, dtype=np.float32).reshape(2, 3),))


@declarative
def mask_to_width(lengths, x):
    mask = layers.sequence_mask(lengths, maxlen=layers.shape(x)[1], dtype="float32")
    return layers.reduce_sum(x * mask, dim=1)


def test_sequence_mask_with_a_tensor_maxlen_three_ways():
    check_three_ways(mask_to_width,
                     (np.array([1, 3, 0], np.int64), np.ones([3, 5], np.float32)),
                     (np.array([2, 2], np.int64), np.arange(8, dtype=np.float32).reshape(2, 4)))


@declarative
def join_keywords(a, b):
    return core.concat(x=[a, b], axis=1), layers.concat(x=[a, b]), layers.concat(input=[b, a])


def test_concat_keywords_three_ways():
    a = np.arange(4, dtype=np.float32).reshape(2, 2)
    check_three_ways(join_keywords, (a, a * 10))

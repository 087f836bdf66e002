"""``core.nn.functional.cosine_similarity`` (``paddle.nn.functional.cosine_similarity``):
values against numpy along an axis, with broadcasting, in a static program, the gradient
against finite differences, and clear errors."""
import numpy as np
import pytest

import core
from core import static
from core.nn import functional as F

RNG = np.random.RandomState(3)
A = RNG.rand(3, 4).astype("float32") - 0.3
B = RNG.rand(3, 4).astype("float32") - 0.3


def _cos(a, b, axis):
    return (a * b).sum(axis) / np.sqrt(np.maximum((a * a).sum(axis) * (b * b).sum(axis), 1e-16))


@pytest.mark.parametrize("axis", [1, 0, -1])
def test_values(axis):
    got = F.cosine_similarity(core.to_tensor(A), core.to_tensor(B), axis=axis).numpy()
    np.testing.assert_allclose(got, _cos(A, B, axis), rtol=1e-5)


def test_broadcast_and_zero_vector():
    got = F.cosine_similarity(core.to_tensor(A), core.to_tensor(B[:1])).numpy()
    np.testing.assert_allclose(got, _cos(A, np.broadcast_to(B[:1], A.shape), 1), rtol=1e-5)
    zero = F.cosine_similarity(core.to_tensor(np.zeros((2, 3), "float32")),
                               core.to_tensor(np.ones((2, 3), "float32"))).numpy()
    np.testing.assert_array_equal(zero, [0.0, 0.0])


def test_static_program_equals_eager():
    main, startup = static.Program(), static.Program()
    core.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [None, 4], "float32")
            y = static.data("y", [None, 4], "float32")
            out = F.cosine_similarity(x, y)
    finally:
        core.disable_static()
    got, = static.Executor(core.CPUPlace()).run(main, feed={"x": A, "y": B}, fetch_list=[out])
    np.testing.assert_allclose(got, _cos(A, B, 1), rtol=1e-5)


def test_gradient_matches_finite_differences():
    a64, b64 = A.astype("float64"), B.astype("float64")
    x = core.to_tensor(a64, stop_gradient=False)
    F.cosine_similarity(x, core.to_tensor(b64)).sum().backward()
    num = np.zeros_like(a64)
    h = 1e-6
    for idx in np.ndindex(*a64.shape):
        up, down = a64.copy(), a64.copy()
        up[idx] += h
        down[idx] -= h
        num[idx] = (_cos(up, b64, 1).sum() - _cos(down, b64, 1).sum()) / (2 * h)
    np.testing.assert_allclose(x.gradient(), num, rtol=1e-5, atol=1e-8)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="'axis'=2 is out of range"):
        F.cosine_similarity(core.to_tensor(A), core.to_tensor(B), axis=2)
    with pytest.raises(TypeError, match="x1"):
        F.cosine_similarity(A, core.to_tensor(B))

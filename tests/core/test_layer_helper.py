"""``core.layer_helper.LayerHelper(layer_type, act=...).append_activation(x)`` (fluid's
``fluid.layer_helper``): the named activation eagerly and in a static program, a dict
``{'type': name}``, no ``act`` leaves ``x`` as it is, and clear errors."""
import numpy as np
import pytest

import core
from core import static
from core.layer_helper import LayerHelper

X = np.array([[-2.0, 0.5], [3.0, -0.1]], dtype="float32")


def test_eager_activation():
    x = core.to_tensor(X)
    np.testing.assert_array_equal(LayerHelper("b", act="relu").append_activation(x).numpy(),
                                  np.maximum(X, 0))
    np.testing.assert_allclose(
        LayerHelper("b", act={"type": "tanh"}).append_activation(x).numpy(), np.tanh(X),
        rtol=1e-6)
    assert LayerHelper("b").append_activation(x) is x
    assert core.layer_helper.LayerHelper is LayerHelper


def test_static_activation():
    main, startup = static.Program(), static.Program()
    core.enable_static()
    try:
        with static.program_guard(main, startup):
            x = static.data("x", [2, 2], "float32")
            y = LayerHelper("b", act="sigmoid").append_activation(x)
    finally:
        core.disable_static()
    got, = static.Executor(core.CPUPlace()).run(main, feed={"x": X}, fetch_list=[y])
    np.testing.assert_allclose(got, 1 / (1 + np.exp(-X)), rtol=1e-6)


def test_bad_arguments_raise():
    x = core.to_tensor(X)
    with pytest.raises(ValueError, match="act as a dict"):
        LayerHelper("b", act={"kind": "relu"}).append_activation(x)
    with pytest.raises(TypeError, match="layer_type"):
        LayerHelper(3)
    with pytest.raises((ValueError, TypeError), match="no_such_act"):
        LayerHelper("b", act="no_such_act").append_activation(x)

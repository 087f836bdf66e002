"""Retranslation diagnostics: the ``translator`` logger names the argument that changed,
``cache_info`` lists cached signatures, many retranslations warn once; get_code's origins."""
import logging
import os

import numpy as np

import core
from translator import InputSpec, ProgramTranslator, declarative
from translator.cache_log import RETRANSLATION_WARNING


def t(shape, dtype="float32"):
    return core.to_tensor(np.ones(shape, dtype=dtype))


def scaled(x, n=1):
    if x.mean() > 0:
        y = x * n
    else:
        y = x - n
    return y


def test_cache_miss_logs_changed_argument(caplog):
    f = declarative(scaled)
    with caplog.at_level(logging.INFO, logger="translator"):
        f(t((2, 3)), 2)
        assert not caplog.records  # the first translation is no retranslation
        f(t((2, 3)), 2)
        assert not caplog.records  # cache hit
        f(t((4, 3)), 2)
        f(t((4, 3), "float64"), 2)
        f(t((4, 3), "float64"), 5)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 3
    assert "'x' Tensor float32[2, 3] -> Tensor float32[4, 3]" in messages[0]
    assert "'x' Tensor float32[4, 3] -> Tensor float64[4, 3]" in messages[1]
    assert "'n' int 2 -> int 5" in messages[2] and "'x'" not in messages[2]
    assert all(r.levelno == logging.INFO for r in caplog.records)


def test_cache_info_lists_signatures():
    f = declarative(scaled)
    f(t((2, 3)), 2)
    f(t((1, 3)), 3.5)
    info = ProgramTranslator().cache_info(f)
    assert info == [{"x": "Tensor float32[2, 3]", "n": "int 2"},
                    {"x": "Tensor float32[1, 3]", "n": "float 3.5"}]
    g = declarative(scaled, input_spec=[InputSpec([None, 3], "float32")])
    g(t((2, 3)))
    g(t((5, 3)))  # fits the spec: no retranslation
    assert ProgramTranslator().cache_info(g) == [{"x": "InputSpec float32[None, 3]",
                                                  "n": "int 1"}]


def test_cache_info_of_layer_method_includes_training_flag():
    class Net(core.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = core.nn.Linear(3, 2)

        @declarative
        def forward(self, x):
            return self.fc(x)

    net = Net()
    net(t((2, 3)))
    net.eval()
    net(t((2, 3)))
    info = ProgramTranslator().cache_info(net.forward)
    assert info == [{"x": "Tensor float32[2, 3]", "self.training": "bool True"},
                    {"x": "Tensor float32[2, 3]", "self.training": "bool False"}]


def test_many_retranslations_warn_once_naming_the_argument(caplog):
    f = declarative(scaled)
    with caplog.at_level(logging.INFO, logger="translator"):
        for rows in range(1, RETRANSLATION_WARNING + 4):
            f(t((rows, 3)), 2)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "argument 'x'" in warnings[0] and "input_spec" in warnings[0]
    assert f"translated {RETRANSLATION_WARNING + 1} times" in warnings[0]


def test_get_code_carries_origin_comments():
    code = ProgramTranslator().get_code(scaled)
    base = os.path.basename(__file__)
    line = scaled.__code__.co_firstlineno
    assert f"# {base}:{line}" in code
    assert f"# {base}:{line + 2}" in code  # the true branch's assignment
    compile(code, "<check>", "exec")  # comments keep it valid Python

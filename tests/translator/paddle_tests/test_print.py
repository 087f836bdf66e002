"""Port of PaddlePaddle's python/paddle/fluid/tests/unittests/dygraph_to_static/test_print.py
(2.x releases): bodies as written (``paddle.fluid`` -> ``core``). Paddle runs each function
eagerly and as a Program and compares nothing; here what the converted call prints (the
tracing call, a cached call, and the Program run by ``core.Executor``) equals what the eager
call prints. Paddle's input is ``ones(5)`` int32; the ``if`` also gets a 2-D input (its other
branch). ``x_v.name = ...`` renames the static Variable in its program, as in Paddle.
Paddle passes an ndarray to ``print(x)``; ``declarative`` feeds an ndarray argument as a
Tensor (as Paddle's ``to_static`` does), so both ways print a Tensor here. A string built
with ``"{}".format(x_v)`` / ``"%s" % x_v`` shows the static Variable's description (Paddle:
its build-time description; before 2.0 a NotImplementedError), not its run-time value."""
import numpy as np
import pytest

import core
import core as fluid
from translator import ProgramTranslator, declarative


# 1. print VarBase
def dyfunc_print_variable(x):
    x_v = fluid.dygraph.to_variable(x)
    # NOTE: transform to static code, var name will be changed
    x_v.name = "assign_0.tmp_0"
    print(x_v)


# 2. print ndarray
def dyfunc_print_ndarray(x):
    print(x)


# 3. print VarBase with format
def dyfunc_print_with_format(x):
    x_v = fluid.dygraph.to_variable(x)
    print("PrintVariable: {}".format(x_v))


# 4. print VarBase with format 2
def dyfunc_print_with_format2(x):
    x_v = fluid.dygraph.to_variable(x)
    print("PrintVariable: %s" % (x_v))


# 5. print VarBase in control flow1
def dyfunc_print_with_ifelse(x):
    x_v = fluid.dygraph.to_variable(x)
    if len(x_v.shape) > 1:
        print(x_v)
    else:
        print(x_v)


def _printed(capsys, call):
    capsys.readouterr()
    call()
    return capsys.readouterr().out


def _eager(fn, x):
    ProgramTranslator().enable(False)
    try:
        fn(core.to_tensor(x))
    finally:
        ProgramTranslator().enable(True)


def _program(fn, x):
    """The Program of ``fn`` for ``x``, run by the Executor (building it prints nothing)."""
    concrete = fn.get_concrete_program(core.to_tensor(x))
    exe = core.Executor(core.CPUPlace())
    exe.run(concrete.startup_program)
    exe.run(concrete.main_program, feed={concrete.inputs[0].name: x},
            fetch_list=concrete.fetch_vars)


INPUTS = [np.ones(5).astype("int32"), np.arange(6).reshape([2, 3]).astype("int32")]


@pytest.mark.parametrize("fn", [dyfunc_print_variable, dyfunc_print_ndarray,
                                dyfunc_print_with_ifelse], ids=lambda fn: fn.__name__)
@pytest.mark.parametrize("x", INPUTS, ids=lambda x: f"{x.ndim}-D")
def test_converted_prints_what_eager_prints(fn, x, capsys):
    expected = _printed(capsys, lambda: _eager(fn, x))
    assert expected.startswith("Tensor(shape=")
    static = declarative(fn)
    for _ in range(2):  # the tracing call, then the cached program
        assert _printed(capsys, lambda: static(core.to_tensor(x))) == expected
    fresh = declarative(fn)
    assert _printed(capsys, lambda: fresh.get_concrete_program(core.to_tensor(x))) == ""
    assert _printed(capsys, lambda: _program(fresh, x)) == expected


@pytest.mark.parametrize("fn", [dyfunc_print_with_format, dyfunc_print_with_format2],
                         ids=lambda fn: fn.__name__)
def test_a_formatted_string_prints_on_every_call(fn, capsys):
    x = INPUTS[0]
    assert _printed(capsys, lambda: _eager(fn, x)).startswith("PrintVariable: Tensor(")
    static = declarative(fn)
    texts = [_printed(capsys, lambda: static(core.to_tensor(x))) for _ in range(2)]
    assert texts[0] == texts[1] and texts[0].startswith("PrintVariable: ")
